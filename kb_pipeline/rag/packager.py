"""Public entry point: package one parsed document into a knowledge-base package.

The package is built from the artifacts of the parse: the `ParsedDocument` and its layout
(`ParsedLayout`: captions, image references, formulas' markup, page furniture), with the image
files of the raw output directory it names. The manifest lists that directory's files, which
the artifacts were normalised from. MinerU output produced elsewhere is normalised first
(`pipeline.normalise_mineru_output`): one path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..contracts import ParsedDocument
from ..files import copy_atomically, write_text_atomically
from ..layout_contract import ParsedLayout
from ..parsing.discovery import DiscoveredInputs, NoContentListError, discover_inputs
from .chunk import RagChunk, order_and_number
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
from .table_chunking import is_oversized
from .token_estimate import ESTIMATE_DESCRIPTION, HARD_CAP_TOKENS, TARGET_MAX_TOKENS, TARGET_MIN_TOKENS, estimate_tokens

SOURCE_FORMAT = "parsed_document"
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
    low_value_chunks: list[str]  # the artifact's chunk ids left out as low-value (contents, revision history)


def default_doc_name(mineru_output_dir: Path) -> str:
    """Directory name without a MinerU ``-<uuid>`` suffix and ``.pdf`` ("report.pdf-<uuid>" → "report")."""
    name = _UUID_SUFFIX.sub("", mineru_output_dir.resolve().name)
    return re.sub(r"\.pdf$", "", name, flags=re.IGNORECASE) or "document"


def _files_used(inputs: DiscoveredInputs, source_pdf: Path) -> dict[str, Path]:
    used = {role: path for role in ("content_list_v2", "content_list", "middle_json") if (path := inputs.first(role))}
    used["origin_pdf"] = source_pdf  # its text layer: the normaliser's second source
    return used


def _manifest(
    doc_id: str,
    doc_title: str,
    inputs: DiscoveredInputs,
    used: dict[str, Path],
    chunks: list[RagChunk],
    metrics: dict[str, Any],
    project_root: Path,
) -> dict[str, Any]:
    def rel(path: Path) -> str:
        return project_relative(path, project_root)

    files_all: dict[str, Any] = {role: [rel(path) for path in paths] for role, paths in inputs.files.items()}
    files_all["images_dir"] = rel(inputs.images_dir) if inputs.images_dir else None
    files_used: dict[str, Any] = {role: rel(path) for role, path in used.items()}
    if inputs.images_dir and any(chunk.image_path for chunk in chunks):
        files_used["images_dir"] = rel(inputs.images_dir)
    return {
        "doc_id": doc_id,
        "doc_title": doc_title,
        "source_dir": rel(inputs.input_dir),
        "source_pdf": rel(used["origin_pdf"]),
        # Built from the normalised document, whose sources are the files of `input_files_used`.
        "source_format": SOURCE_FORMAT,
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


class PackageWriteError(Exception):
    """Writing the package failed — not reading its inputs: the file it was writing, and why."""

    def __init__(self, path: Path, cause: OSError):
        super().__init__(f"cannot write {path}: {cause.strerror or cause}")
        self.path = path


def _write_package(
    output_dir: Path,
    shared_output_dir: Path | None,
    doc_id: str,
    chunks: list[RagChunk],
    manifest: dict[str, Any],
    error_report: dict[str, Any],
    readme: str,
) -> tuple[Path, Path | None]:
    output_dir.mkdir(parents=True, exist_ok=True)
    chunks_path = output_dir / CHUNKS_FILE
    write_chunks(chunks_path, chunks)
    write_json(output_dir / MANIFEST_FILE, manifest)
    write_json(output_dir / ERROR_REPORT_FILE, error_report)
    write_text_atomically(output_dir / README_FILE, readme)
    shared_path = None
    if shared_output_dir is not None:
        shared_output_dir.mkdir(parents=True, exist_ok=True)
        shared_path = shared_output_dir / f"{doc_id}.jsonl"
        copy_atomically(chunks_path, shared_path)
    return chunks_path, shared_path


def package_document(
    document: ParsedDocument,
    layout: ParsedLayout,
    output_dir: Path,
    *,
    project_root: Path,
    source_pdf: Path,
    shared_output_dir: Path | None = None,
) -> PackageResult:
    """Package `document` and its `layout`, normalised from the raw output `document` names and
    the PDF `source_pdf`; image paths in the output are relative to ``project_root``."""
    if document.raw_output_dir is None:
        raise NoContentListError(f"{document.doc_id}: the artifact names no raw output directory (its images)")
    raw_dir = Path(document.raw_output_dir)
    inputs = discover_inputs(raw_dir)
    used = _files_used(inputs, source_pdf)
    doc_id = document.doc_id
    report = ErrorReport()

    packager = DocumentPackager(document, layout, raw_dir, project_root, report)
    chunks = order_and_number(packager.package(), doc_id)
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
    doc_title = document.source_title or doc_id

    manifest = _manifest(doc_id, doc_title, inputs, used, chunks, metrics, project_root)
    readme = readme_text(doc_id=doc_id, doc_title=doc_title, metrics=metrics)
    try:
        chunks_path, shared_path = _write_package(
            output_dir, shared_output_dir, doc_id, chunks, manifest, report.to_dict(doc_id, oversized), readme
        )
    except OSError as e:
        raise PackageWriteError(Path(e.filename) if e.filename else output_dir, e) from e
    return PackageResult(
        doc_id=doc_id,
        output_dir=output_dir,
        chunks_path=chunks_path,
        manifest_path=output_dir / MANIFEST_FILE,
        error_report_path=output_dir / ERROR_REPORT_FILE,
        readme_path=output_dir / README_FILE,
        shared_chunks_path=shared_path,
        metrics=metrics,
        low_value_chunks=packager.low_value_chunks,
    )
