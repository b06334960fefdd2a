"""`kb-pipeline ingest`: a folder through the asset graph against the Dagster instance, without a daemon.

The same partitions, assets, checks and run history as the UI and the sensor — one run per
document, with a progress line per document. A document whose artifact is already current (same
content, parser config, MinerU and normaliser) is not run at all.

With `workers` > 1 (the command passes `KB_PARSE_WORKERS`, default one per core) the runs go
to as many long-lived ingest worker processes, each with the definitions loaded, the instance
open and MinerU warm, taking the next document as they finish one: no run pays Dagster's or
MinerU's start-up, and a long document holds up only its own worker. Processes, not threads:
Dagster re-runs `logging.config.dictConfig` whenever a run starts, which deadlocks against a run
logging in another thread of the same process, and half of a run's cost is Python holding the
GIL. When a worker dies (killed, out of memory), the documents it took down are run again, each
in a worker of its own, so only a document whose own worker died fails; the dead runs are ended
as any dead run is (`run_workers`).
"""

import multiprocessing
import sys
import time
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import dagster as dg

from ..defs.names import INGEST_JOB, WARNINGS_TABLE_JOB
from ..defs.partitions import DOCUMENTS
from ..defs.resources import KnowledgeBase
from ..defs.sensors import CONTENT_TAG
from ..drop_folder import FolderState, Ready, largest_first, scan
from ..settings import Settings
from .history import PARSED, is_current, latest_materialization, metadata_values, observe_source, step_failure_reason
from .run_workers import end_dead_runs, worker_tags

# Step-by-step engine events stay in the instance (the UI shows them); the terminal gets one
# line per document.
QUIET = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}


@dataclass
class Outcome:
    doc_id: str
    name: str
    status: str  # "ingested" | "unchanged" | "failed"
    seconds: float
    metadata: dict
    reason: str = ""


INGEST_TRIGGER = "kb-pipeline ingest"


def release_abandoned_runs(instance: dg.DagsterInstance, never_started_seconds: float) -> list[str]:
    """End the runs of this instance whose worker is dead — this command's own earlier runs
    killed with SIGKILL as much as daemon-launched runs left behind by a stopped `make ui` — and
    free their pool slots (`run_workers.end_dead_runs`). Without it, after as many such crashes
    as the `mineru` pool allows, every later parse would wait for ever."""
    return [run_id for run_id, _reason in end_dead_runs(instance, never_started_seconds=never_started_seconds)]


def _failure_reason(result: dg.ExecuteInProcessResult) -> str:
    reasons = (step_failure_reason(event) for event in result.all_events if event.is_step_failure)
    return next((reason for reason in reasons if reason), "run failed")


def _run_document(job: dg.JobDefinition, instance: dg.DagsterInstance, item: Ready) -> Outcome:
    doc_id, name = item.source.doc_id, item.source.path.name
    started = time.perf_counter()
    observe_source(instance, doc_id, item.content_hash)
    result = job.execute_in_process(
        run_config=QUIET,
        partition_key=doc_id,
        instance=instance,
        raise_on_error=False,
        tags={
            "kb/source": name,
            CONTENT_TAG: item.content_hash[:16],
            "kb/trigger": INGEST_TRIGGER,
            **worker_tags(),
            # This command re-runs a failed document itself.
            "dagster/max_retries": "0",
        },
    )
    seconds = time.perf_counter() - started
    if result.success:
        return Outcome(
            doc_id, name, "ingested", seconds, metadata_values(latest_materialization(instance, PARSED, doc_id))
        )
    return Outcome(doc_id, name, "failed", seconds, {}, _failure_reason(result))


# One ingest worker process's state, set up once by `_start_worker`.
_worker: tuple[dg.Definitions, dg.DagsterInstance] | None = None


def _start_worker(instance_ref, kb_fields: dict, settings: Settings) -> None:
    global _worker
    from ..definitions import build_definitions

    _worker = build_definitions(KnowledgeBase(**kb_fields), settings), dg.DagsterInstance.from_ref(instance_ref)


def _run_in_worker(item: Ready) -> Outcome:
    assert _worker is not None, "not an ingest worker"
    defs, instance = _worker
    return _run_document(defs.resolve_job_def(INGEST_JOB), instance, item)


def _refresh_table(defs: dg.Definitions, instance: dg.DagsterInstance) -> None:
    defs.resolve_job_def(WARNINGS_TABLE_JOB).execute_in_process(
        run_config=QUIET, instance=instance, raise_on_error=False
    )


def _refresh_table_in_worker() -> None:
    assert _worker is not None, "not an ingest worker"
    _refresh_table(*_worker)


WORKER_DIED = "its ingest worker process ended while running it alone (killed, out of memory, or it could not start)"


