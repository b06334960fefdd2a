"""The asset graph, partitioned per document:

    source_pdf → mineru_raw_output → parsed_document → quality_warnings → quality_warnings_table
                          │                 + page_layout
                          └── its images ──→ kb_package ← parsed_document, page_layout

and, from parsed_document and page_layout, the knowledge payloads and their tables
(`defs/knowledge.py`). parsed_document and page_layout are one step's two outputs: the
normaliser writes both from one reading of MinerU's output and the PDF.

Each asset calls the core and attaches what the UI shows. Assets keep their own files (content
addressed under the data root) and report them with `MaterializeResult`, so nothing is pickled
and a file on disk is always what the metadata says. Data versions are derived from content,
so re-materialising an unchanged partition gives the same version; code versions carry the
parser config, the MinerU version and the normaliser fingerprint, so changing any of them makes
the UI show the partition unsynced.
"""

import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import dagster as dg

from ..contracts import QualityWarning
from ..files import write_text_atomically
from ..layout_contract import LAYOUT_NAME
from ..parsing.cache import complete_dir, read_marker
from ..parsing.cached_parse import RawOutputRef
from ..parsing.errors import DocumentError, ParseServiceError
from ..parsing.mineru_adapter import SOURCE_COPY
from ..pipeline import (
    ARTIFACT_NAME,
    chunk_kinds,
    content_hash_of,
    identity,
    normalise_raw,
    parse_raw,
    read_artifact,
    read_layout,
    write_artifacts,
)
from ..quality.artifact_checks import ARTIFACT_CHECKS
from ..rag import package_document
from ..versions import NORMALISER_VERSION, PACKAGER_VERSION
from . import tables
from .history import latest_materialization, metadata_values
from .names import MINERU_RAW_OUTPUT, PAGE_LAYOUT, PARSED_DOCUMENT
from .partitions import documents
from .resources import KnowledgeBase

OWNERS = ["team:knowledge"]
GROUP = "ingestion"
MINERU_POOL = "mineru"
# The warnings tables' columns are QualityWarning's fields, in order: integers as nullable Int64,
# everything else as strings.
WARNING_COLUMNS = {name: tables.dtype(field.annotation) for name, field in QualityWarning.model_fields.items()}
_PREVIEW_CHUNKS = 5
SEVERE = {check.name: check.severe for check in ARTIFACT_CHECKS}


def _document_error_to_failure(doc_id: str, error: DocumentError) -> dg.Failure:
    """A bad document is not a bug: fail this partition with the reason, and no retry."""
    return dg.Failure(
        description=f"{doc_id}: {type(error).__name__}: {error}",
        metadata={"error_type": type(error).__name__, "reason": str(error)},
        allow_retries=False,
    )


# The parser itself failing (MinerU's API service unreachable or gone mid-parse, a local parse
# worker killed) is not the document's fault: the step is tried again this many times, this many
# seconds apart, and only then fails with the reason (naming the service's URL).
# (`KnowledgeBase.parse_retries`, `parse_retry_seconds`, from KB_PARSE_RETRIES, KB_PARSE_RETRY_SECONDS.)


def _retry_or_fail(
    context: dg.AssetExecutionContext, kb: KnowledgeBase, doc_id: str, error: ParseServiceError
) -> Exception:
    retries, wait = kb.parse_retries, kb.parse_retry_seconds
    if context.retry_number < retries:
        context.log.warning(f"{doc_id}: {error}; retry {context.retry_number + 1} of {retries} in {wait:g} s")
        return dg.RetryRequested(max_retries=retries, seconds_to_wait=wait)
    return dg.Failure(
        description=f"{doc_id}: {type(error).__name__}: {error} (after {retries} retries)",
        metadata={"error_type": type(error).__name__, "reason": str(error)},
        allow_retries=False,
    )


