"""Warm run workers: runs execute in long-lived processes (processes.Worker) that have Dagster,
kb-pipeline's definitions and MinerU imported already, instead of a fresh process per run (about
2.5 s of CPU on a 2-core machine, more than a short document's parse). The run launcher uses them
for the daemon's runs, `kb-pipeline ingest` for its own; a run that finds no idle worker waits,
in order, STARTING. A worker executes a run as Dagster's own run worker does (`core_execute_run`),
one at a time, so partitions, pools, lineage and checks are unchanged. How health (recorded pids,
`dead_runs`), termination (a polled CANCELING status, then an interrupt), code changes (idle
workers with old source are retired) and stopping are handled: docs/decisions.md, "Parallel
parsing on one machine".
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from multiprocessing.context import BaseContext
from pathlib import Path

import dagster as dg

# Not public: what Dagster's own run worker (`dagster api execute_run`) calls to execute a run
# (pinned by test_dagster_internals.py).
from dagster._grpc.impl import core_execute_run
from dagster._utils.hosted_user_process import recon_job_from_origin

from ..defs.dead_runs import RUN_TAKEN, RUN_WAITING, WORKER_DIED, end_dead_run
from ..parsing.backends import warm_mineru
from ..processes import FORK, SPAWN, STOP_SECONDS, Worker, fork_is_safe, frozen_for_fork, settle_heap

PACKAGE = "kb_pipeline"
WARM_TAG = "kb/warm_run_worker"
_CANCEL_POLL_SECONDS = 2.0
_STOP = (dg.DagsterRunStatus.CANCELING, dg.DagsterRunStatus.CANCELED, dg.DagsterRunStatus.FAILURE)
_log = logging.getLogger(__name__)


_PACKAGE_DIR = Path(__file__).resolve().parents[1]


def code_stamp(root: Path = _PACKAGE_DIR) -> str:
    """A digest of every source file under `root` (path, size, mtime), kb-pipeline's package by
    default: changes when the code a worker imported is no longer the code on disk."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def serves(run: dg.DagsterRun) -> bool:
    """Whether a warm worker can run this run: its code is this package, in this interpreter."""
    origin = run.job_code_origin
    if origin is None:
        return False
    pointer = origin.repository_origin.code_pointer
    # `kb-pipeline ingest`'s runs: a job its function builds (`dg.build_reconstructable_job`).
    pointer = getattr(pointer, "reconstructor_pointer", pointer)
    module = getattr(pointer, "module", None) or getattr(pointer, "python_package", None) or ""
    # The same environment (its bin directory), not merely the same interpreter binary a venv links to.
    same_python = Path(os.path.abspath(origin.executable_path)).parent == Path(os.path.abspath(sys.executable)).parent
    return same_python and (module == PACKAGE or module.startswith(PACKAGE + "."))


class _CancelWatch(threading.Thread):
    """Interrupts the worker's run once it is marked CANCELING — what Dagster's run worker does
    when the code server relays a termination request (`start_termination_thread`)."""

    def __init__(self, instance_ref) -> None:
        super().__init__(name="kb-cancel-watch", daemon=True)
        self._ref = instance_ref
        self._run_id: str | None = None
        self._lock = threading.Lock()

    def watch(self, run_id: str | None) -> None:
        with self._lock:
            self._run_id = run_id

    def run(self) -> None:
        with dg.DagsterInstance.from_ref(self._ref) as instance:
            while True:
                time.sleep(_CANCEL_POLL_SECONDS)
                with self._lock:
                    run_id = self._run_id
                if run_id is None:
                    continue
                try:
                    run = instance.get_run_by_id(run_id)
                except Exception:  # noqa: BLE001 — e.g. the database locked for a moment: next poll
                    _log.exception("warm run worker: reading run %s", run_id)
                    continue
                with self._lock:
                    # As Dagster's own watch (`_kill_on_cancel`): canceling, or already ended from
                    # outside (forced termination, run monitoring's timeouts).
                    if run is not None and run.status in _STOP and self._run_id == run_id:
                        self._run_id = None
                        # What Dagster's own watch sends its run worker on POSIX.
                        os.kill(os.getpid(), signal.SIGINT)