def _run_in_workers(
    kb: KnowledgeBase,
    instance: dg.DagsterInstance,
    settings: Settings,
    items: list[Ready],
    workers: int,
    done: Callable[[Ready, Outcome], None],
) -> bool:
    """`items` through `workers` ingest worker processes, largest file first (so the last one
    to finish is a short one); `done` is called as each ends, then the warnings table is
    refreshed if a document was ingested. When a worker dies, every document it took down with
    it (those running and those queued) is run again alone, in a worker of its own: a document
    fails with `WORKER_DIED` only when its own worker died. Returns whether the table was
    refreshed here (not after a worker died)."""
    ctx = multiprocessing.get_context("spawn")  # MinerU's render workers need spawn

    def pool(n: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            n, ctx, initializer=_start_worker, initargs=(instance.get_ref(), kb.model_dump(), settings)
        )

    again: list[Ready] = []
    ingested = False
    with pool(workers) as first:
        running: dict[Future, Ready] = {first.submit(_run_in_worker, item): item for item in largest_first(items)}
        for future in as_completed(running):
            try:
                outcome = future.result()
            except BrokenProcessPool:
                again.append(running[future])
                continue
            ingested |= outcome.status == "ingested"
            done(running[future], outcome)
        if not again:
            if ingested:
                first.submit(_refresh_table_in_worker).result()
            return True
    for item in again:
        # The runs of a dead worker stay STARTED, holding their `mineru` slots, until ended.
        release_abandoned_runs(instance, settings.never_started_seconds)
        with pool(1) as alone:
            try:
                outcome = alone.submit(_run_in_worker, item).result()
            except BrokenProcessPool:
                outcome = Outcome(item.source.doc_id, item.source.path.name, "failed", 0.0, {}, WORKER_DIED)
        done(item, outcome)
    release_abandoned_runs(instance, settings.never_started_seconds)
    return False


def ingest_folder(
    kb: KnowledgeBase,
    instance: dg.DagsterInstance,
    progress=None,
    settings: Settings | None = None,
    workers: int = 1,
) -> list[Outcome]:
    """Every new or changed PDF of the folder through `ingest_documents`, one run per document;
    `workers` > 1 runs them in as many ingest worker processes (a persistent instance only: an
    ephemeral one lives in this process). One outcome per PDF, in folder order."""
    from ..definitions import build_definitions

    progress = progress or sys.stderr
    settings = settings or Settings.from_env()
    for run_id in release_abandoned_runs(instance, settings.never_started_seconds):
        print(f"released run {run_id[:8]}: its worker process was gone", file=progress)
    changes, _state = scan(kb.folder, FolderState(), kb.processing_identity, require_stable=False)
    for path, reason in changes.newly_skipped:
        print(f"skipping {path.name}: {reason}", file=progress)
    ready = changes.ready
    new_keys = sorted({r.source.doc_id for r in ready} - set(instance.get_dynamic_partitions(DOCUMENTS)))
    if new_keys:
        instance.add_dynamic_partitions(DOCUMENTS, new_keys)
    labels = {item.source.doc_id: f"[{n}/{len(ready)}] {item.source.path.name}" for n, item in enumerate(ready, 1)}
    outcomes: dict[str, Outcome] = {}

    def done(item: Ready, outcome: Outcome) -> None:
        outcomes[item.source.doc_id] = outcome
        label, meta = labels[item.source.doc_id], outcome.metadata
        if outcome.status == "ingested":
            line = f"ingested: {meta.get('chunks')} chunks, {meta.get('warnings')} warnings, {outcome.seconds:.1f} s"
        else:
            line = outcome.status if outcome.status == "unchanged" else f"FAILED {outcome.reason}"
        print(f"{label} {line}", file=progress, flush=True)

    to_run = []
    for item in ready:
        started = time.perf_counter()
        if is_current(instance, kb, item.source.doc_id, item.content_hash):
            meta = metadata_values(latest_materialization(instance, PARSED, item.source.doc_id))
            done(
                item,
                Outcome(item.source.doc_id, item.source.path.name, "unchanged", time.perf_counter() - started, meta),
            )
        else:
            to_run.append(item)
    workers = min(workers, len(to_run)) if instance.is_persistent else 1
    refreshed = False
    if workers > 1:
        print(f"{len(to_run)} documents to run, {workers} at a time", file=progress, flush=True)
        refreshed = _run_in_workers(kb, instance, settings, to_run, workers, done)
    elif to_run:
        job = build_definitions(kb, settings).resolve_job_def(INGEST_JOB)
        for item in to_run:
            print(f"{labels[item.source.doc_id]} …", file=progress, flush=True)
            done(item, _run_document(job, instance, item))
    if not refreshed and any(o.status == "ingested" for o in outcomes.values()):
        _refresh_table(build_definitions(kb, settings), instance)
    return [outcomes[item.source.doc_id] for item in ready]


def format_outcomes(outcomes: list[Outcome], seconds: float) -> str:
    lines = [f"{'document':40} {'status':9} {'version':>7} {'pages':>5} {'chunks':>6} {'warn':>4} {'sec':>6}  note"]
    for o in outcomes:
        m = o.metadata
        if o.status == "failed":
            lines.append(
                f"{o.doc_id[:40]:40} {'FAILED':9} {'':>7} {'':>5} {'':>6} {'':>4} {o.seconds:>6.1f}  {o.reason[:110]}"
            )
        else:
            lines.append(
                f"{o.doc_id[:40]:40} {o.status:9} {m.get('version', ''):>7} {m.get('pages', ''):>5} "
                f"{m.get('chunks', ''):>6} {m.get('warnings', ''):>4} {o.seconds:>6.1f}"
            )
    counts = {s: sum(o.status == s for o in outcomes) for s in ("ingested", "unchanged", "failed")}
    lines.append(
        f"{counts['ingested']} ingested, {counts['unchanged']} unchanged, {counts['failed']} failed in {seconds:.1f} s"
    )
    return "\n".join(lines)