# An external asset: Dagster does not make the PDFs, it is told about them. The drop-folder
# sensor and `kb-pipeline ingest` report an observation per document whose data version is the
# file's sha256, so a changed file makes everything downstream of it unsynced.
source_pdf = dg.AssetSpec(
    "source_pdf",
    partitions_def=documents,
    description="A PDF in the drop folder. Its data version per partition is the sha256 of its bytes, "
    "observed by the drop-folder sensor and by `kb-pipeline ingest`.",
    group_name=GROUP,
    kinds={"pdf"},
    owners=OWNERS,
)


def _window_progress(context: dg.AssetExecutionContext, line: str) -> None:
    """A long document's window progress: in the run's log, and on stderr (the terminal of
    `kb-pipeline ingest`, whose in-process runs keep Dagster's console logger quiet)."""
    context.log.info(line)
    print(line, file=sys.stderr, flush=True)


def _raw_output(context: dg.AssetExecutionContext, kb: KnowledgeBase) -> dg.MaterializeResult:
    doc_id = context.partition_key
    source = kb.find_source(doc_id)
    config = kb.parser_config
    try:
        ref = parse_raw(
            source.path,
            content_hash_of(source.path),
            kb.parsing,
            progress=lambda k, n, first, last: _window_progress(
                context, f"{doc_id}: window {k}/{n} (pages {first}-{last})"
            ),
        )
    except DocumentError as e:
        raise _document_error_to_failure(doc_id, e) from e
    except ParseServiceError as e:
        raise _retry_or_fail(context, kb, doc_id, e) from e
    marker = ref.marker
    context.log.info(
        f"{doc_id}: {'cache hit' if ref.cache_hit else f'parsed in {ref.parse_seconds:.1f} s'} → {ref.path}"
    )
    return dg.MaterializeResult(
        data_version=dg.DataVersion(ref.path.name),
        metadata={
            "cache_hit": ref.cache_hit,
            "parse_seconds": dg.MetadataValue.float(float(ref.parse_seconds)),
            "pages": marker["n_pages"],
            "tier": marker["tier"],
            "parse_mode": marker["parse_mode"],
            "parser_config": config.fingerprint,
            "parser_settings": dg.MetadataValue.json(marker["parser_settings"]),
            "mineru_version": marker["mineru_version"],
            "content_hash": marker["content_hash"],
            "source_path": dg.MetadataValue.path(str(source.path)),
            "source_name": source.path.name,
            "raw_output_dir": dg.MetadataValue.path(str(ref.path)),
            **({"ocr": dg.MetadataValue.json(marker["ocr"])} if marker.get("ocr") else {}),
        },
    )


def mineru_raw_output_asset(code_version: str) -> dg.AssetsDefinition:
    """`mineru_raw_output`, built with the definitions (`definitions.build_definitions`): its code
    version is MinerU's version plus the knowledge base's parser fingerprint, so changing either
    shows every partition unsynced before anything re-runs."""
    return dg.asset(
        name=MINERU_RAW_OUTPUT,
        partitions_def=documents,
        deps=[source_pdf],
        description="MinerU's untouched raw output for this document (middle JSON, content lists, markdown, "
        "images), in the content-addressed cache `<sha16>-<config12>-<mineru_version>`. A complete cache "
        "entry is reused: an unchanged document never re-runs MinerU.",
        kinds={"mineru", "pdf"},
        owners=OWNERS,
        group_name=GROUP,
        pool=MINERU_POOL,
        code_version=code_version,
        # No automation condition on a document's steps: the drop-folder sensor decides when a
        # document is parsed (it knows whether the file is finished) and runs its whole chain;
        # a parse re-made alone is followed by the rest of its chain (document_chain.py).
    )(_raw_output)


def ocr_note(marker: dict) -> str:
    """ "OCR (tesseract-5.3.0, eng) on 3 of 8 pages", or "" for a document read from its text layer."""
    ocr = marker.get("ocr")
    if not ocr:
        return ""
    return f"OCR ({ocr['engine']}, {ocr['langs']}) on {len(ocr['pages'])} of {marker['n_pages']} pages"


