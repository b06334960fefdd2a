"""Jobs: one document through the graph (what the sensor and `kb-pipeline ingest` run), and the
corpus-wide warnings table."""

import dagster as dg

from .names import (
    INGEST_JOB,
    KB_PACKAGE,
    MINERU_RAW_OUTPUT,
    PARSED_DOCUMENT,
    QUALITY_WARNINGS,
    QUALITY_WARNINGS_TABLE,
    WARNINGS_TABLE_JOB,
)

ingest_job = dg.define_asset_job(
    INGEST_JOB,
    selection=dg.AssetSelection.assets(MINERU_RAW_OUTPUT, PARSED_DOCUMENT, QUALITY_WARNINGS, KB_PACKAGE),
    description="Parse, normalise, check and package one document (one partition).",
    # The four steps form a chain; running them in the run's own process saves three process
    # start-ups (~3 s each, importing Dagster and MinerU) per document. The `mineru` pool still
    # limits parses across runs.
    executor_def=dg.in_process_executor,
    # A run whose worker died (killed, out of memory, the stack stopped) is retried up to twice by
    # the daemon (`run_retries` in dagster.yaml), from the step that did not finish; a step that
    # failed — a bad document's DocumentError — is not (`retry_on_asset_or_op_failure: false`).
    tags={"dagster/max_retries": "2"},
)

warnings_table_job = dg.define_asset_job(
    WARNINGS_TABLE_JOB,
    selection=dg.AssetSelection.assets(QUALITY_WARNINGS_TABLE),
    description="Rebuild the corpus-wide quality warnings table.",
)
