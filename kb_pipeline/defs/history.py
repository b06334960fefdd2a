"""What the instance knows about a document: its latest materialisations, whether its artifact
(and, apart, its knowledge) is current for given content under the present config and code, and
why a run failed."""

import dagster as dg

from ..parsing.mineru_adapter import mineru_version
from ..pipeline import ARTIFACT_NAME, artifact_key
from .dead_runs import WORKER_DIED, event_message
from .names import KB_PACKAGE, KNOWLEDGE_PAYLOADS, PARSED_DOCUMENT, QUALITY_WARNINGS, SOURCE_PDF
from .resources import KnowledgeBase

# The tag under which Dagster records an observation's or materialisation's data version.
DATA_VERSION_TAG = "dagster/data_version"
PARSED = dg.AssetKey(PARSED_DOCUMENT)
KNOWLEDGE = dg.AssetKey(KNOWLEDGE_PAYLOADS)
_PARSE_FOLLOWERS = (dg.AssetKey(QUALITY_WARNINGS), dg.AssetKey(KB_PACKAGE))


def latest_materialization(instance: dg.DagsterInstance, key: dg.AssetKey, partition: str) -> dg.EventLogRecord | None:
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=key, asset_partitions=[partition]), limit=1
    ).records
    return records[0] if records else None


def metadata_values(record: dg.EventLogRecord | None) -> dict:
    if record is None or record.asset_materialization is None:
        return {}
    return {k: v.value for k, v in record.asset_materialization.metadata.items()}


def parsed_metadata(instance: dg.DagsterInstance, doc_id: str) -> dict:
    """The latest artifact's metadata: version, pages, chunks, warnings, …"""
    return metadata_values(latest_materialization(instance, PARSED, doc_id))


def knowledge_of(instance: dg.DagsterInstance, doc_id: str) -> str:
    """What the document's latest knowledge payloads hold (terms, rules, formulas, model calls)."""
    return str(metadata_values(latest_materialization(instance, KNOWLEDGE, doc_id)).get("summary", ""))


def observe_source(instance: dg.DagsterInstance, doc_id: str, content_hash: str) -> None:
    """Record the file's content hash as source_pdf's data version, as the sensor does."""
    instance.report_runless_asset_event(
        dg.AssetObservation(asset_key=SOURCE_PDF, partition=doc_id, tags={DATA_VERSION_TAG: content_hash})
    )


def is_parsed(instance: dg.DagsterInstance, kb: KnowledgeBase, doc_id: str, content_hash: str) -> bool:
    """Whether this document's artifact, warnings and package are up to date for this content
    under the present config and code — in the instance's history and on disk (a wiped or moved
    data root must not pass for current)."""
    parsed = _current_parse(instance, kb, doc_id, content_hash)
    return parsed is not None and all(_newer(instance, key, doc_id, parsed) for key in _PARSE_FOLLOWERS)


def is_current(instance: dg.DagsterInstance, kb: KnowledgeBase, doc_id: str, content_hash: str) -> bool:
    """`is_parsed`, and its knowledge payloads extracted from that artifact too."""
    parsed = _current_parse(instance, kb, doc_id, content_hash)
    return parsed is not None and all(_newer(instance, key, doc_id, parsed) for key in (*_PARSE_FOLLOWERS, KNOWLEDGE))


def _current_parse(
    instance: dg.DagsterInstance, kb: KnowledgeBase, doc_id: str, content_hash: str
) -> dg.EventLogRecord | None:
    if not (kb.layout.parsed_dir(doc_id) / ARTIFACT_NAME).is_file():
        return None
    parsed = latest_materialization(instance, PARSED, doc_id)
    expected = artifact_key(content_hash, kb.parser_config.fingerprint, mineru_version())
    if parsed is None or parsed.asset_materialization is None:
        return None
    return parsed if (parsed.asset_materialization.tags or {}).get(DATA_VERSION_TAG) == expected else None


def _newer(instance: dg.DagsterInstance, key: dg.AssetKey, doc_id: str, parsed: dg.EventLogRecord) -> bool:
    follower = latest_materialization(instance, key, doc_id)
    return follower is not None and follower.storage_id > parsed.storage_id


def knowledge_failure(instance: dg.DagsterInstance, run: dg.DagsterRun) -> str | None:
    """Why the knowledge step failed when it is the only step of the run that did (its parse
    succeeded, or was current already), else None: the model's outage is not the parse's."""
    failed = [r.dagster_event for r in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.STEP_FAILURE)]
    if not failed or any(event is None or event.step_key != KNOWLEDGE_PAYLOADS for event in failed):
        return None
    return step_failure_reason(failed[0]) or f"{KNOWLEDGE_PAYLOADS} failed"


def step_failure_reason(event: dg.DagsterEvent | None) -> str | None:
    """Why a step failed, whole: a bad document's reason as the asset raised it (`dg.Failure`),
    else the error's message. `kb-pipeline ingest` prints it whole; status shows its first line."""
    data = event.step_failure_data if event is not None and event.is_step_failure else None
    if data is None:
        return None
    if data.user_failure_data and data.user_failure_data.description:
        return data.user_failure_data.description
    return data.error.message.strip() if data.error else None


_FAILURE_REASON = "dagster/failure_reason"


def failure_reason(instance: dg.DagsterInstance, run: dg.DagsterRun, whole: bool = False) -> str:
    """Why a run failed: its first failed step's reason (its first line unless `whole`)."""
    for record in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.STEP_FAILURE):
        reason = step_failure_reason(record.dagster_event)
        if reason:
            return reason if whole else reason.splitlines()[0]
    return f"run {run.run_id[:8]} {run.status.value.lower()}"


def crash_reason(instance: dg.DagsterInstance, run: dg.DagsterRun) -> str | None:
    """Why a run ended without any step failing — its worker died — or None if a step failed."""
    if run.tags.get(_FAILURE_REASON) in (
        "STEP_FAILURE",
        "RUN_EXCEPTION",
        "JOB_INITIALIZATION_FAILURE",
    ) or instance.all_logs(run.run_id, of_type=dg.DagsterEventType.STEP_FAILURE):
        return None
    messages = [
        event_message(e)
        for e in instance.all_logs(
            run.run_id, of_type={dg.DagsterEventType.RUN_FAILURE, dg.DagsterEventType.ENGINE_EVENT}
        )
    ]
    for message in reversed(messages):
        if WORKER_DIED in message:
            return message[message.index(WORKER_DIED) :].splitlines()[0]
    for message in reversed(messages):  # Dagster's code server saw its child die
        if "terminated by signal" in message or "unexpectedly" in message:
            return f"{WORKER_DIED}: {message.splitlines()[0]}"
    if run.status == dg.DagsterRunStatus.CANCELED:
        return None
    return f"{WORKER_DIED} (run {run.run_id[:8]} {run.status.value.lower()} without a step failing)"
