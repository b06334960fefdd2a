"""Jobs: one document through the graph (what the sensor and `kb-pipeline ingest` run), its
knowledge step alone, and the corpus-wide tables and exports."""

import dagster as dg

from .names import (
    ACTIVE_KNOWLEDGE,
    GLOSSARY_SKOS,
    GLOSSARY_TABLE,
    GLOSSARY_TBX,
    INGEST_JOB,
    KB_PACKAGE,
    KNOWLEDGE_JOB,
    KNOWLEDGE_PAYLOADS,
    MINERU_RAW_OUTPUT,
    PAGE_LAYOUT,
    PARSED_DOCUMENT,
    QUALITY_WARNINGS,
    QUALITY_WARNINGS_TABLE,
    REVIEW_QUEUE_TABLE,
    TABLES_JOB,
)

ingest_job = dg.define_asset_job(
    INGEST_JOB,
    selection=dg.AssetSelection.assets(
        MINERU_RAW_OUTPUT, PARSED_DOCUMENT, PAGE_LAYOUT, QUALITY_WARNINGS, KB_PACKAGE, KNOWLEDGE_PAYLOADS
    ),
    description="Parse, normalise, check, package and extract the knowledge of one document (one partition).",
    # The five steps form a chain; running them in the run's own process saves four process
    # start-ups (~3 s each, importing Dagster and MinerU) per document. The `mineru` pool still
    # limits parses across runs.
    executor_def=dg.in_process_executor,
    # A run whose worker died (killed, out of memory, the stack stopped) is retried up to twice by
    # the daemon (`run_retries` in dagster.yaml), from the step that did not finish; a step that
    # failed — a bad document's DocumentError — is not (`retry_on_asset_or_op_failure: false`).
    tags={"dagster/max_retries": "2"},
)

knowledge_job = dg.define_asset_job(
    KNOWLEDGE_JOB,
    selection=dg.AssetSelection.assets(KNOWLEDGE_PAYLOADS),
    description="Extract the knowledge of one document whose artifact is current (one partition): a model "
    "outage fails this step, not the parse, and a re-run retries only it.",
    executor_def=dg.in_process_executor,
    # A run whose worker died is retried, as the whole document's is; a failed step is not.
    tags={"dagster/max_retries": "2"},
)

tables_job = dg.define_asset_job(
    TABLES_JOB,
    # The knowledge exports too: left out, automation would run them after every `ingest`.
    selection=dg.AssetSelection.assets(
        QUALITY_WARNINGS_TABLE, GLOSSARY_TABLE, REVIEW_QUEUE_TABLE, ACTIVE_KNOWLEDGE, GLOSSARY_TBX, GLOSSARY_SKOS
    ),
    description="Rebuild the corpus-wide tables (quality warnings, glossary, review queue) and the knowledge "
    "exports (active knowledge, TBX, SKOS).",
)
