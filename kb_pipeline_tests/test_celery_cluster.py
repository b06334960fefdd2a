"""kb-pipeline beyond one machine, for real, on loopback (dagster.celery.yaml, docs/SCALING.md):
PostgreSQL for the instance, `redis-server` as Celery's broker, `dagster-daemon` (queue, sensors,
run monitoring, run retries), and two `kb-pipeline worker`s each in a UTS namespace of its own (two
host names), all on one shared data root. `kb-pipeline ingest` launches runs of eight generated
two-page PDFs through the instance's launcher and follows them; one worker is killed with SIGKILL
mid-parse and started again. Then the daemon's own paths on the same cluster: a PDF dropped into
the drop folder (the sensor's run, whose worker is killed mid-parse too) and a backfill.

It asserts: runs ran on both workers; never more MinerU parses at once, across both, than the
`mineru` pool's limit; the killed worker's run was failed by run monitoring and its document
ingested by a later run (`ingest`'s rerun; for the sensor's run, run retries' retry on the other
worker), no run left unfinished; the sensor's and the backfill's runs were launched through the
Celery launcher and ran on the workers; the chunks are those of a one-machine run (`kb-pipeline
run`, timing fields aside). Every process it starts is killed at the end, failing or not.

Needs root (`unshare --uts`), PostgreSQL's server and `redis-server`: installed when missing, as
`make test` does (test-services).
"""

from __future__ import annotations

import datetime
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import dagster as dg
import pytest
from dagster_celery.tags import DAGSTER_CELERY_TASK_ID_TAG

from kb_pipeline.cli.status import folder_status
from kb_pipeline.defs.dead_runs import WORKER_DIED
from kb_pipeline.defs.history import crash_reason
from kb_pipeline.defs.resources import KnowledgeBase
from kb_pipeline.defs.run_timeline import StepSpan, peak_concurrency, step_spans
from kb_pipeline.runs.celery import WORKER_TAG
from kb_pipeline.settings import Settings
from kb_pipeline.sources import doc_id_for
from kb_pipeline_tests.samples import long_pdf

from .cluster_stack import (
    PARSE,
    assert_ingest_survived_a_killed_worker,
    assert_same_chunks,
    kb,
    kill_mid_parse,
    wait_until_slots_free,
)
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
BACKFILLED = DOCS[:2]  # partitions ingested by `ingest`, backfilled again from the drop folder


