"""What the Celery cluster tests share (test_celery_cluster.py on loopback, test_cluster_netns.py
with each worker on a network of its own): the command line as a process, a worker killed in the
middle of a MinerU parse, and the checks that a cluster's runs ended as a one-machine run would."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import dagster as dg

from kb_pipeline.cli.ingest import INGEST_TRIGGER
from kb_pipeline.defs.dead_runs import WORKER_DIED
from kb_pipeline.defs.history import crash_reason
from kb_pipeline.defs.run_timeline import StepSpan, step_spans
from kb_pipeline.runs.celery import WORKER_TAG

from .services import Stack

PARSE = "mineru_raw_output"
UNFINISHED = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]


def kb(*args: str) -> list[str]:
    return [sys.executable, "-m", "kb_pipeline.cli.main", *args]


def parse_running(instance: dg.DagsterInstance, tags: dict[str, str]) -> tuple[dg.DagsterRun, float] | None:
    """A run with `tags` in its MinerU parse right now: (the run, when the parse started)."""
    runs = instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED], tags=tags))
    for run in runs:
        events = instance.all_logs(
            run.run_id, of_type={dg.DagsterEventType.STEP_START, dg.DagsterEventType.STEP_SUCCESS}
        )
        started = [
            e.timestamp for e in events if e.step_key == PARSE and e.dagster_event.event_type_value == "STEP_START"
        ]
        if started and not any(
            e.step_key == PARSE and e.dagster_event.event_type_value == "STEP_SUCCESS" for e in events
        ):
            return run, started[0]
    return None


def kill_mid_parse(stack: Stack, instance: dg.DagsterInstance, tags: dict[str, str], until) -> StepSpan | None:
    """SIGKILL to the whole worker (main process and pool) that runs a parse of a run with `tags`,
    as soon as there is one (polled while `until()` is false); the killed parse's span up to the kill."""
    while not until():
        found = parse_running(instance, tags)
        if found:
            run, parse_start = found
            stack.kill(run.tags[WORKER_TAG].split("@")[1])  # kb@<host>: the stack's name for the worker
            return StepSpan(run.run_id, PARSE, parse_start, time.time(), None)
        time.sleep(0.1)
    return None


def without_timings(value):
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if not any(t in k for t in ("seconds", "time", "_at"))}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def wait_until_no_run_unfinished(instance: dg.DagsterInstance, seconds: float = 90) -> None:
    """Nothing left unfinished: the daemon's automation may have just launched a tables run,
    which ends in seconds; a run that stayed STARTED or STARTING would not."""
    deadline = time.monotonic() + seconds
    while unfinished := instance.get_runs(dg.RunsFilter(statuses=UNFINISHED)):
        assert time.monotonic() < deadline, [(r.run_id, r.job_name, r.status) for r in unfinished]
        time.sleep(1)


def wait_until_slots_free(instance: dg.DagsterInstance, pool: str = "mineru", seconds: float = 30) -> None:
    """Run monitoring frees a dead run's slots a little after it failed the run."""
    deadline = time.monotonic() + seconds
    while instance.event_log_storage.get_concurrency_info(pool).claimed_slots:
        assert time.monotonic() < deadline, instance.event_log_storage.get_concurrency_info(pool)
        time.sleep(1)


def assert_ingest_survived_a_killed_worker(
    instance: dg.DagsterInstance, killed_run_id: str, docs: list[str], workers: Iterable[str]
) -> list[StepSpan]:
    """`ingest`'s runs after a worker was killed mid-parse: they ran on every worker, a run no
    worker took (the killed one had it, not yet started) ended failed, not pending, none is left
    unfinished, the killed run failed as a dead worker's and another run ingested its document,
    each document was parsed once, and a parse waited for the `mineru` slot. Their step spans."""
    runs = instance.get_runs(dg.RunsFilter(job_name="ingest_documents", tags={"kb/trigger": INGEST_TRIGGER}))
    assert {run.tags.get(WORKER_TAG) for run in runs} - {None} == {f"kb@{host}" for host in workers}
    assert all(run.status == dg.DagsterRunStatus.FAILURE for run in runs if WORKER_TAG not in run.tags)
    wait_until_no_run_unfinished(instance)
    dead = instance.get_run_by_id(killed_run_id)
    assert dead is not None and dead.status == dg.DagsterRunStatus.FAILURE
    assert WORKER_DIED in (crash_reason(instance, dead) or ""), crash_reason(instance, dead)
    partition = dead.tags["dagster/partition"]
    assert any(
        run.tags.get("dagster/partition") == partition and run.status == dg.DagsterRunStatus.SUCCESS for run in runs
    )
    spans, pool_waits = step_spans(instance, [run.run_id for run in runs])
    assert sum(span.step_key == PARSE for span in spans) == len(docs)
    assert pool_waits > 0, "no parse ever waited for the `mineru` slot: the limit was not exercised"
    return spans


def assert_same_chunks(cluster_data: Path, single_data: Path, docs: list[str]) -> None:
    """Every document's chunks in the cluster's data root are those of the one-machine run's,
    timing fields aside."""
    for name in docs:
        cluster = json.loads((cluster_data / "parsed" / name / "chunks.json").read_text())
        single = json.loads((single_data / "parsed" / name / "chunks.json").read_text())
        assert without_timings(cluster["chunks"]) == without_timings(single["chunks"]), name
