"""Warm run workers (kb_pipeline/runs/warm_runs.py) on the real `make ui` stack: `dagster dev`
with the repo's dagster.yaml, the drop-folder sensor, real MinerU, real PDFs.

1. Runs the daemon launches execute in the launcher's warm workers: each run records a worker
   of the daemon, no more workers than `KB_RUN_WORKERS`, and a worker takes several runs.
2. A run terminated mid-parse (as the UI's Terminate button does, through the instance's run
   launcher) ends CANCELED, publishes no cache entry, and its worker lives on to ingest the
   next document.
3. `kb-pipeline ui` (what `make ui` runs): a dropped PDF is ingested by a warm worker of the
   stack, and SIGTERM stops the whole stack, workers included.
4. Unit: the code stamp that retires workers holding old code changes when a source file does.
"""

from __future__ import annotations

import contextlib
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
from kb_pipeline.defs.dead_runs import RUN_TAKEN, events_marked, worker_record
from kb_pipeline.defs.resources import KnowledgeBase
from kb_pipeline.processes import Worker
from kb_pipeline.runs.warm_runs import WARM_TAG, WarmRunPool, code_stamp, serves

from .conftest import FIXTURE_PDFS, REPO_ROOT, SHARED
from .deployment import free_port, make_deployment, process_tree
from .test_recovery import _assert_clean, _cache, _start_stack, _wait, deployment  # noqa: F401 — fixture

SMALL = [FIXTURE_PDFS / n for n in ("sample.pdf", "unittest_test.pdf", "chem_intro.pdf", "demo1.pdf")]
# About 20 s of parsing on one core: long enough to be terminated mid-parse.
LONG = SHARED / "corpus" / "pdfs" / "manual_pymupdf_v1_8.pdf"


def _states(dep) -> dict[str, str]:
    with dg.DagsterInstance.get() as instance:
        return {s.name: s.state for s in folder_status(dep["kb"], instance)}


def _taken_by(instance: dg.DagsterInstance, run_id: str) -> int | None:
    marks = events_marked(instance, run_id, RUN_TAKEN)
    return marks[-1][1] if marks else None


def _stack_dropped(dep, run_workers: int, pdfs: list[Path]):
    """The `make ui` stack with `run_workers` warm run workers, and `pdfs` dropped."""
    dep["env"]["KB_RUN_WORKERS"] = str(run_workers)
    stack = _start_stack(dep)
    for pdf in pdfs:
        shutil.copy(pdf, dep["drop"])
    return stack


@pytest.mark.slow
@pytest.mark.services
def test_daemon_runs_execute_in_warm_workers_that_outlive_them(deployment):  # noqa: F811
    dep = deployment
    stack = _stack_dropped(dep, 2, SMALL)
    names = {pdf.name for pdf in SMALL}
    _wait(
        "the small PDFs ingested",
        lambda: {n for n, s in _states(dep).items() if s == "ingested"} == names,
        240,
        dep,
    )
    with dg.DagsterInstance.get() as instance:
        runs = [r for r in instance.get_runs() if r.job_name == "ingest_documents"]
        taken = {r.run_id: _taken_by(instance, r.run_id) for r in runs}
        recorded = {r.run_id: worker_record(instance, r.run_id) for r in runs}
    assert len(runs) == len(SMALL)
    assert all(r.tags.get(WARM_TAG) == "true" for r in runs)
    assert all(taken.values()), f"a run not taken by a warm worker: {taken}"
    workers = set(taken.values())
    assert len(workers) <= 2, f"more workers than KB_RUN_WORKERS: {workers}"
    assert len(workers) < len(runs), "no worker took a second run"
    # The pid the health check reads is the warm worker's, and the workers live on in the stack.
    assert {r.pid for r in recorded.values() if r} == workers
    assert workers <= process_tree(stack.pid)
    _assert_clean(dep)


