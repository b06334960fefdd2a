"""RAG knowledge-base packager: a `ParsedDocument` → chunked JSONL package (seed 001).

Pure Python (no Dagster import) so the Dagster layer and the CLI can both call it.
"""

from __future__ import annotations

from .metrics import format_metrics
from .packager import PackageResult, package_document

__all__ = ["PackageResult", "format_metrics", "package_document"]
