"""The knowledge payloads in the asset graph (docs/knowledge.md, "In the asset graph"):

    parsed_document → knowledge_payloads → glossary_table
                                       └─→ review_queue_table

`knowledge_payloads` runs the extraction (`knowledge.extract.extract_document`: the
deterministic readers, then the language model on the terms they left open) on the document's
latest artifact and writes the seven payloads to data/knowledge/<doc_id>/; its checks re-read
what was written. Its code version is the extraction code's fingerprint plus the model's
identity, and its data version adds the artifact's identity, so an unchanged document under
unchanged code and model keeps its version (and its model answers come from the cache: 0 calls).
The two tables gather every document's rows, as quality_warnings_table does.
"""

import hashlib
import json
import time
from contextlib import nullcontext
from pathlib import Path

import dagster as dg

from ..contracts import ParsedDocument
from ..knowledge.contracts import GlossaryEntry, Payloads, Provenance, ReviewQueueRow
from ..knowledge.diff import apply_diff
from ..knowledge.extract import extract_document
from ..knowledge.spans import locate
from ..llm.endpoint import ModelEndpoint
from ..llm.model import LanguageModel, ModelFailed, ResponseCache
from ..pipeline import ARTIFACT_NAME, identity, read_artifact
from ..versions import KNOWLEDGE_VERSION
from . import tables
from .assets import OWNERS, corpus_table_asset, parsed_document
from .names import KNOWLEDGE_PAYLOADS
from .partitions import documents
from .resources import KnowledgeBase, ReviewDatabase

GROUP = "knowledge"
# The Dagster pool of extraction steps, which may ask the language model: bounds the model calls
# made at once across runs (dagster.yaml's default limit, or the UI's Deployment → Concurrency).
LLM_POOL = "llm"
SPANS_VERBATIM = "spans_verbatim"
NO_DANGLING_LINKS = "no_dangling_links"
_PREVIEW_ENTRIES = 8


# The tables' columns: a glossary entry flattened (its provenance's page, section and span
# beside its own fields), and a review-queue row; each with the document it came from first.
GLOSSARY_COLUMNS = {
    "doc_id": "string",
    **{
        name: tables.dtype(GlossaryEntry.model_fields[name].annotation)
        for name in ("term_id", "term", "full_name", "definition", "source_wording", "mention_count")
    },
    **{name: tables.dtype(Provenance.model_fields[name].annotation) for name in ("page", "section_no", "span")},
    "extraction_status": "string",
    "diff_status": "string",
}
REVIEW_QUEUE_COLUMNS = {
    "doc_id": "string",
    **{name: tables.dtype(field.annotation) for name, field in ReviewQueueRow.model_fields.items()},
}


def glossary_rows(doc_id: str, payloads: Payloads) -> list[dict]:
    return [
        {
            "doc_id": doc_id,
            **e.model_dump(include={"term_id", "term", "full_name", "definition", "source_wording", "mention_count"}),
            **e.provenance.model_dump(include={"page", "section_no", "span"}),
            "extraction_status": e.extraction_status,
            "diff_status": e.diff_status,
        }
        for e in payloads.glossary
    ]


def review_queue_rows(doc_id: str, payloads: Payloads) -> list[dict]:
    return [{"doc_id": doc_id, **row.model_dump()} for row in payloads.review_queue]


def read_payloads(folder: Path) -> Payloads:
    """The seven payload files of a folder, as written."""
    return Payloads.model_validate(
        {name: json.loads((folder / f"{name}.json").read_text(encoding="utf-8")) for name in Payloads.model_fields}
    )


