"""`document_chain_sensor`: a run that re-made a document's parse without the steps after it
(a materialisation of `mineru_raw_output` or `parsed_document` alone, from the UI or a backfill
of one asset) is followed by a run of the rest of that document's chain, so its warnings,
package and knowledge never describe an older parse.

A sensor rather than automation conditions on a document's steps: why, in docs/decisions.md,
"Parsing starts from the sensor".
"""

import dagster as dg

from .jobs import ingest_job
from .names import KB_PACKAGE, KNOWLEDGE_PAYLOADS, MINERU_RAW_OUTPUT, PAGE_LAYOUT, PARSED_DOCUMENT, QUALITY_WARNINGS

# The parse's steps, and every per-document step after them (ingest_documents's order).
PARSE_STEPS = {MINERU_RAW_OUTPUT, PARSED_DOCUMENT}
CHAIN_AFTER_RAW = (PARSED_DOCUMENT, PAGE_LAYOUT, QUALITY_WARNINGS, KB_PACKAGE, KNOWLEDGE_PAYLOADS)
CHAIN_TRIGGER = "document chain"


def rest_of_chain(made: dict[str, set[str]]) -> dict[str, list[str]]:
    """Per document whose parse a run re-made (`made`: each partition's assets it materialised),
    the steps after the parse the run did not make, in order; documents with none are left out."""
    rest = {}
    for partition, assets in made.items():
        if assets & PARSE_STEPS:
            missing = [asset for asset in CHAIN_AFTER_RAW if asset not in assets]
            if missing:
                rest[partition] = missing
    return rest


def materialised_by(instance: dg.DagsterInstance, run_id: str) -> dict[str, set[str]]:
    """Each partition's assets the run materialised."""
    made: dict[str, set[str]] = {}
    records = instance.get_records_for_run(run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION).records
    for record in records:
        event = record.event_log_entry.dagster_event
        if event is not None and event.asset_key is not None and event.partition is not None:
            made.setdefault(event.partition, set()).add(event.asset_key.to_user_string())
    return made


@dg.run_status_sensor(
    run_status=dg.DagsterRunStatus.SUCCESS,
    name="document_chain_sensor",
    request_job=ingest_job,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="After a run that re-made a document's parse alone, runs the rest of its chain (quality warnings, "
    "RAG package, knowledge) for that document.",
)
def document_chain_sensor(context: dg.RunStatusSensorContext):
    run = context.dagster_run
    for partition, missing in rest_of_chain(materialised_by(context.instance, run.run_id)).items():
        yield dg.RunRequest(
            run_key=f"{run.run_id}:{partition}",
            partition_key=partition,
            asset_selection=[dg.AssetKey(asset) for asset in missing],
            tags={"kb/trigger": CHAIN_TRIGGER, "kb/after_run": run.run_id},
        )
