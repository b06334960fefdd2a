"""RAG knowledge-base packager: MinerU output directory → chunked JSONL package.

Pure Python (no Dagster import) so the Dagster layer and the CLI can both call it.
"""

from __future__ import annotations

from .content_list import ContentListError
from .discovery import NoContentListError
from .metrics import format_metrics
from .packager import PackageResult, package_document
from .structure import DocumentStructure, is_our_cache_entry, structure_for_raw_output, structure_from_artifact

__all__ = [
    "ContentListError",
    "DocumentStructure",
    "NoContentListError",
    "PackageResult",
    "format_metrics",
    "is_our_cache_entry",
    "package_document",
    "structure_for_raw_output",
    "structure_from_artifact",
]
