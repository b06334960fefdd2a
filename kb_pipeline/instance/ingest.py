"""`kb-pipeline ingest`: a folder through the asset graph, in process, against the Dagster instance.

The same partitions, assets, checks and run history as the UI and the sensor — only run here,
one document after another, with a progress line per document. A document whose artifact is
already current (same content, parser config, MinerU and normaliser) is not run at all.
"""

import sys
import time
from dataclasses import dataclass

import dagster as dg

from ..defs.names import INGEST_JOB, WARNINGS_TABLE_JOB
from ..defs.partitions import DOCUMENTS
from ..defs.resources import KnowledgeBase
from ..defs.sensors import CONTENT_TAG
from ..drop_folder import FolderState, scan
from ..settings import DEFAULT_NEVER_STARTED_SECONDS
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


def release_abandoned_runs(
    instance: dg.DagsterInstance, never_started_seconds: float = DEFAULT_NEVER_STARTED_SECONDS
) -> list[str]:
    """End the runs of this instance whose worker is dead — this command's own earlier runs
    killed with SIGKILL as much as daemon-launched runs left behind by a stopped `make ui` — and
    free their pool slots (`run_workers.end_dead_runs`). Without it, after as many such crashes
    as the `mineru` pool allows, every later parse would wait for ever."""
    return [run_id for run_id, _reason in end_dead_runs(instance, never_started_seconds=never_started_seconds)]


def _failure_reason(result: dg.ExecuteInProcessResult) -> str:
    reasons = (step_failure_reason(event) for event in result.all_events if event.is_step_failure)
    return next((reason for reason in reasons if reason), "run failed")


def ingest_folder(
    defs: dg.Definitions,
    kb: KnowledgeBase,
    instance: dg.DagsterInstance,
    progress=None,
    never_started_seconds: float = DEFAULT_NEVER_STARTED_SECONDS,
) -> list[Outcome]:
    progress = progress or sys.stderr
    for run_id in release_abandoned_runs(instance, never_started_seconds):
        print(f"released run {run_id[:8]}: its worker process was gone", file=progress)
    changes, _state = scan(kb.folder, FolderState(), kb.processing_identity, require_stable=False)
    for path, reason in changes.newly_skipped:
        print(f"skipping {path.name}: {reason}", file=progress)
    ready = changes.ready
    new_keys = sorted({r.source.doc_id for r in ready} - set(instance.get_dynamic_partitions(DOCUMENTS)))
    if new_keys:
        instance.add_dynamic_partitions(DOCUMENTS, new_keys)
    job = defs.resolve_job_def(INGEST_JOB)
    outcomes: list[Outcome] = []
    for n, item in enumerate(ready, 1):
        doc_id, name = item.source.doc_id, item.source.path.name
        label = f"[{n}/{len(ready)}] {name}"
        started = time.perf_counter()
        if is_current(instance, kb, doc_id, item.content_hash):
            outcomes.append(
                Outcome(
                    doc_id,
                    name,
                    "unchanged",
                    time.perf_counter() - started,
                    metadata_values(latest_materialization(instance, PARSED, doc_id)),
                )
            )
            print(f"{label} unchanged", file=progress, flush=True)
            continue
        observe_source(instance, doc_id, item.content_hash)
        print(f"{label} …", file=progress, flush=True)
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
            meta = metadata_values(latest_materialization(instance, PARSED, doc_id))
            outcomes.append(Outcome(doc_id, name, "ingested", seconds, meta))
            print(
                f"{label} ingested: {meta.get('chunks')} chunks, {meta.get('warnings')} warnings, {seconds:.1f} s",
                file=progress,
                flush=True,
            )
        else:
            reason = _failure_reason(result)
            outcomes.append(Outcome(doc_id, name, "failed", seconds, {}, reason))
            print(f"{label} FAILED {reason}", file=progress, flush=True)
    if any(o.status == "ingested" for o in outcomes):
        defs.resolve_job_def(WARNINGS_TABLE_JOB).execute_in_process(
            run_config=QUIET, instance=instance, raise_on_error=False
        )
    return outcomes


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
