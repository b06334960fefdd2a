"""One document through the core: source PDF → MinerU raw output → ParsedDocument + warnings.

Both producers call this — the batch producer (`batch.py`, `kb-pipeline run`) and the Dagster assets — so neither
reimplements a step. Each stage is its own function so Dagster can run them as separate assets.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from .contracts import ParsedDocument, QualityWarning
from .files import write_text_atomically
from .layout_contract import LAYOUT_NAME, ParsedLayout
from .normalise import build_chunks
from .normalise.item_text import item_texts
from .normalise.page_layout import page_layout
from .normalise.recovery import recover_lost_lines
from .parsing.backends import InProcess, ParseBackend
from .parsing.cache import cache_key
from .parsing.cached_parse import RawOutputRef, parse_to_cache
from .parsing.config import ParserConfig
from .parsing.discovery import discover_inputs
from .parsing.errors import SourceMissingError
from .parsing.mineru_adapter import SOURCE_COPY
from .parsing.raw_output import RawOutput, load_raw_output
from .parsing.windows import WindowProgress
from .paths import DataLayout
from .pdf_text import PDFIUM_LOCK, PdfTextLayer
from .quality.artifact_checks import CheckOutcome, run_artifact_checks
from .quality.text_coverage import measure_text_coverage
from .quality.warnings import quality_warnings
from .settings import Settings
from .source_title import source_title
from .sources import doc_id_for, sha256_file
from .versions import NORMALISER_VERSION

ARTIFACT_NAME = "chunks.json"


def content_hash_of(pdf: Path) -> str:
    try:
        return sha256_file(pdf)
    except FileNotFoundError as e:
        raise SourceMissingError(f"{pdf} does not exist (moved or deleted before it was parsed)") from e


@dataclass(frozen=True)
class Parsing:
    """How this process gets MinerU output: the parser config, the data layout, the backend."""

    config: ParserConfig
    layout: DataLayout
    backend: ParseBackend
    windows_per_worker: int = Settings.model_fields["windows_per_worker"].default

    @classmethod
    def in_process(cls, config: ParserConfig, layout: DataLayout) -> Parsing:
        return cls(config, layout, InProcess())


def parse_raw(pdf: Path, content_hash: str, parsing: Parsing, progress: WindowProgress | None = None) -> RawOutputRef:
    return parse_to_cache(
        pdf,
        content_hash,
        parsing.config,
        parsing.layout.parse_cache,
        parsing.layout.mineru_home,
        parsing.backend,
        windows_per_worker=parsing.windows_per_worker,
        progress=progress,
    )


@dataclass
class NormalisedDocument:
    document: ParsedDocument
    layout: ParsedLayout
    warnings: list[QualityWarning]
    checks: dict[str, CheckOutcome]
    seconds: float


def artifact_key(
    content_hash: str, parser_config: str, parser_version: str, normaliser_version: str = NORMALISER_VERSION
) -> str:
    """Everything that decides an artifact, as one string: the raw-output cache key plus the
    normaliser version. It is `parsed_document`'s data version, so "is this document current?"
    is one comparison."""
    return f"{cache_key(content_hash, parser_config, parser_version)}-{normaliser_version}"


def identity(doc: ParsedDocument | ParsedLayout) -> str:
    """What makes two artifacts of one document the same version (a layout is its artifact's)."""
    return artifact_key(
        doc.content_hash, doc.parser_config or "", doc.parser_version or "", doc.normaliser_version or ""
    )


def normalise_raw(
    pdf: Path, raw_ref: RawOutputRef, *, doc_id: str, previous: ParsedDocument | None = None
) -> NormalisedDocument:
    """Chunks and warnings from a complete raw output directory of our parse cache. `previous`
    is the latest artifact of this document, if any: `version` stays when nothing that shapes
    the artifact changed and is bumped when something did."""
    started = time.perf_counter()
    raw = load_raw_output(raw_ref.path)
    loaded = time.perf_counter() - started
    # The copy MinerU parsed, so the text layer matches the output even if the drop file changed.
    normalised = normalise_output(
        raw,
        raw_ref.path / SOURCE_COPY,
        doc_id=doc_id,
        source_path=pdf,
        content_hash=raw_ref.marker["content_hash"],
        parser_config=raw_ref.marker["parser_config"],
        previous=previous,
    )
    normalised.seconds += loaded  # reading MinerU's output is part of normalising it
    return normalised


def normalise_output(
    raw: RawOutput,
    parsed_pdf: Path,
    *,
    doc_id: str,
    source_path: Path,
    content_hash: str,
    parser_config: str | None = None,
    previous: ParsedDocument | None = None,
) -> NormalisedDocument:
    """MinerU output, wherever it was produced, and the PDF it parsed (`parsed_pdf`, whose text
    layer the normaliser reads) → the artifact, its layout, its warnings and checks."""
    started = time.perf_counter()
    with PDFIUM_LOCK, PdfTextLayer(parsed_pdf) as text_layer:
        texts = item_texts(raw)
        chunks = build_chunks(doc_id, raw, text_layer, texts)
        coverage = measure_text_coverage(chunks, text_layer)
        if coverage.missing:
            lost = coverage.missing_by_page()
            chunks = recover_lost_lines(doc_id, chunks, raw, texts, text_layer, lost, coverage.counted_by_page)
            coverage = measure_text_coverage(chunks, text_layer)
        warnings = quality_warnings(doc_id, chunks, raw, text_layer, coverage, texts)
        document = ParsedDocument(
            doc_id=doc_id,
            source_title=source_title(parsed_pdf, raw, source_path),
            source_path=str(source_path),
            content_hash=content_hash,
            n_pages=raw.n_pages,
            parser_version=raw.mineru_version,
            parser_backend=raw.parser_backend,
            parser_config=parser_config,
            normaliser_version=NORMALISER_VERSION,
            created_at=datetime.now(UTC).isoformat(timespec="seconds"),
            raw_output_dir=str(raw.path),
            chunks=chunks,
        )
        checks = run_artifact_checks(document, raw, text_layer, warnings, coverage)
        layout = page_layout(document, raw, text_layer, texts)
    if previous is not None:
        document.version = previous.version + (identity(previous) != identity(document))
    return NormalisedDocument(document, layout, warnings, checks, time.perf_counter() - started)


def normalise_mineru_output(
    mineru_dir: Path, *, doc_id: str, pdf: Path | None = None
) -> tuple[NormalisedDocument, Path]:
    """MinerU 4 output produced elsewhere (file names plain or prefixed, `parsing.discovery`) and
    the PDF it parsed (`pdf`, else the one in the directory) → the artifact, as our own parses
    get it, with the PDF used. Raises `NoContentListError`, `IncompleteOutputError`,
    `RawOutputMismatchError`."""
    inputs = discover_inputs(mineru_dir)
    raw = load_raw_output(
        mineru_dir,
        content_list=inputs.required("content_list", "content_list.json"),
        content_list_v2=inputs.required("content_list_v2", "content_list_v2.json"),
        middle_json=inputs.required("middle_json", "middle_json.json (MinerU 4's middle JSON)"),
    )
    pdf = pdf or inputs.required("origin_pdf", "PDF", "the normaliser reads its text layer: give it with --pdf")
    normalised = normalise_output(raw, pdf, doc_id=doc_id, source_path=pdf, content_hash=content_hash_of(pdf))
    return normalised, pdf


@dataclass
class DocumentRun:
    """Everything one document's pass through the core produced, with its timings."""

    document: ParsedDocument
    layout: ParsedLayout
    warnings: list[QualityWarning]
    checks: dict[str, CheckOutcome]
    raw: RawOutputRef
    timings: dict[str, float] = field(default_factory=dict)


def process_document(
    pdf: Path,
    parsing: Parsing,
    *,
    doc_id: str | None = None,
    previous: ParsedDocument | None = None,
    progress: WindowProgress | None = None,
) -> DocumentRun:
    """The whole core path for one PDF. Raises `DocumentError` for a document that cannot be
    parsed; anything else is a bug. `progress` hears of each page window of a long document."""
    doc_id = doc_id or doc_id_for(pdf)
    started = time.perf_counter()
    content_hash = content_hash_of(pdf)
    hashed = time.perf_counter()
    raw_ref = parse_raw(pdf, content_hash, parsing, progress)
    parsed = time.perf_counter()
    normalised = normalise_raw(pdf, raw_ref, doc_id=doc_id, previous=previous)
    return DocumentRun(
        normalised.document,
        normalised.layout,
        normalised.warnings,
        normalised.checks,
        raw_ref,
        {
            "hash_seconds": round(hashed - started, 4),
            "parse_seconds": round(raw_ref.parse_seconds, 4),
            "cache_seconds": round(parsed - hashed - raw_ref.parse_seconds, 4),
            "normalise_seconds": round(normalised.seconds, 4),
        },
    )


def read_artifact(path: Path) -> ParsedDocument | None:
    if not path.is_file():
        return None
    return ParsedDocument.model_validate_json(path.read_text(encoding="utf-8"))


def write_artifact(path: Path, document: ParsedDocument) -> None:
    write_text_atomically(path, document.model_dump_json(indent=2))


def write_artifacts(folder: Path, document: ParsedDocument, layout: ParsedLayout) -> Path:
    """`chunks.json` and its layout beside it, in `folder`; the artifact's path. The layout goes
    first: a crash between the two leaves beside the artifact its own version's layout (the same
    inputs and code make the same file) or the next version's, which `read_layout` does not read."""
    write_text_atomically(folder / LAYOUT_NAME, layout.model_dump_json())
    write_artifact(folder / ARTIFACT_NAME, document)
    return folder / ARTIFACT_NAME


def read_layout(artifact_path: Path, document: ParsedDocument) -> ParsedLayout | None:
    """The layout beside the artifact at `artifact_path` when it is `document`'s (the same
    identity); None when there is none (an artifact written before layouts were, or copied
    without it), it does not read as a layout (cut short, another schema), or it is another
    version's: the readers then say what they lost rather than fail."""
    path = artifact_path.with_name(LAYOUT_NAME)
    if not path.is_file():
        return None
    try:
        layout = ParsedLayout.model_validate_json(path.read_text(encoding="utf-8"))
    except ValidationError:
        return None
    return layout if layout.doc_id == document.doc_id and identity(layout) == identity(document) else None


def chunk_kinds(document: ParsedDocument) -> dict[str, int]:
    counts: dict[str, int] = {}
    for chunk in document.chunks:
        counts[chunk.kind] = counts.get(chunk.kind, 0) + 1
    return counts
