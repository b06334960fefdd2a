"""kb-pipeline beyond one machine, for real, on loopback (dagster.celery.yaml, docs/SCALING.md):
PostgreSQL for the instance, `redis-server` as Celery's broker, `dagster-daemon` (queue, run
monitoring), and two `kb-pipeline worker`s each in a UTS namespace of its own (two host names),
all on one shared data root. `kb-pipeline ingest` launches runs of eight generated two-page PDFs
through the instance's launcher and follows them; one worker is killed with SIGKILL mid-parse.

It asserts: runs ran on both workers; never more MinerU parses at once, across both, than the
`mineru` pool's limit; the killed worker's run was failed by run monitoring and its document
ingested by a later run, no run left unfinished; the chunks are those of a one-machine run
(`kb-pipeline run`, timing fields aside). Every process it starts is killed at the end, failing
or not.

Needs root (`unshare --uts`), PostgreSQL's server and `redis-server`: installed when missing, as
`make test` does (test-services).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import dagster as dg
import pytest

from kb_pipeline.defs.dead_runs import WORKER_DIED
from kb_pipeline.defs.history import crash_reason
from kb_pipeline.defs.run_timeline import StepSpan, peak_concurrency, step_spans
from kb_pipeline.runs.celery import WORKER_TAG
from kb_pipeline_tests.samples import long_pdf

from .conftest import REPO_ROOT
from .deployment import make_deployment
from .services import MissingServer, Stack, redis_server
from .test_postgres import postgres  # noqa: F401 — the throwaway PostgreSQL server fixture

pytestmark = [pytest.mark.slow, pytest.mark.services]
DOCS = [f"doc{i}" for i in range(8)]
WORKERS = ("worker-a", "worker-b")
# One parse at a time across the cluster (the shipped limit is 2): with two workers of two runs
# each, parses must wait for the slot, so the limit is exercised, not merely never reached.
POOL_LIMIT = 1
PARSE = "mineru_raw_output"
UNFINISHED = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]


@pytest.fixture
def redis_url():
    try:
        with redis_server() as url:
            yield url
    except MissingServer as e:
        pytest.fail(str(e))


def _kb(*args: str) -> list[str]:
    return [sys.executable, "-m", "kb_pipeline.cli.main", *args]


def _parse_running_on(instance: dg.DagsterInstance, node: str) -> tuple[str, float] | None:
    """A run of `node` in its MinerU parse right now: (run id, when the parse started)."""
    runs = instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED], tags={WORKER_TAG: node}))
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
            return run.run_id, started[0]
    return None


def _without_timings(value):
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if not any(t in k for t in ("seconds", "time", "_at"))}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def test_two_celery_workers_share_the_pool_and_survive_a_killed_worker(tmp_path, postgres, redis_url, monkeypatch):  # noqa: F811
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.fail("this test gives each worker its own host name with `unshare --uts`: it needs root and util-linux")
    started = time.monotonic()
    config = (REPO_ROOT / "dagster.celery.yaml").read_text()
    # A run a killed worker had taken but not started stays STARTING: ended after a minute here.
    config = config.replace("start_timeout_seconds: 7200", "start_timeout_seconds: 60")
    config = config.replace("default_limit: 2", f"default_limit: {POOL_LIMIT}")
    deployment = make_deployment(tmp_path, config)
    inbox = tmp_path / "inbox"  # not the drop folder: the daemon's sensor leaves it alone
    inbox.mkdir()
    for name in DOCS:
        # Two pages with a table across them: MinerU renders its image in child processes of the
        # worker's pool process. A title of its own each, so no two share a parse-cache entry.
        long_pdf(inbox / f"{name}.pdf", 2, lines_per_page=30, seams={1: "table"}, title=f"Pump handbook {name}")
    env = {
        **os.environ,
        **deployment.env,
        **postgres,
        "PYTHONPATH": str(REPO_ROOT),
        "KB_CELERY_BROKER_URL": redis_url,
        "KB_CELERY_CONCURRENCY": "2",
        "KB_LLM": "off",  # the deterministic readers only: this test is about runs, not the model
    }
    for key in ("KB_CELERY_BROKER_URL", *deployment.env, *postgres):
        monkeypatch.setenv(key, env[key])
    stack = Stack(env, tmp_path)
    try:
        # The same PDFs on one machine, without Dagster, for the chunks to compare at the end: run
        # meanwhile (the cluster's start-up mostly waits), in a data root of its own.
        alone = tmp_path / "alone"
        one_machine = stack.start(
            "one-machine",
            _kb("run", "--input", str(inbox), "--out", str(alone)),
            env={"KB_DATA_DIR": str(tmp_path / "alone-data")},
        )
        with dg.DagsterInstance.get() as instance:
            for pool in ("mineru", "llm"):  # created before two runs race to create them (test_postgres.py)
                instance.event_log_storage.initialize_concurrency_limit_to_default(pool)
        claimed = subprocess.run(
            _kb("shared-root"), env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
        )
        assert claimed.returncode == 0, claimed.stderr[-2000:]
        stack.start("daemon", [str(Path(sys.executable).parent / "dagster-daemon"), "run", "-w", "workspace.yaml"])
        for host in WORKERS:
            stack.start(host, _kb("worker"), host=host)

        # A worker whose data root is not the shared one refuses to start; so does `ingest` on such
        # a host, rather than taking the record over from the workers (both at once, while the
        # workers start).
        private = {"KB_DATA_DIR": str(tmp_path / "private")}
        strays = {
            "stray-worker": stack.start("stray-worker", _kb("worker"), env=private),
            "stray-ingest": stack.start("stray-ingest", _kb("ingest", "--input", str(inbox)), env=private),
        }
        for name, stray in strays.items():
            stray.wait(timeout=120)
            assert stray.returncode != 0 and "is not the shared one" in stack.log(name), stack.log(name)

        ingest = stack.start("ingest", _kb("ingest", "--input", str(inbox)))
        killed: dict[str, float | str] = {}

        def kill_worker_b_mid_parse() -> None:
            with dg.DagsterInstance.get() as instance:
                while ingest.poll() is None:
                    found = _parse_running_on(instance, f"kb@{WORKERS[1]}")
                    if found:
                        stack.kill(WORKERS[1])
                        killed.update(run_id=found[0], parse_start=found[1], at=time.time())
                        return
                    time.sleep(0.1)

        killer = threading.Thread(target=kill_worker_b_mid_parse, daemon=True)
        killer.start()
        ingest.wait(timeout=420)
        killer.join(timeout=10)
        output = stack.log("ingest")
        assert ingest.returncode == 0, output + stack.log("daemon")[-1500:]
        assert f"{len(DOCS)} ingested, 0 unchanged, 0 failed" in output, output
        assert killed, f"{WORKERS[1]} never parsed: " + stack.log(WORKERS[1])

        with dg.DagsterInstance.get() as instance:
            runs = instance.get_runs(dg.RunsFilter(job_name="ingest_documents"))
            assert {run.tags.get(WORKER_TAG) for run in runs} - {None} == {f"kb@{host}" for host in WORKERS}
            # A run no worker took (the killed one had it, not yet started) ended failed, not pending.
            assert all(run.status == dg.DagsterRunStatus.FAILURE for run in runs if WORKER_TAG not in run.tags)
            # Nothing left unfinished: the daemon's automation may have just launched a tables run,
            # which ends in seconds; a run that stayed STARTED or STARTING would not.
            deadline = time.monotonic() + 90
            while unfinished := instance.get_runs(dg.RunsFilter(statuses=UNFINISHED)):
                assert time.monotonic() < deadline, [(r.run_id, r.job_name, r.status) for r in unfinished]
                time.sleep(1)
            dead = instance.get_run_by_id(str(killed["run_id"]))
            assert dead.status == dg.DagsterRunStatus.FAILURE
            assert WORKER_DIED in (crash_reason(instance, dead) or ""), crash_reason(instance, dead)
            partition = dead.tags["dagster/partition"]
            assert any(
                run.tags.get("dagster/partition") == partition and run.status == dg.DagsterRunStatus.SUCCESS
                for run in runs
            )
            spans, pool_waits = step_spans(instance, [run.run_id for run in runs])
            parses = [span for span in spans if span.step_key == PARSE]
            assert len(parses) == len(DOCS)
            assert pool_waits > 0, "no parse ever waited for the `mineru` slot: the limit was not exercised"
            # The killed parse held a slot from its start to the kill.
            parses.append(StepSpan(dead.run_id, PARSE, float(killed["parse_start"]), float(killed["at"]), None))
            peak = peak_concurrency(parses, slack=0.25)
            assert peak <= POOL_LIMIT, f"{peak} MinerU parses overlapped; the `mineru` pool allows {POOL_LIMIT}"
            deadline = time.monotonic() + 30  # run monitoring frees a dead run's slots a little later
            while instance.event_log_storage.get_concurrency_info("mineru").claimed_slots:
                assert time.monotonic() < deadline, instance.event_log_storage.get_concurrency_info("mineru")
                time.sleep(1)
        cluster_seconds = time.monotonic() - started
        status = subprocess.run(
            _kb("status", "--input", str(inbox), "--wide"),
            env=env,
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert status.returncode == 0, status.stdout + status.stderr[-2000:]
        assert sum(" ingested" in line for line in status.stdout.splitlines()) >= len(DOCS), status.stdout

        # The same PDFs on one machine, without Dagster: the same chunks.
        assert one_machine.wait(timeout=300) == 0, stack.log("one-machine")
        for name in DOCS:
            cluster = json.loads((deployment.data / "parsed" / name / "chunks.json").read_text())
            single = json.loads((tmp_path / "alone-data" / "parsed" / name / "chunks.json").read_text())
            assert _without_timings(cluster["chunks"]) == _without_timings(single["chunks"]), name
    finally:
        stack.close()
    print(
        f"\ncelery: {len(DOCS)} documents on {len(WORKERS)} workers, peak {peak} parses, "
        f"killed {WORKERS[1]} mid-parse, {cluster_seconds:.1f} s cluster, {time.monotonic() - started:.1f} s in all"
    )