def span_problems(document: ParsedDocument, payloads: Payloads) -> list[str]:
    """Every quoted value that is not found in the chunk its provenance names (the span check's
    own `locate`, so the same layout differences are allowed); a full name, whose own chunk is
    not recorded, in any chunk of the document."""
    chunks = {chunk.chunk_id: chunk for chunk in document.chunks}
    quoted: list[tuple[str, str, Provenance, str | None]] = []
    for e in payloads.glossary:
        quoted += [
            (e.term_id, field, e.provenance, value)
            for field, value in (
                ("provenance.span", e.provenance.span),
                ("definition", e.definition),
                ("full_name", e.full_name),
            )
        ]
    quoted += [(r.rule_id, "provenance.span", r.provenance, r.provenance.span) for r in payloads.interpretation_pack]
    quoted += [(f.formula_id, "provenance.span", f.provenance, f.provenance.span) for f in payloads.formulas]
    brief = payloads.brief_context
    quoted += [(brief.brief_id, "provenance.span", brief.provenance, brief.provenance.span or None)]
    quoted += [(brief.brief_id, "purpose", brief.provenance, brief.purpose)]
    problems = []
    for owner, field, origin, value in quoted:
        if value is None:
            continue
        chunk = chunks.get(origin.chunk_id or "")
        if chunk is None:
            problems.append(f"{owner}.{field}: its chunk {origin.chunk_id!r} is not in the document")
        elif locate(value, chunk) is not None:
            continue
        # An entry records one chunk, its span's; a full name read from an abbreviation list
        # elsewhere (WHO HCV guideline, NIST HPC standard) was span-checked in its own chunk,
        # which the contract does not record: it must be verbatim in some chunk of the document.
        elif not (field == "full_name" and any(locate(value, c) is not None for c in document.chunks)):
            problems.append(f"{owner}.{field}: not found in {chunk.chunk_id}: {value[:80]!r}")
    return problems


def link_problems(payloads: Payloads) -> list[str]:
    """Every id a payload refers to that no payload defines."""
    terms = {e.term_id for e in payloads.glossary}
    formulas = {f.formula_id for f in payloads.formulas}
    problems = [
        f"{e.term_id}.defining_formula_id → {e.defining_formula_id}"
        for e in payloads.glossary
        if e.defining_formula_id and e.defining_formula_id not in formulas
    ]
    problems += [
        f"{f.formula_id}.variables[{v.symbol}].term_id → {v.term_id}"
        for f in payloads.formulas
        for v in f.variables
        if v.term_id and v.term_id not in terms
    ]
    for r in payloads.interpretation_pack:
        problems += [f"{r.rule_id}.term_ids → {t}" for t in r.term_ids if t not in terms]
        problems += [f"{r.rule_id}.formula_ids → {f}" for f in r.formula_ids if f not in formulas]
    problems += [
        f"review_queue[{row.rank}].term_id → {row.term_id}" for row in payloads.review_queue if row.term_id not in terms
    ]
    return problems


def _check(name: str, problems: list[str], what: str) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(
        check_name=name,
        passed=not problems,
        severity=dg.AssetCheckSeverity.ERROR,
        description=f"{len(problems)} {what}" if problems else f"no {what}",
        metadata={
            "problems": len(problems),
            "first_problems": dg.MetadataValue.md("\n".join(f"- {p}" for p in problems[:10]) or "none"),
        },
    )