def _raw_ref_for(context: dg.AssetExecutionContext, kb: KnowledgeBase) -> RawOutputRef:
    """The cache entry the latest `mineru_raw_output` materialisation of this partition made."""
    meta = metadata_values(
        latest_materialization(context.instance, dg.AssetKey(MINERU_RAW_OUTPUT), context.partition_key)
    )
    if "raw_output_dir" not in meta:
        raise dg.Failure(f"{context.partition_key}: mineru_raw_output has not been materialised", allow_retries=False)
    path = Path(str(meta["raw_output_dir"]))
    if complete_dir(path.parent, path.name) is None:
        raise dg.Failure(
            f"{context.partition_key}: raw output {path} is missing or incomplete; re-materialise mineru_raw_output",
            allow_retries=False,
        )
    return RawOutputRef(path, True, 0.0, read_marker(path))


def _markdown_preview(document, warnings: list[QualityWarning]) -> str:
    lines = [
        f"**{document.source_title}** — {document.n_pages} pages, {len(document.chunks)} chunks, "
        f"{len(warnings)} warnings",
        "",
        "| chunk | kind | page | section | text |",
        "|---|---|---|---|---|",
    ]
    for chunk in document.chunks[:_PREVIEW_CHUNKS]:
        text = " ".join(chunk.text.split())[:120].replace("|", "\\|")
        lines.append(
            f"| {chunk.chunk_id} | {chunk.kind} | {chunk.page_no} | {chunk.section_no or ''} {chunk.heading or ''} | {text} |"
        )
    if warnings:
        lines += ["", "**Warnings**", ""] + [
            f"- `{w.jenis}` (page {'' if w.page_idx is None else w.page_idx + 1}): {w.detail[:160]}"
            for w in warnings[:10]
        ]
    return "\n".join(lines)


def warnings_path(kb: KnowledgeBase, doc_id: str) -> Path:
    return kb.layout.within(tables.part_path(kb.layout, "quality_warnings", doc_id))


