"""RAG knowledge-base packager: MinerU output directory → chunked JSONL package.

Pure Python (no Dagster import) so the Dagster layer and the CLI can both call it.
"""

from __future__ import annotations

from .content_list import ContentListError
from .discovery import NoContentListError
from .metrics import format_metrics
from .packager import PackageResult, package_document

__all__ = [
    "ContentListError",
    "NoContentListError",
    "PackageResult",
    "format_metrics",
    "package_document",
]