def _preview(payloads: Payloads) -> str:
    if not payloads.glossary:
        return "no glossary entries"
    lines = ["| term | full name | definition | page |", "|---|---|---|---|"]
    for e in payloads.glossary[:_PREVIEW_ENTRIES]:
        cells = [
            e.term,
            e.full_name or "",
            (e.definition or "")[:120],
            "" if e.provenance.page is None else str(e.provenance.page + 1),
        ]
        lines.append("| " + " | ".join(" ".join(c.split()).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def knowledge_code_version(endpoint: ModelEndpoint | None) -> str:
    """The extraction code's fingerprint and 12 hex of the model's identity (KB_LLM_*), or
    "no-model" with `KB_LLM=off`."""
    model = hashlib.sha256(endpoint.identity().encode()).hexdigest()[:12] if endpoint else "no-model"
    return f"{KNOWLEDGE_VERSION}-{model}"


def _extract(
    context: dg.AssetExecutionContext, kb: KnowledgeBase, review_db: dg.ResourceParam[ReviewDatabase]
) -> dg.MaterializeResult:
    doc_id = context.partition_key
    layout = kb.layout
    document = read_artifact(layout.parsed_dir(doc_id) / ARTIFACT_NAME)
    if document is None:
        raise dg.Failure(f"{doc_id}: parsed_document has no artifact on disk; re-materialise it", allow_retries=False)
    endpoint = kb.model_endpoint
    started = time.perf_counter()
    model = LanguageModel(endpoint, ResponseCache(layout.model_answers)) if endpoint else nullcontext(None)
    try:
        with model as asking:
            payloads = extract_document(document, model=asking)  # a document without text gives empty payloads
    except ModelFailed as exc:
        # The endpoint, not the document: nothing is written, the artifact and other documents are untouched.
        raise dg.Failure(f"{doc_id}: knowledge extraction needs the language model — {exc}") from exc
    payloads = apply_diff(payloads, review_db.approved(layout))  # diff_status against the approved entries
    seconds = time.perf_counter() - started
    folder = layout.within(layout.knowledge / doc_id)
    payloads.write(folder)
    for table, rows, columns in (
        ("glossary", glossary_rows(doc_id, payloads), GLOSSARY_COLUMNS),
        ("review_queue", review_queue_rows(doc_id, payloads), REVIEW_QUEUE_COLUMNS),
    ):
        tables.write_parquet(tables.frame(rows, columns), kb.layout.within(tables.part_path(kb.layout, table, doc_id)))
    written = read_payloads(folder)
    code_version = context.assets_def.code_versions_by_key[context.asset_key]
    version = hashlib.sha256(f"{identity(document)}-{code_version}".encode()).hexdigest()[:16]
    calls = [u for u in payloads.usage if not u.simulated]
    return dg.MaterializeResult(
        data_version=dg.DataVersion(version),
        metadata={
            "entries": len(payloads.glossary),
            "formulas": len(payloads.formulas),
            "rules": len(payloads.interpretation_pack),
            "rejected": len(payloads.rejected),
            "review_rows": len(payloads.review_queue),
            "model": endpoint.deployment() if endpoint else "none (KB_LLM=off)",
            "model_calls": len(calls),
            "cached_answers": len(payloads.usage) - len(calls),
            "prompt_tokens": sum(u.prompt_tokens for u in calls),
            "cached_prompt_tokens": sum(u.cached_tokens for u in calls),
            "completion_tokens": sum(u.completion_tokens for u in calls),
            "model_seconds": dg.MetadataValue.float(round(float(sum(u.latency_s for u in calls)), 3)),
            "seconds": dg.MetadataValue.float(round(seconds, 4)),
            "knowledge_version": KNOWLEDGE_VERSION,
            "folder": dg.MetadataValue.path(str(folder)),
            "preview": dg.MetadataValue.md(_preview(payloads)),
        },
        check_results=[
            _check(SPANS_VERBATIM, span_problems(document, written), "values not verbatim in their chunk"),
            _check(NO_DANGLING_LINKS, link_problems(written), "dangling links"),
        ],
    )


def knowledge_payloads_asset(code_version: str) -> dg.AssetsDefinition:
    """`knowledge_payloads`, built with the definitions (`definitions.build_definitions`): its code
    version is the extraction code's fingerprint plus the model's, so a changed prompt, reader or
    model shows every partition unsynced before anything re-runs."""
    return dg.asset(
        name=KNOWLEDGE_PAYLOADS,
        partitions_def=documents,
        deps=[parsed_document],
        description="This document's knowledge payloads (Output Contract v2, docs/knowledge.md): glossary, "
        "interpretation_pack, formulas, brief_context, review_queue, rejected and usage, as seven JSON files "
        "under data/knowledge/<doc_id>/. Deterministic readers first; the language model (KB_LLM_*) picks "
        "the definition of a term the layout leaves open; every quoted value span-checked.",
        kinds={"json", "pydantic"},
        owners=OWNERS,
        group_name=GROUP,
        pool=LLM_POOL,
        code_version=code_version,
        automation_condition=dg.AutomationCondition.eager(),
        check_specs=[
            dg.AssetCheckSpec(
                SPANS_VERBATIM,
                asset=KNOWLEDGE_PAYLOADS,
                description="Every provenance span, definition and full name written is found in the chunk it names.",
            ),
            dg.AssetCheckSpec(
                NO_DANGLING_LINKS,
                asset=KNOWLEDGE_PAYLOADS,
                description="Every term, formula and rule id a payload refers to is one the payloads define.",
            ),
        ],
    )(_extract)


glossary_table = corpus_table_asset(
    "glossary", KNOWLEDGE_PAYLOADS, GLOSSARY_COLUMNS, "extraction_status", "by_status", GROUP
)
review_queue_table = corpus_table_asset(
    "review_queue", KNOWLEDGE_PAYLOADS, REVIEW_QUEUE_COLUMNS, "review_reason", "by_reason", GROUP
)