@pytest.mark.slow
@pytest.mark.services
def test_run_terminated_mid_parse_is_canceled_and_its_worker_lives_on(deployment):  # noqa: F811
    dep = deployment
    stack = _stack_dropped(dep, 1, [LONG])

    def parsing():
        with dg.DagsterInstance.get() as instance:
            for run in instance.get_runs():
                pid = _taken_by(instance, run.run_id)
                steps = instance.all_logs(run.run_id, of_type=dg.DagsterEventType.STEP_START)
                if pid and steps and run.status == dg.DagsterRunStatus.STARTED:
                    return run.run_id, pid
        return None

    run_id, pid = _wait("the long PDF's parse to start in a warm worker", parsing, 180, dep, interval=0.3)
    time.sleep(2)  # well inside MinerU
    with dg.DagsterInstance.get() as instance:
        # What the UI's Terminate button calls: the webserver's instance's run launcher.
        assert instance.run_launcher.terminate(run_id)

    def ended():
        with dg.DagsterInstance.get() as instance:
            run = instance.get_run_by_id(run_id)
            return run if run and run.is_finished else None

    run = _wait("the terminated run to end", ended, 60, dep, interval=0.3)
    assert run.status == dg.DagsterRunStatus.CANCELED
    finals, _temps = _cache(dep["data"])
    assert not finals, "a terminated parse published a cache entry"
    assert pid in process_tree(stack.pid), "the worker died with its run"

    shutil.copy(SMALL[0], dep["drop"])
    _wait("the next PDF ingested", lambda: _states(dep).get(SMALL[0].name) == "ingested", 120, dep)
    with dg.DagsterInstance.get() as instance:
        (next_run,) = [r for r in instance.get_runs() if r.tags.get("kb/source") == SMALL[0].name]
        assert _taken_by(instance, next_run.run_id) == pid, "the next run did not go to the same warm worker"
    _assert_clean(dep)


@pytest.mark.slow
@pytest.mark.services
def test_make_ui_ingests_a_drop_in_a_warm_worker_and_stops_cleanly(tmp_path, monkeypatch):
    """`kb-pipeline ui` started the way a supervisor or `nohup … &` starts it (SIGINT ignored)
    ingests a drop in a warm worker and stops, with all its processes, on SIGTERM."""
    dep = make_deployment(tmp_path)
    for key, value in dep.env.items():
        monkeypatch.setenv(key, value)
    log = tmp_path / "ui.log"
    with log.open("wb") as out:
        ui = subprocess.Popen(
            [str(Path(sys.executable).parent / "kb-pipeline"), "ui", "--port", str(free_port())],
            env={**os.environ, **dep.env},
            cwd=REPO_ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            # As a background job or under nohup: SIGINT ignored, which dagster dev would inherit.
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
        )
    kb = KnowledgeBase(drop_folder=str(dep.drop), data_dir=str(dep.data))
    try:
        shutil.copy(SMALL[0], dep.drop)
        deadline, state = time.monotonic() + 180, None
        while time.monotonic() < deadline and state not in ("ingested", "failed"):
            time.sleep(1)
            with dg.DagsterInstance.get() as instance:
                (status,) = folder_status(kb, instance)
            state = status.state
        assert state == "ingested", (state, log.read_text(errors="replace")[-3000:])
        with dg.DagsterInstance.get() as instance:
            (run,) = instance.get_runs()
            pid = _taken_by(instance, run.run_id)
        assert pid in process_tree(ui.pid), "the run was not taken by a warm worker of the stack"
    finally:
        ui.send_signal(signal.SIGTERM)
        try:
            code = ui.wait(timeout=90)
        except subprocess.TimeoutExpired:
            for pid in process_tree(ui.pid):  # leave no stack behind to load the tests that follow
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            raise
    assert code == 0, log.read_text(errors="replace")[-3000:]
    deadline = time.monotonic() + 30  # dagster dev's children, the warm workers among them, finish
    while (left := process_tree(ui.pid)) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not left, f"processes of the stack still alive 30 s after it stopped: {left}"


