"""The code location as Dagster loads it (`dg` layout): the names other code uses are real."""

from __future__ import annotations

from kb_pipeline.definitions import definitions_for
from kb_pipeline.defs import names
from kb_pipeline.defs.knowledge import NO_DANGLING_LINKS, SPANS_VERBATIM
from kb_pipeline.quality.artifact_checks import ARTIFACT_CHECKS
from kb_pipeline.settings import Settings


def test_names_and_checks_match_the_loaded_definitions():
    defs = definitions_for(Settings.from_env())
    keys = {key.to_user_string() for key in defs.resolve_all_asset_keys()}
    assert keys == {
        names.SOURCE_PDF,
        names.MINERU_RAW_OUTPUT,
        names.PARSED_DOCUMENT,
        names.PAGE_LAYOUT,
        names.QUALITY_WARNINGS,
        names.QUALITY_WARNINGS_TABLE,
        names.KB_PACKAGE,
        names.KNOWLEDGE_PAYLOADS,
        names.GLOSSARY_TABLE,
        names.REVIEW_QUEUE_TABLE,
        names.REVIEW_DECISIONS,
        names.ACTIVE_KNOWLEDGE,
        names.GLOSSARY_TBX,
        names.GLOSSARY_SKOS,
    }
    assert all(defs.resolve_job_def(job) for job in (names.INGEST_JOB, names.KNOWLEDGE_JOB, names.TABLES_JOB))
    checks = {key.name for key in defs.resolve_asset_graph().asset_check_keys}
    assert checks == {check.name for check in ARTIFACT_CHECKS} | {SPANS_VERBATIM, NO_DANGLING_LINKS}
    assert {s.name for s in defs.sensors} == {
        "drop_folder_sensor",
        "dead_run_sensor",
        "kb_automation",
        "review_decisions_sensor",
        "document_chain_sensor",
    }