def _execute(instance: dg.DagsterInstance, run_id: str, watch: _CancelWatch) -> None:
    run = instance.get_run_by_id(run_id)
    if run is None or run.status not in (dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.CANCELING):
        return  # ended while it waited (e.g. judged dead); nothing to run
    if run.status == dg.DagsterRunStatus.CANCELING:
        instance.report_run_canceled(run, "Run canceled before a warm run worker took it.")
        return
    origin = run.job_code_origin
    assert origin is not None, "the launcher sends only runs with a code origin (serves)"
    pid = os.getpid()
    instance.report_engine_event(f"{RUN_TAKEN}{pid}).", run)
    watch.watch(run_id)
    # The watch's interrupt raises here even in a worker that inherited SIGINT ignored (a stack
    # started in the background). Once execution begins, Dagster's execution iterator holds it
    # until a step can stop and cancels the run; one that comes while the job loads ends the run
    # below.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        for _event in core_execute_run(recon_job_from_origin(origin), run, instance, False):
            pass
    except BaseException:  # noqa: BLE001
        # core_execute_run has written the failure or the cancellation to the event log first;
        # the worker lives on for the next run.
        pass
    finally:
        signal.signal(signal.SIGINT, previous)
        watch.watch(None)
    # A cancel that came before execution began (while the job loaded) ends the run here.
    after = instance.get_run_by_id(run_id)
    if after is not None and after.status == dg.DagsterRunStatus.CANCELING:
        instance.report_run_canceled(after, "Run canceled before its execution began.")


def preload(mineru_home: str) -> None:
    """What a worker's setup imports: the code location, MinerU and pandas (which the definitions
    import only when a table is written), once per worker (or once for the workers forked from
    this process), not once per run."""
    try:
        warm_mineru(mineru_home)
        import pandas  # noqa: F401

        import kb_pipeline.definitions  # noqa: F401
    except Exception:  # noqa: BLE001
        # Only a warm-up: a run meets the same error where Dagster reports it against the run
        # ("Could not load job definition", or its parse step's failure).
        pass


def _setup(instance_ref, mineru_home: str) -> tuple[dg.DagsterInstance, _CancelWatch]:
    """A worker's setup: the code location and MinerU imported (`preload`), the instance opened.
    A forked worker has them already; MinerU's exit handler is registered again, as a fork
    drops its parent's."""
    preload(mineru_home)
    settle_heap()
    watch = _CancelWatch(instance_ref)
    watch.start()
    return dg.DagsterInstance.from_ref(instance_ref), watch


def _run(state: tuple[dg.DagsterInstance, _CancelWatch], run_id: str) -> str:
    instance, watch = state
    try:
        _execute(instance, run_id, watch)
    except KeyboardInterrupt:  # a cancel that came as its run ended
        pass
    return run_id