def test_code_stamp_changes_with_a_source_file(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    source = package / "mod.py"
    source.write_text("A = 1\n")
    first = code_stamp(package)
    assert code_stamp(package) == first
    source.write_text("A = 2\n")
    os.utime(source, ns=(time.time_ns(), time.time_ns() + 1_000_000))
    assert code_stamp(package) != first
    (package / "new.py").write_text("")
    assert len({first, code_stamp(package)}) == 2


def _exit_at_once(*_args) -> None:
    raise SystemExit(3)


class _BrokenStartPool(WarmRunPool):
    """Isolates the dispatcher: its workers exit before they are ready, as a worker whose
    environment is broken does; everything else (instance, runs, dispatch) is real."""

    starts = 0

    def _start_worker(self) -> Worker:
        type(self).starts += 1
        return Worker.start(_exit_at_once, _exit_at_once, name="kb-broken-run-worker")


def test_a_worker_that_cannot_start_fails_the_waiting_run_instead_of_leaving_it_waiting(tmp_path):
    import uuid

    with dg.instance_for_test(temp_dir=str(tmp_path)) as instance:
        run = instance.add_run(
            dg.DagsterRun(job_name="ingest_documents", run_id=str(uuid.uuid4()), status=dg.DagsterRunStatus.STARTING)
        )
        pool = _BrokenStartPool(1, instance, tmp_path / "mineru_home")
        try:
            pool.submit(run)
            deadline = time.monotonic() + 30
            while not (ended := instance.get_run_by_id(run.run_id)).is_finished and time.monotonic() < deadline:
                time.sleep(0.2)
            assert ended.status == dg.DagsterRunStatus.FAILURE
            time.sleep(2)
            assert _BrokenStartPool.starts == 1, "workers restarted with no run waiting"
        finally:
            pool.close()
        failure = instance.all_logs(run.run_id, of_type=dg.DagsterEventType.PIPELINE_FAILURE)
        assert "could not start" in failure[0].dagster_event.message


def test_a_pool_closed_while_its_workers_start_stops_them_at_once(tmp_path):
    """`kb-pipeline ingest` interrupted early: workers still importing hold nothing and are not
    waited for (their import of Dagster and MinerU takes seconds)."""
    with dg.instance_for_test(temp_dir=str(tmp_path)) as instance:
        pool = WarmRunPool(2, instance, tmp_path / "mineru_home")
        pool.start_workers()
        processes = [worker.process for worker, _stamp in pool._workers]
        started = time.monotonic()
        pool.close()
        assert time.monotonic() - started < 2.0
        assert all(p.exitcode is not None for p in processes), [p.exitcode for p in processes]


_START_METHODS = """
import gc, sys, threading
import dagster as dg
from kb_pipeline.runs.warm_runs import WarmRunPool

def start_method(instance):
    pool = WarmRunPool(1, instance, sys.argv[1] + "/mineru_home")
    try:
        pool.start_workers(fork=True)
        return pool._workers[0][0].process._start_method
    finally:
        pool.close()

if __name__ == "__main__":
    with dg.instance_for_test(temp_dir=sys.argv[1]) as instance:
        collector = gc.get_freeze_count(), gc.get_threshold()
        alone = start_method(instance)
        unchanged = (gc.get_freeze_count(), gc.get_threshold()) == collector
        other = threading.Event()
        thread = threading.Thread(target=other.wait)
        thread.start()
        try:
            print(alone, unchanged, start_method(instance))
        finally:
            other.set()
            thread.join()
"""


def test_workers_are_forked_from_a_process_with_one_thread_and_spawned_otherwise(tmp_path):
    """`kb-pipeline ingest` forks its workers once it has imported what they import (their
    imports are then paid once), and leaves its own collector as it was; with another thread
    running, a fork could copy a lock that thread holds, and the workers are spawned. In a
    process of its own: this one may have threads other tests left."""
    script = tmp_path / "start_methods.py"
    script.write_text(_START_METHODS)
    result = subprocess.run(
        [sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, timeout=120, cwd=REPO_ROOT
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["fork", "True", "spawn"], result.stdout


def test_warm_workers_serve_only_this_package_in_this_environment(tmp_path):
    from dagster._core.code_pointer import ModuleCodePointer
    from dagster._core.origin import JobPythonOrigin, RepositoryPythonOrigin

    def run(module: str, python: str) -> dg.DagsterRun:
        origin = RepositoryPythonOrigin(python, ModuleCodePointer(module, "defs", str(REPO_ROOT)))
        return dg.DagsterRun(job_name="ingest_documents", job_code_origin=JobPythonOrigin("ingest_documents", origin))

    other_venv = tmp_path / "venv" / "bin"
    other_venv.mkdir(parents=True)
    (other_venv / "python").symlink_to(os.path.realpath(sys.executable))  # same interpreter, other venv
    assert serves(run("kb_pipeline.definitions", sys.executable))
    assert not serves(run("someone_else.definitions", sys.executable))
    assert not serves(run("kb_pipeline_extra", sys.executable))
    assert not serves(run("kb_pipeline.definitions", str(other_venv / "python")))
    assert not serves(dg.DagsterRun(job_name="ingest_documents"))