@pytest.fixture
def redis_url():
    try:
        with redis_server() as url:
            yield url
    except MissingServer as e:
        pytest.fail(str(e))


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
    for key in ("KB_CELERY_BROKER_URL", "KB_LLM", *deployment.env, *postgres):
        monkeypatch.setenv(key, env[key])
    stack = Stack(env, tmp_path)
    try:
        # The same PDFs on one machine, without Dagster, for the chunks to compare at the end: run
        # meanwhile (the cluster's start-up mostly waits), in a data root of its own.
        alone = tmp_path / "alone"
        one_machine = stack.start(
            "one-machine",
            kb("run", "--input", str(inbox), "--out", str(alone)),
            env={"KB_DATA_DIR": str(tmp_path / "alone-data")},
        )
        with dg.DagsterInstance.get() as instance:
            for pool in ("mineru", "llm"):  # created before two runs race to create them (test_postgres.py)
                instance.event_log_storage.initialize_concurrency_limit_to_default(pool)
        claimed = subprocess.run(kb("shared-root"), env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
        assert claimed.returncode == 0, claimed.stderr[-2000:]
        stack.start("daemon", [str(Path(sys.executable).parent / "dagster-daemon"), "run", "-w", "workspace.yaml"])
        for host in WORKERS:
            stack.start(host, kb("worker"), host=host)

        # A worker whose data root is not the shared one refuses to start; so does `ingest` on such
        # a host, rather than taking the record over from the workers (both at once, while the
        # workers start).
        private = {"KB_DATA_DIR": str(tmp_path / "private")}
        strays = {
            "stray-worker": stack.start("stray-worker", kb("worker"), env=private),
            "stray-ingest": stack.start("stray-ingest", kb("ingest", "--input", str(inbox)), env=private),
        }
        for name, stray in strays.items():
            stray.wait(timeout=120)
            assert stray.returncode != 0 and "is not the shared one" in stack.log(name), stack.log(name)

        ingest_started = time.monotonic()
        ingest = stack.start("ingest", kb("ingest", "--input", str(inbox)))
        killed: list[StepSpan] = []

        def kill_worker_b_mid_parse() -> None:
            with dg.DagsterInstance.get() as instance:
                span = kill_mid_parse(
                    stack, instance, {WORKER_TAG: f"kb@{WORKERS[1]}"}, lambda: ingest.poll() is not None
                )
            if span:
                killed.append(span)
                # Started again under the same name, as a supervisor would: its predecessor's run is
                # found dead all the same (before it is back, nobody answers; after, its task is not
                # among the new worker's), and it takes runs again.
                stack.start(WORKERS[1], kb("worker"), host=WORKERS[1])

        killer = threading.Thread(target=kill_worker_b_mid_parse, daemon=True)
        killer.start()
        ingest.wait(timeout=420)
        killer.join(timeout=10)
        output = stack.log("ingest")
        assert ingest.returncode == 0, output + stack.log("daemon")[-1500:]
        assert f"{len(DOCS)} ingested, 0 unchanged, 0 failed" in output, output
        assert killed, f"{WORKERS[1]} never parsed: " + stack.log(WORKERS[1])
        ingest_seconds = time.monotonic() - ingest_started
        # What `ingest` brought up to date stays so: the daemon (automation ticks every 30 s)
        # starts no run of its own for 30 s, and every document stays ingested.
        ingest_ended = datetime.datetime.now(datetime.UTC)
        time.sleep(30)
        with dg.DagsterInstance.get() as instance:
            after = instance.get_runs(dg.RunsFilter(created_after=ingest_ended))
            assert not after, [(run.job_name, run.tags.get("dagster/partition"), run.asset_selection) for run in after]
        quiet = subprocess.run(
            kb("status", "--input", str(inbox)), env=env, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
        )
        assert f"{len(DOCS)} files: {len(DOCS)} ingested," in quiet.stdout, quiet.stdout
        killed.append(_the_daemons_runs(stack, env, inbox, deployment))
        daemon_seconds = time.monotonic() - ingest_started - ingest_seconds

        with dg.DagsterInstance.get() as instance:
            assert_ingest_survived_a_killed_worker(instance, killed[0].run_id, DOCS, WORKERS)
            # Every parse of the test (the sensor's, its retry's and the backfill's too), and the two
            # killed ones, each of which held a slot from its start to the kill.
            every_run = [run.run_id for run in instance.get_runs(dg.RunsFilter(job_name="ingest_documents"))]
            parses = [span for span in step_spans(instance, every_run)[0] if span.step_key == PARSE] + killed
            peak = peak_concurrency(parses, slack=0.25)
            assert peak <= POOL_LIMIT, f"{peak} MinerU parses overlapped; the `mineru` pool allows {POOL_LIMIT}"
            wait_until_slots_free(instance)
        cluster_seconds = time.monotonic() - started
        status = subprocess.run(
            kb("status", "--input", str(inbox), "--wide"),
            env=env,
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert status.returncode == 0, status.stdout + status.stderr[-2000:]
        assert sum(" ingested" in line for line in status.stdout.splitlines()) >= len(DOCS), status.stdout
        # The drop folder's (the dropped PDF and the backfilled two): what `kb-pipeline status` lists.
        # A backfilled copy may be run once more: such a document must end ingested too.
        expected = [(f"{name}.pdf", "ingested") for name in [*BACKFILLED, "dropped"]]
        deadline = time.monotonic() + 120
        with dg.DagsterInstance.get() as instance:
            while (
                listed := sorted(
                    (file.name, file.state)
                    for file in folder_status(KnowledgeBase.from_settings(Settings.from_env()), instance)
                )
            ) != expected:
                assert time.monotonic() < deadline, listed
                time.sleep(2)

        # The same PDFs on one machine, without Dagster: the same chunks.
        assert one_machine.wait(timeout=300) == 0, stack.log("one-machine")
        assert_same_chunks(deployment.data, tmp_path / "alone-data", DOCS)
    finally:
        stack.close()
    print(
        f"\ncelery: {len(DOCS)} documents on {len(WORKERS)} workers, peak {peak} parses, killed {WORKERS[1]} "
        f"mid-parse ({ingest_seconds:.1f} s), then a drop and a backfill of {len(BACKFILLED)} "
        f"({daemon_seconds:.1f} s), {cluster_seconds:.1f} s cluster, "
        f"{time.monotonic() - started:.1f} s in all"
    )


def _the_daemons_runs(stack: Stack, env: dict[str, str], inbox: Path, deployment) -> StepSpan:
    """The daemon's own runs on the cluster: a PDF dropped into the drop folder, whose sensor run's
    worker is killed mid-parse (run retries re-run it on the other worker), then a backfill of
    `BACKFILLED` (their PDFs copied into the drop folder, where a partition's PDF is looked up; the
    sensor runs them too only if they are not current). The killed parse's span."""
    for name in BACKFILLED:
        shutil.copy(inbox / f"{name}.pdf", deployment.drop)
    written = inbox.parent / "dropped.pdf"  # written elsewhere, then moved in whole
    long_pdf(written, 2, lines_per_page=30, seams={1: "table"}, title="Pump handbook dropped")
    dropped = deployment.drop / written.name
    written.rename(dropped)
    sensor_run = {"dagster/sensor_name": "drop_folder_sensor", "dagster/partition": doc_id_for(dropped)}
    with dg.DagsterInstance.get() as instance:
        deadline = time.monotonic() + 180
        killed = kill_mid_parse(stack, instance, sensor_run, lambda: time.monotonic() > deadline)
        assert killed, "the drop folder sensor's run never parsed: " + stack.log("daemon")
        victim = instance.get_run_by_id(killed.run_id).tags[WORKER_TAG]

        backfill = subprocess.run(
            [str(Path(sys.executable).parent / "dagster"), "job", "backfill", "-w", "workspace.yaml"]
            + ["-j", "ingest_documents", "--partitions", ",".join(BACKFILLED), "--noprompt"],
            env=env,
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=180,
        )
        launched = re.search(r"Launched backfill job `([^`]+)`", backfill.stdout)
        assert backfill.returncode == 0 and launched, backfill.stdout + backfill.stderr[-2000:]

        def ended(tags: dict[str, str], count: int) -> list[dg.DagsterRun]:
            runs = instance.get_runs(dg.RunsFilter(tags=tags))
            return runs if len(runs) >= count and all(run.is_finished for run in runs) else []

        deadline = time.monotonic() + 300
        while not (
            (retries := ended({"dagster/parent_run_id": killed.run_id}, 1))
            and (backfilled := ended({"dagster/backfill": launched[1]}, len(BACKFILLED)))
        ):
            assert time.monotonic() < deadline, stack.log("daemon")
            time.sleep(1)
        first = instance.get_run_by_id(killed.run_id)
        survivor = {f"kb@{host}" for host in WORKERS} - {victim}
        # Every one launched through the Celery launcher (its task id) and run by a worker (its tag).
        assert all(DAGSTER_CELERY_TASK_ID_TAG in run.tags for run in [first, *retries, *backfilled])
        assert first.status == dg.DagsterRunStatus.FAILURE
        assert WORKER_DIED in (crash_reason(instance, first) or ""), crash_reason(instance, first)
        assert [(r.status, r.tags.get("dagster/retry_number"), r.tags.get(WORKER_TAG)) for r in retries] == [
            (dg.DagsterRunStatus.SUCCESS, "1", *survivor)
        ], retries
        assert sorted(run.tags["dagster/partition"] for run in backfilled) == BACKFILLED
        assert all(run.status == dg.DagsterRunStatus.SUCCESS for run in backfilled), backfilled
        assert {run.tags.get(WORKER_TAG) for run in backfilled} <= {f"kb@{host}" for host in WORKERS}
    return killed