@dataclass
class WarmRunPool:
    """`n` warm run workers owned by the process that launches runs. Thread-safe `submit`; one
    dispatcher thread hands runs to idle workers and watches them. Workers start on the first
    run, so a process that never launches one (the webserver) never starts any."""

    n: int
    instance: dg.DagsterInstance
    mineru_home: Path
    # Called (from the dispatcher thread) when a worker is done with a run, or a run's worker died.
    on_run_end: Callable[[], None] = lambda: None
    _waiting: deque[str] = field(default_factory=deque)
    # Each worker with the code stamp of the source it imported.
    _workers: list[tuple[Worker, str]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _thread: threading.Thread | None = None
    _closed: bool = False

    def __post_init__(self) -> None:
        self._wake_read, self._wake_write = socket.socketpair()
        # Before multiprocessing's own exit handler joins the workers: they exit once told to.
        atexit.register(self.close)

    def start_workers(self, fork: bool = False) -> None:
        """Start the `n` workers now, rather than when the first run waits. Only before the first
        run: from then on the dispatcher thread owns the workers. `fork`: this process has
        imported what a worker's setup imports (`preload`), and the workers are forked from it
        rather than spawned — when it has one thread; a worker replaced later is spawned."""
        with self._lock:
            if self._closed or self._thread is not None:
                return
            stamp = code_stamp()
            context = FORK if fork and fork_is_safe() else SPAWN
            with frozen_for_fork() if context is FORK else contextlib.nullcontext():
                self._workers = [(self._start_worker(context), stamp) for _ in range(self.n)]
            self._ensure_dispatcher()

    def _ensure_dispatcher(self) -> None:
        """Under `_lock`: the dispatcher thread, started once."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._dispatch, name="kb-warm-runs", daemon=True)
            self._thread.start()

    def submit(self, run: dg.DagsterRun) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("the warm run pool is closed")
            ahead = len(self._waiting)
        # Recorded before the run is queued, so the worker's record that follows is the latest.
        pid = os.getpid()
        self.instance.report_engine_event(f"{RUN_WAITING}{pid}); {ahead} run(s) ahead of it.", run)
        with self._lock:
            if self._closed:
                raise RuntimeError("the warm run pool is closed")
            self._waiting.append(run.run_id)
            self._ensure_dispatcher()
        self._wake()

    def _wake(self) -> None:
        try:
            self._wake_write.send(b"x")
        except OSError:
            pass

    def _assign(self) -> None:
        """Give waiting runs to idle workers (retiring those with old code), starting workers up
        to `n`. The source tree is stat'ed only when a run waits and a worker is idle or missing."""
        idle = [(w, stamp) for w, stamp in self._workers if w.ready and w.holding is None]
        if not self._waiting or not (idle or len(self._workers) < self.n):
            return
        stamp = code_stamp()
        for old in [entry for entry in idle if entry[1] != stamp]:
            old[0].stop()
            self._workers.remove(old)
            idle.remove(old)
        for worker, _stamp in idle:
            with self._lock:
                if not self._waiting:
                    return
                run_id = self._waiting.popleft()
            try:
                worker.send(run_id)
                worker.holding = run_id
            except OSError:  # it died meanwhile: the dispatcher's next look replaces it
                with self._lock:
                    self._waiting.appendleft(run_id)
                return
        # Runs still wait: all missing workers at once, as a launcher asked for one run usually
        # gets more within seconds.
        while len(self._workers) < self.n:
            self._workers.append((self._start_worker(), stamp))

    def _start_worker(self, context: BaseContext = SPAWN) -> Worker:
        return Worker.start(
            _setup, _run, self.instance.get_ref(), str(self.mineru_home), name="kb-run-worker", context=context
        )

    def _died(self, entry: tuple[Worker, str]) -> None:
        worker = entry[0]
        worker.reap()
        self._workers.remove(entry)
        run_id = worker.holding
        if not worker.ready:
            # It could not even start (broken environment or code): the next waiting run fails
            # with the reason, rather than every run waiting for a worker that never comes.
            with self._lock:
                run_id = self._waiting.popleft() if self._waiting else None
            reason = (
                f"{WORKER_DIED}: a warm run worker could not start (exit code {worker.process.exitcode}); "
                "the daemon's log has its error"
            )
        else:
            reason = (
                f"{WORKER_DIED}: warm run worker {worker.pid} on {socket.gethostname()} ended "
                f"(exit code {worker.process.exitcode}; killed, out of memory?)"
            )
        if run_id is None:
            return
        run = self.instance.get_run_by_id(run_id)
        if run is not None and not run.is_finished:
            end_dead_run(self.instance, run, reason)

    def _dispatch(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    return
            try:
                self._assign()
                workers = [w for w, _stamp in self._workers]
                ready = wait(
                    [self._wake_read] + [w.conn for w in workers] + [w.process.sentinel for w in workers], timeout=5.0
                )
                if self._wake_read in ready:
                    self._wake_read.recv(4096)
                for entry in list(self._workers):
                    worker = entry[0]
                    if worker.conn in ready:
                        message = worker.receive()
                        if message is None:
                            self._died(entry)
                            self.on_run_end()
                        elif message[0] != "ready":  # its run's answer: one run at a time
                            worker.holding = None
                            self.on_run_end()
                    elif worker.process.sentinel in ready:
                        self._died(entry)
                        self.on_run_end()
            except Exception:  # noqa: BLE001 — the dispatcher must outlive one bad turn
                _log.exception("warm run dispatcher")
                time.sleep(1.0)

    def close(self) -> None:
        """Stop dispatching; workers finish the run they hold, then exit. Runs still waiting are
        ended as dead (run retries re-launch them when runs are launched again)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            waiting = list(self._waiting)
            self._waiting.clear()
        self._wake()
        for run_id in waiting:
            run = self.instance.get_run_by_id(run_id)
            if run is not None and not run.is_finished:
                end_dead_run(
                    self.instance, run, f"{WORKER_DIED}: its launcher stopped before a warm run worker took it"
                )
        if self._thread is not None:
            self._thread.join(timeout=STOP_SECONDS)
        for worker, _stamp in self._workers:
            if worker.ready or worker.holding is not None:
                worker.stop()
            else:  # still importing, never given a run: nothing of it to wait for
                worker.process.kill()
                worker.reap()
        self._workers.clear()
        self._wake_read.close()
        self._wake_write.close()
