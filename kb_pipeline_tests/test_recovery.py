"""Recovery without a person, on the real `make ui` stack: `dagster dev` (webserver, daemon, code
server, run workers) on a temp instance with the repo's dagster.yaml, real MinerU, real PDFs.

1. The whole stack is killed with SIGKILL (every process of its group and every descendant, as
   in a reboot or an OOM kill of the container) while parses run, then started again: within
   3 minutes every file is `ingested` or `failed` with a reason, no run is left STARTED or
   STARTING with a dead worker, no `mineru` slot is held by a dead run, no cache entry is
   partial, and no document was parsed to completion twice (retries reuse complete entries).
2. Only one run worker is killed while the stack stays up: the run ends failed, is retried by
   the daemon, and the document ends ingested.

The recovery times are printed (`pytest -s`) and quoted in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

from kb_pipeline.cli.status import folder_status
from kb_pipeline.defs.dead_runs import WORKER_DIED, check_worker, event_message, worker_record
from kb_pipeline.defs.resources import KnowledgeBase, ParserOptions
from kb_pipeline.parsing.cache import COMPLETE_MARKER

from .conftest import FIXTURE_PDFS, REPO_ROOT, SHARED
from .deployment import free_port, make_deployment, process_tree, processes

pytestmark = [pytest.mark.slow, pytest.mark.services]
BIN = Path(sys.executable).parent
CORPUS_PDFS = SHARED / "corpus" / "pdfs"
# Small real PDFs (1–5 pages) so the test stays short, plus a scanned one that fails with a
# reason (its OCR language, KB_OCR_LANGS below, is not installed): 9 files.
CRASH_PDFS = [
    FIXTURE_PDFS / n for n in ("sample.pdf", "unittest_test.pdf", "chem_intro.pdf", "scanned_small_ocr.pdf")
] + [
    CORPUS_PDFS / n
    for n in (
        "manual_amt_handbook.pdf",
        "paper_code_and_formula.pdf",
        "paper_formula_clarinet_acoustics.pdf",
        "report_ko_covid_insurance.pdf",
        "table_jal_traffic_stats.pdf",
    )
]
UNFINISHED = {dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING}
RECOVERY_LIMIT = 180


@pytest.fixture
def deployment(tmp_path, monkeypatch):
    """A temp instance laid out like the repo's (its own DAGSTER_HOME with the repo's dagster.yaml,
    data root, empty drop folder); this process reads the same instance."""
    deployment = make_deployment(tmp_path)
    drop, data = deployment.drop, deployment.data
    env = {
        **deployment.env,
        "KB_SENSOR_INTERVAL": "2",
        # A Tesseract language that is not installed: the scanned PDF still fails at once, with
        # its reason (test_ocr reads scans), so the recovery timings keep their meaning.
        "KB_OCR_LANGS": "eng+zul",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    kb = KnowledgeBase(
        drop_folder=str(drop), data_dir=str(data), parser=ParserOptions(ocr_langs=env["KB_OCR_LANGS"])
    )  # as the stack
    dep = {
        "env": {**os.environ, **env},
        "drop": drop,
        "data": data,
        "kb": kb,
        "log": tmp_path / "dagster-dev.log",
        "stacks": [],
    }
    yield dep
    for proc in dep["stacks"]:
        if proc.poll() is None:
            _kill_tree(proc.pid, proc)


def _start_stack(dep) -> subprocess.Popen:
    """`make ui`: dagster dev on a free loopback port, in a session of its own."""
    with dep["log"].open("ab") as out:
        proc = subprocess.Popen(
            [
                str(BIN / "dagster"),
                "dev",
                "-w",
                str(REPO_ROOT / "workspace.yaml"),
                "-h",
                "127.0.0.1",
                "-p",
                str(free_port()),
            ],
            env=dep["env"],
            cwd=REPO_ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    dep["stacks"].append(proc)
    return proc


def _kill_tree(root: int, proc: subprocess.Popen | None = None) -> int:
    """SIGKILL `root` with its group and descendants at once; waits until none is alive."""
    victims = process_tree(root)
    for pid in victims:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    if proc is not None:
        proc.wait(timeout=30)
    deadline = time.monotonic() + 30
    while True:
        # One snapshot a look: a victim may exit between two reads of /proc.
        table = processes()
        alive = {p for p in victims if p in table and table[p][2] not in "ZX"}
        if not alive or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert not alive, f"processes survived SIGKILL: {alive}"
    return len(victims)


def _runs(instance) -> list[dg.DagsterRun]:
    return list(instance.get_runs())


def _cache(data: Path) -> tuple[list[Path], list[Path]]:
    root = data / "knowledge_cache" / "parse"
    entries = sorted(root.iterdir()) if root.is_dir() else []
    return [p for p in entries if not p.name.startswith(".tmp-")], [p for p in entries if p.name.startswith(".tmp-")]


def _wait(what: str, predicate, timeout: float, dep, interval: float = 1.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(interval)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}\n{dep['log'].read_text(errors='replace')[-4000:]}")


def _snapshot(dep) -> dict:
    with dg.DagsterInstance.get() as instance:
        runs = _runs(instance)
        slots = instance.event_log_storage.get_concurrency_info("mineru").claimed_slots
        statuses = folder_status(dep["kb"], instance)
        dead = {
            r.run_id: check_worker(instance, r).reason
            for r in runs
            if r.status in UNFINISHED and check_worker(instance, r).dead
        }
    return {
        "runs": {r.run_id: r.status for r in runs},
        "slots": {s.run_id for s in slots},
        "files": {s.name: (s.state, s.detail) for s in statuses},
        "dead": dead,
    }


# The run monitor frees the slots of an ended run `free_slots_after_run_end_seconds` (5 s in
# dagster.yaml) after its end, on its next poll (5 s): a retry can finish before that.
SLOTS_FREED_WITHIN = 30


def _assert_clean(dep) -> None:
    """Nothing left behind: no run STARTED/STARTING with a dead worker, no slot of a finished or
    dead run (once the run monitor has had its poll), no partial cache entry, no temp dir of a
    dead parse."""

    def slots_of_live_runs_only():
        snap = _snapshot(dep)
        return snap if all(snap["runs"].get(run_id) in UNFINISHED for run_id in snap["slots"]) else None

    snap = _wait("the slots of ended runs to be freed", slots_of_live_runs_only, SLOTS_FREED_WITHIN, dep)
    assert not snap["dead"], f"runs left unfinished with a dead worker: {snap['dead']}"
    finals, temps = _cache(dep["data"])
    assert all((entry / COMPLETE_MARKER).is_file() for entry in finals), "a cache entry without its marker"
    assert not temps, f"temp dirs of dead parses left: {[t.name for t in temps]}"


def _parses_per_entry() -> dict[str, int]:
    """How many times each cache entry was produced by a real parse (not a cache hit)."""
    counts: dict[str, int] = {}
    with dg.DagsterInstance.get() as instance:
        records = instance.fetch_materializations(dg.AssetKey("mineru_raw_output"), limit=1000).records
        for record in records:
            meta = {k: v.value for k, v in record.asset_materialization.metadata.items()}
            if meta.get("cache_hit") is False:
                counts[str(meta["raw_output_dir"])] = counts.get(str(meta["raw_output_dir"]), 0) + 1
    return counts


def test_whole_stack_killed_mid_parse_recovers_after_restart(deployment):
    dep = deployment
    for pdf in CRASH_PDFS:
        shutil.copy(pdf, dep["drop"])
    stack = _start_stack(dep)
    # At least one parse under way: its cache temp dir exists and a run is STARTED.
    started = time.monotonic()
    _wait(
        "a parse in progress",
        lambda: (
            _cache(dep["data"])[1] and any(s == dg.DagsterRunStatus.STARTED for s in _snapshot(dep)["runs"].values())
        ),
        240,
        dep,
        interval=0.5,
    )
    time.sleep(1.0)
    killed = _kill_tree(stack.pid, stack)
    before = _snapshot(dep)
    stuck = {r for r, s in before["runs"].items() if s in UNFINISHED}
    print(
        f"\nkilled {killed} processes {time.monotonic() - started:.0f} s after the start; runs "
        f"{sorted(s.value for s in before['runs'].values())}; mineru slots held by {len(before['slots'])} runs; "
        f"files {sorted(st for st, _ in before['files'].values())}"
    )
    assert stuck and before["slots"] <= stuck, "the kill did not leave a run holding a slot"
    # Nothing running now: status already says these runs' workers died (not "pending").
    for _name, (state, detail) in before["files"].items():
        if state in ("retrying", "failed") and WORKER_DIED in detail:
            break
    else:
        pytest.fail(f"status does not say a worker died: {before['files']}")

    restarted = time.monotonic()
    _start_stack(dep)
    ended: dict[str, float] = {}  # dead run → seconds after the restart it was seen ended

    def recovered():
        snap = _snapshot(dep)
        ended.update(
            {r: time.monotonic() - restarted for r in stuck if r not in ended and snap["runs"][r] not in UNFINISHED}
        )
        done = all(state in ("ingested", "failed") for state, _ in snap["files"].values())
        return snap if done and len(ended) == len(stuck) and not snap["dead"] else None

    snap = _wait("every file ingested or failed", recovered, RECOVERY_LIMIT + 30, dep, interval=2.0)
    total = time.monotonic() - restarted
    files = snap["files"]
    print(
        f"recovery after the restart: dead runs ended after {sorted(round(t) for t in ended.values())} s, "
        f"every file done after {total:.1f} s; {json.dumps({n: s for n, (s, _) in files.items()})}"
    )
    assert total <= RECOVERY_LIMIT, f"recovery took {total:.0f} s"
    assert files["scanned_small_ocr.pdf"][0] == "failed" and files["scanned_small_ocr.pdf"][1]
    for name, (state, detail) in files.items():
        assert state == "ingested" or (state == "failed" and detail), (name, state, detail)
    assert sum(state == "ingested" for state, _ in files.values()) == len(CRASH_PDFS) - 1, files
    _assert_clean(dep)
    with dg.DagsterInstance.get() as instance:
        for run_id in stuck:
            run = instance.get_run_by_id(run_id)
            assert run.status == dg.DagsterRunStatus.FAILURE, (run_id, run.status)
            messages = [event_message(e) for e in instance.all_logs(run_id, of_type=dg.DagsterEventType.RUN_FAILURE)]
            assert any(WORKER_DIED in m for m in messages), messages
    assert all(n == 1 for n in _parses_per_entry().values()), "a complete cache entry was parsed again"


def test_one_run_worker_killed_is_failed_retried_and_ingested(deployment):
    dep = deployment
    stack = _start_stack(dep)
    shutil.copy(FIXTURE_PDFS / "demo1.pdf", dep["drop"])  # 13 pages: a parse of several seconds

    def worker_parsing():
        if not _cache(dep["data"])[1]:
            return None
        with dg.DagsterInstance.get() as instance:
            for run in instance.get_runs(
                dg.RunsFilter(job_name="ingest_documents", statuses=[dg.DagsterRunStatus.STARTED])
            ):
                record = worker_record(instance, run.run_id)
                if record:
                    return run.run_id, record.pid
        return None

    run_id, pid = _wait("a run worker parsing", worker_parsing, 240, dep, interval=0.5)
    assert pid in process_tree(stack.pid), "the worker is not a process of the stack"
    killed = _kill_tree(pid)
    kill_time = time.monotonic()

    def ended():
        # Dagster tags a failed run with its retry decision just after storing the failure.
        with dg.DagsterInstance.get() as instance:
            run = instance.get_run_by_id(run_id)
            return run.is_finished and "dagster/will_retry" in run.tags

    _wait("the killed run to end and its retry to be decided", ended, 120, dep, interval=0.5)
    failed_after = time.monotonic() - kill_time
    state, detail = _snapshot(dep)["files"]["demo1.pdf"]
    assert state in ("retrying", "ingested"), (state, detail)  # never "pending", never a bare "failed"

    def ingested():
        snap = _snapshot(dep)
        return snap if snap["files"]["demo1.pdf"][0] in ("ingested", "failed") else None

    snap = _wait("the document to be ingested", ingested, RECOVERY_LIMIT, dep, interval=1.0)
    total = time.monotonic() - kill_time
    print(
        f"\none worker killed ({killed} processes): run failed after {failed_after:.1f} s, document ingested "
        f"{total:.1f} s after the kill"
    )
    assert snap["files"]["demo1.pdf"][0] == "ingested", snap["files"]
    with dg.DagsterInstance.get() as instance:
        run = instance.get_run_by_id(run_id)
        assert run.status == dg.DagsterRunStatus.FAILURE
        retries = instance.get_runs(dg.RunsFilter(tags={"dagster/parent_run_id": run_id}))
        assert [r.status for r in retries] == [dg.DagsterRunStatus.SUCCESS], retries
        assert retries[0].tags.get("dagster/retry_number") == "1"
    _assert_clean(dep)


def test_worker_check_tells_alive_gone_reused_other_host_and_never_started(tmp_path):
    """`check_worker` on hand-made records (no stack): what each verdict rests on."""
    import logging
    import uuid

    from dagster._core.events import DagsterEvent, EngineEventData
    from dagster._core.events.log import EventLogEntry

    from kb_pipeline.defs.dead_runs import HOST_TAG, end_dead_runs, worker_tags

    def started_run(
        instance, pid: int | None, recorded_ago: float = 0.0, status=dg.DagsterRunStatus.STARTED, **tags
    ) -> dg.DagsterRun:
        run = instance.add_run(
            dg.DagsterRun(
                job_name="ingest_documents", run_id=str(uuid.uuid4()), status=status, tags={**worker_tags(), **tags}
            )
        )
        if pid is not None:
            event = DagsterEvent(
                event_type_value=dg.DagsterEventType.ENGINE_EVENT.value,
                job_name=run.job_name,
                message=f"Started process for run (pid: {pid}).",
                event_specific_data=EngineEventData.in_process(pid),
            )
            instance.store_event(
                EventLogEntry(
                    error_info=None,
                    level=logging.INFO,
                    user_message="",
                    run_id=run.run_id,
                    timestamp=time.time() - recorded_ago,
                    dagster_event=event,
                    job_name=run.job_name,
                )
            )
        return run

    gone = subprocess.Popen(["true"])
    gone.wait()
    young = subprocess.Popen(["sleep", "30"])  # started after the record below was "made"
    try:
        with dg.DagsterInstance.ephemeral() as instance:
            cases = {
                "alive": started_run(instance, os.getpid()),
                "gone": started_run(instance, gone.pid),
                "reused": started_run(instance, young.pid, recorded_ago=60),
                "elsewhere": started_run(instance, gone.pid, **{HOST_TAG: "another-host"}),
                "no_pid": started_run(instance, None),
                "canceling": started_run(instance, gone.pid, status=dg.DagsterRunStatus.CANCELING),
            }
            verdicts = {name: check_worker(instance, run) for name, run in cases.items()}
            assert verdicts["alive"].dead is False
            assert verdicts["gone"].dead is True and "is gone" in verdicts["gone"].reason
            assert verdicts["reused"].dead is True and "another process" in verdicts["reused"].reason
            assert verdicts["elsewhere"].dead is None  # cannot tell from this host: left alone
            assert verdicts["no_pid"].dead is None  # STARTED moments ago, no pid yet: not judged yet
            assert all(v.reason.startswith(WORKER_DIED) for v in verdicts.values() if v.dead)

            ended = dict(end_dead_runs(instance))
            assert set(ended) == {cases[name].run_id for name in ("gone", "reused", "canceling")}
            # Being canceled, it ends canceled: what was asked for, and no retry.
            assert instance.get_run_by_id(cases["canceling"].run_id).status == dg.DagsterRunStatus.CANCELED
            for name in ("gone", "reused"):
                run = instance.get_run_by_id(cases[name].run_id)
                assert run.status == dg.DagsterRunStatus.FAILURE
                # Failed with its reason, and not as a step's failure: run retries read it as a crash.
                assert run.tags.get("dagster/failure_reason") != "STEP_FAILURE"
                (failure,) = instance.all_logs(run.run_id, of_type=dg.DagsterEventType.RUN_FAILURE)
                assert failure.message.startswith(WORKER_DIED), failure.message
            assert instance.get_run_by_id(cases["alive"].run_id).status == dg.DagsterRunStatus.STARTED
    finally:
        young.kill()
        young.wait()