@dg.multi_asset(
    name=PARSED_DOCUMENT,
    partitions_def=documents,
    specs=[
        dg.AssetSpec(
            PARSED_DOCUMENT,
            deps=[MINERU_RAW_OUTPUT],
            description="The artifact: one ParsedDocument (schema 0.3.3) at data/parsed/<doc_id>/chunks.json — "
            "verbatim chunks, headings, formulas and tables, with full provenance.",
            kinds={"json", "pydantic"},
            owners=OWNERS,
            group_name=GROUP,
            code_version=NORMALISER_VERSION,
        ),
        dg.AssetSpec(
            PAGE_LAYOUT,
            deps=[MINERU_RAW_OUTPUT],
            description='The artifact\'s pages (docs/contract.md, "The layout artifact") at '
            "data/parsed/<doc_id>/page_layout.json: the text layer's lines with their box, type size and weight, "
            "MinerU's items with their captions, formulas' markup and images, the furniture removed. What the "
            "knowledge readers and the RAG package read instead of the PDF and MinerU's output.",
            kinds={"json", "pydantic"},
            owners=OWNERS,
            group_name=GROUP,
            code_version=NORMALISER_VERSION,
        ),
    ],
    check_specs=[
        dg.AssetCheckSpec(check.name, asset=PARSED_DOCUMENT, description=check.description, blocking=check.blocking)
        for check in ARTIFACT_CHECKS
    ],
)
def parsed_document(context: dg.AssetExecutionContext, kb: KnowledgeBase) -> Iterator[dg.MaterializeResult]:
    doc_id = context.partition_key
    raw_ref = _raw_ref_for(context, kb)
    source_path = Path(raw_ref.marker["source_path"])
    folder = kb.layout.parsed_dir(doc_id)
    result = normalise_raw(source_path, raw_ref, doc_id=doc_id, previous=read_artifact(folder / ARTIFACT_NAME))
    document, layout = result.document, result.layout
    artifact_path = write_artifacts(folder, document, layout)
    # Written here, beside the artifact, so quality_warnings reads exactly this run's warnings.
    warnings_file = artifact_path.with_name("warnings.json")
    write_text_atomically(
        warnings_file, json.dumps([w.model_dump() for w in result.warnings], ensure_ascii=False, indent=2)
    )
    kinds = chunk_kinds(document)
    # Both are made from the same inputs by the same code: they share the artifact's identity.
    version = dg.DataVersion(identity(document))
    yield dg.MaterializeResult(
        asset_key=PAGE_LAYOUT,
        data_version=version,
        metadata={
            "pages": len(layout.pages),
            "lines": sum(len(page.lines) for page in layout.pages),
            "items": sum(len(page.items) for page in layout.pages),
            "removed": sum(item.removed for page in layout.pages for item in page.items),
            "layout": dg.MetadataValue.path(str(artifact_path.with_name(LAYOUT_NAME))),
        },
    )
    yield dg.MaterializeResult(
        asset_key=PARSED_DOCUMENT,
        data_version=version,
        metadata={
            "version": document.version,
            "pages": document.n_pages,
            "chunks": len(document.chunks),
            **{f"chunks_{kind}": kinds.get(kind, 0) for kind in ("text", "table", "image", "chart")},
            "warnings": len(result.warnings),
            "normalise_seconds": dg.MetadataValue.float(round(result.seconds, 4)),
            "parser_backend": document.parser_backend or "",
            # Pages whose text was read by OCR ("" when none): the status line shows it.
            "ocr": ocr_note(raw_ref.marker),
            "normaliser_version": NORMALISER_VERSION,
            "source_title": document.source_title or "",
            "artifact": dg.MetadataValue.path(str(artifact_path)),
            "raw_output_dir": dg.MetadataValue.path(str(raw_ref.path)),
            "preview": dg.MetadataValue.md(_markdown_preview(document, result.warnings)),
        },
        check_results=[
            dg.AssetCheckResult(
                check_name=name,
                passed=outcome.passed,
                severity=dg.AssetCheckSeverity.ERROR if SEVERE[name] else dg.AssetCheckSeverity.WARN,
                description=outcome.description,
                metadata={
                    "problems": len(outcome.problems),
                    "first_problems": dg.MetadataValue.md("\n".join(f"- {p}" for p in outcome.problems[:10]) or "none"),
                    **_check_metadata(outcome.metadata),
                },
            )
            for name, outcome in result.checks.items()
        ],
    )


def _check_metadata(values: dict) -> dict:
    """A check's own figures as Dagster metadata: numbers as numbers, anything else as JSON."""
    return {
        key: value
        if isinstance(value, (int, float, str)) and not isinstance(value, bool)
        else dg.MetadataValue.json(value)
        for key, value in values.items()
    }


@dg.asset(
    partitions_def=documents,
    deps=[PARSED_DOCUMENT],
    description="This document's quality warnings, one row per warning (parquet). Warnings never fail a document.",
    kinds={"pandas", "parquet"},
    owners=OWNERS,
    group_name=GROUP,
    code_version=NORMALISER_VERSION,
)
def quality_warnings(context: dg.AssetExecutionContext, kb: KnowledgeBase) -> dg.MaterializeResult:
    doc_id = context.partition_key
    source = kb.layout.parsed_dir(doc_id) / "warnings.json"
    rows = json.loads(source.read_text(encoding="utf-8"))
    frame = tables.frame(rows, WARNING_COLUMNS)
    path = warnings_path(kb, doc_id)
    tables.write_parquet(frame, path)
    return dg.MaterializeResult(
        data_version=dg.DataVersion(hashlib.sha256(source.read_bytes()).hexdigest()[:16]),
        metadata={
            "dagster/row_count": len(frame),
            "dagster/column_schema": dg.MetadataValue.table_schema(tables.schema(WARNING_COLUMNS)),
            "by_code": dg.MetadataValue.json(frame["jenis"].value_counts().to_dict()),
            "path": dg.MetadataValue.path(str(path)),
            "preview": dg.MetadataValue.md(frame.head(20).to_markdown(index=False) if len(frame) else "no warnings"),
        },
    )


