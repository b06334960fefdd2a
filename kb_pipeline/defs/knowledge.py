"""The knowledge payloads in the asset graph (docs/knowledge.md, "In the asset graph"):

    parsed_document, page_layout → knowledge_payloads → glossary_table
                                                    └─→ review_queue_table

`knowledge_payloads` runs the extraction (`knowledge.payloads.payload_folder.write_knowledge`, as
`kb-pipeline extract` does: the deterministic readers, then the language model on the terms they
left open) on the document's latest artifact and writes the seven payloads to
data/knowledge/<doc_id>/, or records its failure there; its checks (knowledge/payloads/checks.py) re-read
what was written. Its code version is the extraction code's fingerprint plus the model's
identity, and its data version adds the artifact's identity, so an unchanged document under
unchanged code and model keeps its version (and its model answers come from the cache: 0 calls).
The two tables gather every document's rows, as quality_warnings_table does.
"""

import hashlib

import dagster as dg

from ..knowledge.model.model_steps import asked_steps
from ..knowledge.payloads.checks import link_problems, span_problems
from ..knowledge.payloads.contracts import GlossaryEntry, Payloads, Provenance, ReviewQueueRow
from ..knowledge.payloads.payload_folder import knowledge_summary, language_model, read_payloads, write_knowledge
from ..llm.endpoint import ModelEndpoint
from ..pipeline import ARTIFACT_NAME, identity, read_artifact, read_layout
from ..versions import KNOWLEDGE_VERSION
from . import tables
from .assets import OWNERS, corpus_table_asset, parsed_document
from .names import KNOWLEDGE_PAYLOADS
from .partitions import documents
from .resources import KnowledgeBase

GROUP = "knowledge"
# The Dagster pool of extraction steps, which may ask the language model: bounds the model calls
# made at once across runs (dagster.yaml's default limit, or the UI's Deployment → Concurrency).
LLM_POOL = "llm"
SPANS_VERBATIM = "spans_verbatim"
NO_DANGLING_LINKS = "no_dangling_links"
_PREVIEW_ENTRIES = 8
# How a failed extraction's reason begins (`kb-pipeline status` and `ingest` show it after the parse's outcome).
KNOWLEDGE_FAILED = "knowledge failed"


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
        }
        for e in payloads.glossary
    ]


def review_queue_rows(doc_id: str, payloads: Payloads) -> list[dict]:
    return [{"doc_id": doc_id, **row.model_dump()} for row in payloads.review_queue]


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
    """The extraction code's fingerprint and 12 hex of the model's identity and the steps it is
    asked in (KB_LLM_*), or "no-model" with `KB_LLM=off`."""
    if endpoint is None:
        return f"{KNOWLEDGE_VERSION}-no-model"
    asked = "|".join([endpoint.identity(), *sorted(asked_steps(endpoint))])
    model = hashlib.sha256(asked.encode()).hexdigest()[:12]
    return f"{KNOWLEDGE_VERSION}-{model}"


def _extract(context: dg.AssetExecutionContext, kb: KnowledgeBase) -> dg.MaterializeResult:
    doc_id = context.partition_key
    layout = kb.layout
    document = read_artifact(layout.parsed_dir(doc_id) / ARTIFACT_NAME)
    if document is None:
        raise dg.Failure(f"{doc_id}: parsed_document has no artifact on disk; re-materialise it", allow_retries=False)
    page_layout = read_layout(layout.parsed_dir(doc_id) / ARTIFACT_NAME, document)
    endpoint = kb.settings.llm
    folder = layout.within(layout.knowledge / doc_id)
    with language_model(endpoint, layout.model_answers) as model:
        outcome = write_knowledge(
            document, folder, model, versions=layout.document_versions(doc_id), layout=page_layout
        )
    if outcome.payloads is None:
        # Recorded in the folder; the artifact and the other documents are untouched.
        raise dg.Failure(
            f"{KNOWLEDGE_FAILED}: {outcome.reason}", metadata={"traceback": dg.MetadataValue.text(outcome.trace)}
        )
    payloads = outcome.payloads
    if outcome.warning:
        context.log.warning(outcome.warning)
    for table, rows, columns in (
        ("glossary", glossary_rows(doc_id, payloads), GLOSSARY_COLUMNS),
        ("review_queue", review_queue_rows(doc_id, payloads), REVIEW_QUEUE_COLUMNS),
    ):
        tables.write_parquet(tables.frame(rows, columns), layout.within(tables.part_path(layout, table, doc_id)))
    written = read_payloads(folder)
    code_version = context.assets_def.code_versions_by_key[context.asset_key]
    version = hashlib.sha256(f"{identity(document)}-{code_version}".encode()).hexdigest()[:16]
    calls = [u for u in payloads.calls if not u.simulated]
    return dg.MaterializeResult(
        data_version=dg.DataVersion(version),
        metadata={
            "summary": knowledge_summary(payloads),
            "entries": len(payloads.glossary),
            "formulas": len(payloads.formulas),
            "rules": len(payloads.interpretation_pack),
            "rejected": len(payloads.rejected),
            "review_rows": len(payloads.review_queue),
            "model": endpoint.deployment() if endpoint else "none (KB_LLM=off)",
            "model_calls": len(calls),
            "cached_answers": len(payloads.calls) - len(calls),
            "prompt_tokens": sum(u.prompt_tokens for u in calls),
            "cached_prompt_tokens": sum(u.cached_tokens for u in calls),
            "completion_tokens": sum(u.completion_tokens for u in calls),
            "model_seconds": dg.MetadataValue.float(round(float(sum(u.latency_s for u in calls)), 3)),
            "seconds": dg.MetadataValue.float(round(outcome.seconds, 4)),
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
        deps=[parsed_document],  # its step's two outputs: the artifact and its page layout
        description="This document's knowledge payloads (Output Contract v2, docs/knowledge.md): glossary, "
        "interpretation_pack, formulas, brief_context, review_queue, rejected and usage, as seven JSON files "
        "under data/knowledge/<doc_id>/. Deterministic readers first; the language model (KB_LLM_*) picks "
        "the definition of a term the layout leaves open; every quoted value span-checked.",
        kinds={"json", "pydantic"},
        owners=OWNERS,
        group_name=GROUP,
        pool=LLM_POOL,
        code_version=code_version,
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
