"""Public entry point: package one MinerU output directory into a knowledge-base package."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..files import copy_atomically, write_text_atomically
from ..sources import doc_id_for_name
from .chunk import RagChunk, order_and_number
from .content_list import ContentListError, LoadedContent, load_content_list_v1, load_content_list_v2, read_page_indexes
from .discovery import DiscoveredInputs, discover_inputs
from .document_packager import DocumentPackager
from .error_report import ErrorReport
from .image_paths import project_relative
from .output_files import (
    CHUNKS_FILE,
    ERROR_REPORT_FILE,
    MANIFEST_FILE,
    README_FILE,
    readme_text,
    write_chunks,
    write_json,
)
from .structure import DocumentStructure
from .table_chunking import is_oversized
from .token_estimate import ESTIMATE_DESCRIPTION, HARD_CAP_TOKENS, TARGET_MAX_TOKENS, TARGET_MIN_TOKENS, estimate_tokens

_UUID_SUFFIX = re.compile(r"[-_][0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE)


@dataclass(frozen=True)
class PackageResult:
    doc_id: str
    output_dir: Path
    chunks_path: Path
    manifest_path: Path
    error_report_path: Path
    readme_path: Path
    shared_chunks_path: Path | None
    metrics: dict[str, Any]  # self-check metrics; see metrics.PackagingStats.metrics


def default_doc_name(mineru_output_dir: Path) -> str:
    """Directory name without a MinerU ``-<uuid>`` suffix and ``.pdf`` ("report.pdf-<uuid>" → "report")."""
    name = _UUID_SUFFIX.sub("", mineru_output_dir.resolve().name)
    return re.sub(r"\.pdf$", "", name, flags=re.IGNORECASE) or "document"


def _load_content(inputs: DiscoveredInputs, report: ErrorReport) -> tuple[LoadedContent, dict[str, Path]]:
    """Prefer content_list_v2; fall back to content_list when v2 is absent or unusable."""
    used: dict[str, Path] = {}
    v2_path = inputs.first("content_list_v2")
    if v2_path is not None:
        page_indexes = None
        middle_path = inputs.first("middle_json")
        if middle_path is not None:
            try:
                page_indexes = read_page_indexes(middle_path)
                used["middle_json"] = middle_path
            except ContentListError as exc:
                report.warnings.append(f"page numbers taken from content_list_v2 page order: {exc}")
        try:
            content = load_content_list_v2(v2_path, page_indexes)
            used["content_list_v2"] = v2_path
            return content, used
        except ContentListError as exc:
            report.parse_errors.append({"source": v2_path.name, "message": str(exc)})
            used.pop("middle_json", None)
    v1_path = inputs.first("content_list")
    if v1_path is not None:
        try:
            content = load_content_list_v1(v1_path)
            used["content_list"] = v1_path
            return content, used
        except ContentListError as exc:
            report.parse_errors.append({"source": v1_path.name, "message": str(exc)})
    raise ContentListError(
        f"no usable content list in {inputs.input_dir}: " + "; ".join(error["message"] for error in report.parse_errors)
    )


def _manifest(
    doc_id: str,
    doc_title: str,
    inputs: DiscoveredInputs,
    used: dict[str, Path],
    chunks: list[RagChunk],
    metrics: dict[str, Any],
    project_root: Path,
    source_format: str,
) -> dict[str, Any]:
    def rel(path: Path) -> str:
        return project_relative(path, project_root)

    files_all: dict[str, Any] = {role: [rel(path) for path in paths] for role, paths in inputs.files.items()}
    files_all["images_dir"] = rel(inputs.images_dir) if inputs.images_dir else None
    files_used: dict[str, Any] = {role: rel(path) for role, path in used.items()}
    if inputs.images_dir and any(chunk.image_path for chunk in chunks):
        files_used["images_dir"] = rel(inputs.images_dir)
    origin_pdf = inputs.first("origin_pdf")
    return {
        "doc_id": doc_id,
        "doc_title": doc_title,
        "source_dir": rel(inputs.input_dir),
        "source_pdf": rel(origin_pdf) if origin_pdf else None,
        "source_format": source_format,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "project_root": str(project_root.resolve()),
        "input_files_all": files_all,
        "input_files_used": files_used,
        "chunking": {
            "token_estimate": ESTIMATE_DESCRIPTION,
            "text_target_tokens": [TARGET_MIN_TOKENS, TARGET_MAX_TOKENS],
            "hard_cap_tokens": HARD_CAP_TOKENS,
        },
        "statistics": metrics,
        # The six-field JSONL cannot carry split metadata, so it lives here, keyed by chunk_id.
        "split_info": {chunk.chunk_id: chunk.split_info for chunk in chunks if chunk.split_info},
        # A table continued from the previous page → the chunk of the table it continues.
        "continues": {chunk.chunk_id: chunk.continues.chunk_id for chunk in chunks if chunk.continues},
        "output_files": [CHUNKS_FILE, MANIFEST_FILE, ERROR_REPORT_FILE, README_FILE],
    }


def package_document(
    mineru_output_dir: Path,
    output_dir: Path,
    *,
    project_root: Path,
    shared_output_dir: Path | None = None,
    doc_name: str | None = None,
    structure: DocumentStructure | None = None,
) -> PackageResult:
    """Package one MinerU output directory; image paths in the output are relative to ``project_root``.
    ``structure``, when the document went through our normaliser, supplies its sections and its
    formulas' text-layer characters (see ``structure``).

    Raises ``NoContentListError`` when the directory has no content list and
    ``ContentListError`` when no content list can be parsed.
    """
    inputs = discover_inputs(mineru_output_dir)
    doc_name = doc_name or default_doc_name(mineru_output_dir)
    doc_id = doc_id_for_name(doc_name)
    report = ErrorReport()
    content, used = _load_content(inputs, report)
    report.parse_errors.extend(content.parse_errors)
    source_format = "content_list_v2" if "content_list_v2" in used else "content_list"

    packager = DocumentPackager(mineru_output_dir, project_root, report, structure)
    chunks = order_and_number(packager.package(content.pages), doc_id)
    oversized = [
        {
            "chunk_id": chunk.chunk_id,
            "estimated_tokens": estimate_tokens(chunk.chunk_text),
            "chars": len(chunk.chunk_text),
            "reason": "table row over the token cap kept whole",
        }
        for chunk in chunks
        if chunk.content_type == "table" and is_oversized(chunk.chunk_text)
    ]
    metrics = packager.stats.metrics(
        chunks,
        oversized_table_chunks=len(oversized),
        missing_images=len(report.missing_images),
        unsupported_blocks=len(report.unsupported_blocks),
        parse_errors=len(report.parse_errors),
    )
    doc_title = packager.document_title or doc_name

    output_dir.mkdir(parents=True, exist_ok=True)
    chunks_path = output_dir / CHUNKS_FILE
    write_chunks(chunks_path, chunks)
    manifest = _manifest(doc_id, doc_title, inputs, used, chunks, metrics, project_root, source_format)
    write_json(output_dir / MANIFEST_FILE, manifest)
    write_json(output_dir / ERROR_REPORT_FILE, report.to_dict(doc_id, oversized))
    write_text_atomically(
        output_dir / README_FILE,
        readme_text(doc_id=doc_id, doc_title=doc_title, source_format=source_format, metrics=metrics),
    )
    shared_path = None
    if shared_output_dir is not None:
        shared_output_dir.mkdir(parents=True, exist_ok=True)
        shared_path = shared_output_dir / f"{doc_id}.jsonl"
        copy_atomically(chunks_path, shared_path)
    return PackageResult(
        doc_id=doc_id,
        output_dir=output_dir,
        chunks_path=chunks_path,
        manifest_path=output_dir / MANIFEST_FILE,
        error_report_path=output_dir / ERROR_REPORT_FILE,
        readme_path=output_dir / README_FILE,
        shared_chunks_path=shared_path,
        metrics=metrics,
    )
