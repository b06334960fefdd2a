"""`drop_folder_sensor`: new or changed PDFs in the drop folder become partitions and runs.

The folder logic lives in `kb_pipeline.drop_folder`; the sensor keeps its state in the cursor
(which survives restarts), adds partitions, records each file's content hash as the data
version of `source_pdf`, and requests one run per new or changed document with a run key
made of doc id, content hash and processing identity — so the same content under the same
config and code never runs twice. A file untouched for `KB_DROP_SETTLE_SECONDS` (2 s) is
finished; a younger one (perhaps still being written) is looked at again once it is that old,
within the same tick, and waits for a later tick if it changed meanwhile. A removed file is
logged and its artifacts are kept.
"""

import dataclasses
import time

import dagster as dg

from ..drop_folder import FolderState, largest_first, mark_requested, scan
from ..settings import Settings
from .dead_runs import end_dead_runs
from .history import DATA_VERSION_TAG, is_current
from .names import CONTENT_TAG, INGEST_JOB, SOURCE_PDF
from .partitions import DOCUMENTS, documents
from .resources import KnowledgeBase

# Dagster's sensor daemon looks at most every 5 s: a file too young to count as finished at the
# first look is looked at again within the tick once it is old enough, when that is sooner.
LOOK_AGAIN_WITHIN_SECONDS = 5.0


def drop_folder_tick(context: dg.SensorEvaluationContext, kb: KnowledgeBase, settle_seconds: float) -> dg.SensorResult:
    folder = kb.folder
    if not folder.is_dir():
        return dg.SensorResult(skip_reason=f"drop folder {folder} does not exist", cursor=context.cursor)
    state = FolderState.from_json(context.cursor)
    changes, new_state = scan(folder, state, kb.processing_identity, settle_seconds=settle_seconds)
    if changes.waiting and settle_seconds <= LOOK_AGAIN_WITHIN_SECONDS:
        youngest = max(source.mtime_ns for source in changes.waiting) / 1e9
        time.sleep(min(settle_seconds, max(0.0, youngest + settle_seconds - time.time())))
        # Against the state of the first look: what changed meanwhile waits for the next tick.
        again, new_state = scan(folder, new_state, kb.processing_identity, settle_seconds=settle_seconds)
        changes = dataclasses.replace(again, newly_skipped=changes.newly_skipped, removed=changes.removed)
    for path, reason in changes.newly_skipped:
        context.log.info(f"skipping {path.name}: {reason}")
    for name in changes.removed:
        context.log.info(f"{name} left the drop folder; its partition and artifacts are kept")
    for source in changes.waiting:
        context.log.info(f"{source.path.name} is still being written (or just arrived); next tick")

    known = set(context.instance.get_dynamic_partitions(DOCUMENTS))
    new_keys = sorted({r.source.doc_id for r in changes.ready} - known)
    # Already current (e.g. ingested by `kb-pipeline ingest` before the sensor first looked):
    # recorded, observed, but not run again.
    to_run = [
        r
        for r in changes.ready
        if r.source.doc_id not in known or not is_current(context.instance, kb, r.source.doc_id, r.content_hash)
    ]
    observations = [
        dg.AssetObservation(
            asset_key=SOURCE_PDF,
            partition=r.source.doc_id,
            tags={DATA_VERSION_TAG: r.content_hash},
            metadata={"path": dg.MetadataValue.path(str(r.source.path)), "size": r.source.size},
        )
        for r in changes.ready
    ]
    # The run queue launches in request order.
    runs = [
        dg.RunRequest(
            run_key=r.request_key,
            partition_key=r.source.doc_id,
            tags={"kb/source": r.source.path.name, CONTENT_TAG: r.content_hash[:16]},
        )
        for r in largest_first(to_run)
    ]
    mark_requested(new_state, changes.ready)
    summary = (
        f"{len(runs)} to ingest, {changes.unchanged + len(changes.ready) - len(runs)} unchanged, "
        f"{len(changes.waiting)} waiting, "
        f"{len(changes.removed)} removed"
    )
    context.log.info(summary)
    return dg.SensorResult(
        run_requests=runs,
        dynamic_partitions_requests=[documents.build_add_request(new_keys)] if new_keys else [],
        asset_events=observations,
        cursor=new_state.to_json(),
        skip_reason=None if runs else summary,
    )


def dead_run_tick(context: dg.SensorEvaluationContext, never_started_seconds: float) -> dg.SkipReason:
    statuses = [dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.CANCELING]
    # A launcher that can tell whether a run's worker lives (this project's) leaves STARTED runs to
    # Dagster's run monitoring; under any other launcher this sensor judges them itself.
    launcher = context.instance.run_launcher
    monitored = context.instance.run_monitoring_enabled and launcher.supports_check_run_worker_health
    if not monitored:
        statuses.append(dg.DagsterRunStatus.STARTED)
    ended = end_dead_runs(context.instance, statuses, never_started_seconds=never_started_seconds)
    for run_id, reason in ended:
        context.log.warning(f"run {run_id} ended: {reason}")
    return dg.SkipReason(f"ended {len(ended)} dead runs" if ended else "no dead runs")


def build_sensors(settings: Settings) -> list[dg.SensorDefinition]:
    """The two sensors, ticking at the deployment's intervals (`Settings`)."""

    @dg.sensor(
        name="drop_folder_sensor",
        job_name=INGEST_JOB,
        minimum_interval_seconds=settings.sensor_interval_seconds,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description="Watches the drop folder (KB_DROP_FOLDER, default data/knowledge_docs) for new or changed PDFs.",
    )
    def drop_folder_sensor(context: dg.SensorEvaluationContext, kb: KnowledgeBase) -> dg.SensorResult:
        return drop_folder_tick(context, kb, settings.drop_settle_seconds)

    @dg.sensor(
        name="dead_run_sensor",
        minimum_interval_seconds=settings.dead_run_interval_seconds,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description="Ends runs whose worker process died (killed, out of memory, the whole stack stopped): STARTING "
        "and CANCELING runs, which run monitoring only times out, and STARTED runs when the instance's "
        "run launcher cannot check its workers. Frees their pool slots; run retries re-launch them.",
    )
    def dead_run_sensor(context: dg.SensorEvaluationContext) -> dg.SkipReason:
        return dead_run_tick(context, settings.never_started_seconds)

    return [drop_folder_sensor, dead_run_sensor]


# The corpus-wide tables and exports follow the documents on their own (their automation
# conditions); this sensor evaluates those conditions and is on by default. A document's own
# steps have none (document_chain.py).
automation_sensor = dg.AutomationConditionSensorDefinition(
    "kb_automation",
    target=dg.AssetSelection.all(),
    default_status=dg.DefaultSensorStatus.RUNNING,
    minimum_interval_seconds=30,
)