# `eager()` without its "no dependency partition missing" guard: a failed document never
# materialises its warnings, and eager would then freeze the table for good. Eager's own
# `since_last_handled` keeps an update seen while another document's run was in progress
# pending until the table is rebuilt (test_automation.py).
REFRESH_AFTER_ANY_DOCUMENT = (
    dg.AutomationCondition.eager().without(~dg.AutomationCondition.any_deps_missing()).with_label("eager_allow_missing")
)


def corpus_table_asset(
    table: str, follows: str | dg.AssetsDefinition, columns: dict[str, str], count_by: str, label: str, group: str
) -> dg.AssetsDefinition:
    """`<table>_table`: every document's part of `table` gathered into one parquet file
    (`tables.gather`), rebuilt after any document's part changed."""

    @dg.asset(
        name=f"{table}_table",
        deps=[follows],
        description=f"Every document's {table.replace('_', ' ')} in one parquet table, data/tables/{table}.parquet.",
        kinds={"pandas", "parquet"},
        owners=OWNERS,
        group_name=group,
        automation_condition=REFRESH_AFTER_ANY_DOCUMENT,
    )
    def gathered(kb: KnowledgeBase) -> dg.MaterializeResult:
        return dg.MaterializeResult(metadata=tables.gather(kb.layout, table, columns, count_by, label))

    return gathered


quality_warnings_table = corpus_table_asset(
    "quality_warnings", quality_warnings, WARNING_COLUMNS, "jenis", "by_code", GROUP
)


@dg.asset(
    partitions_def=documents,
    # The images are the raw output's files.
    deps=[MINERU_RAW_OUTPUT, PARSED_DOCUMENT, PAGE_LAYOUT],
    description="RAG-ready package of this document (kb_chunks.jsonl, kb_manifest.json, error_report.json, "
    "README_kb.md) under data/kb/<doc_id>/, plus the corpus-level data/kb/_all/<doc_id>.jsonl. "
    "Built from parsed_document's chunks and page_layout (captions, images and formulas' LaTeX).",
    kinds={"jsonl"},
    owners=OWNERS,
    group_name="packages",
    code_version=PACKAGER_VERSION,
)
def kb_package(context: dg.AssetExecutionContext, kb: KnowledgeBase) -> dg.MaterializeResult:
    doc_id = context.partition_key
    layout = kb.layout
    artifact_path = layout.parsed_dir(doc_id) / ARTIFACT_NAME
    document = read_artifact(artifact_path)
    page_layout = read_layout(artifact_path, document) if document is not None else None
    if document is None or page_layout is None:
        raise dg.Failure(
            f"{doc_id}: parsed_document has no artifact or page layout on disk; re-materialise it",
            allow_retries=False,
        )
    result = package_document(
        document,
        page_layout,
        layout.within(layout.kb / doc_id),
        project_root=layout.root.parent,
        source_pdf=_raw_ref_for(context, kb).path / SOURCE_COPY,
        shared_output_dir=layout.kb / "_all",
    )
    metrics = result.metrics
    return dg.MaterializeResult(
        data_version=dg.DataVersion(hashlib.sha256(result.chunks_path.read_bytes()).hexdigest()[:16]),
        metadata={
            **{
                key: value
                for key, value in metrics.items()
                if isinstance(value, (int, float)) and not isinstance(value, bool)
            },
            "metrics": dg.MetadataValue.json(metrics),
            "kb_chunks": dg.MetadataValue.path(str(result.chunks_path)),
            "shared_output": dg.MetadataValue.path(str(result.shared_chunks_path)),
        },
    )
