"""Warm worker processes: the one way kb-pipeline keeps work in long-lived child processes.

Every pool of the project is built from these pieces — the warm run workers (runs/warm_runs.py:
the daemon's, and `kb-pipeline ingest`'s), the warm MinerU workers of `kb-pipeline run`
(parsing/backends.py), the page-window processes (windows.py) and the embedded model server
(llm/local_server.py) — so they share
one start handshake, one dead-worker policy and one memory give-back:

- A worker is a spawned process (not a daemon process: MinerU's render workers, spawned, are its
  children) running `serve(setup, handle)`: `setup(*args)` once, then ("ready", pid), then one
  ("ok", value) or ("error", exception) per task, until it is sent None. Freed memory is given
  back to the system after every task; a worker whose setup imported what it works with settles
  its heap (`settle_heap`: those objects out of later garbage collections).
- Or forked, where its parent has imported what `setup` imports and has one thread
  (`fork_is_safe`): `kb-pipeline ingest`'s warm run workers, which then start with Dagster, the
  definitions and MinerU in place rather than importing them again (docs/decisions.md).
- A worker that dies (killed, out of memory) fails only the task it held, with `WorkerDied`
  naming it; the pool replaces it and nothing else is touched.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import queue
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from multiprocessing.process import BaseProcess
from typing import Any

SPAWN = multiprocessing.get_context("spawn")
# Only from a process with one thread (`fork_is_safe`), whose imports the worker then shares.
FORK = multiprocessing.get_context("fork")
STOP_SECONDS = 10.0
_YOUNG_COLLECTION_ALLOCATIONS = 10_000  # Python's default: 700


class WorkerDied(Exception):
    """The worker process ended while it held a task."""

    def __init__(self, pid: int | None, exitcode: int | None):
        super().__init__(f"worker process {pid} ended (exit code {exitcode}; killed, or out of memory?)")
        self.pid, self.exitcode = pid, exitcode


def give_back_memory() -> None:
    """Return what the last task freed to the system: glibc keeps freed heap for reuse, so an idle
    worker would otherwise stay as large as its largest task made it."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:  # not glibc
        pass


def settle_heap() -> None:
    """For a worker that has imported what it works with (Dagster, MinerU, the definitions: about
    200,000 objects): fewer and shorter garbage collections from now on. Measured in a run worker
    over five runs, collections took 6–7 s of its 28–32 s of CPU (docs/PERFORMANCE.md): every
    full collection walked those objects again, and Python's default of a young collection every
    700 allocations started one every few seconds. The objects are frozen out of every later
    collection (garbage collected first, so none is kept; a fork's child then does not copy them
    by touching them either), and a young collection waits for 10,000 allocations: cyclic garbage
    waits a little longer, all of it is collected after each task (`give_back_memory`)."""
    _freeze_what_lives()
    gc.set_threshold(_YOUNG_COLLECTION_ALLOCATIONS)


def _freeze_what_lives() -> None:
    """Garbage collected first, so none is frozen with the live objects."""
    gc.collect()
    gc.freeze()


@contextmanager
def frozen_for_fork() -> Iterator[None]:
    """Around forking workers: this process's objects frozen, so each child starts with them out
    of its collections and does not copy them by walking them (`settle_heap` in its setup then
    freezes what it adds); afterwards this process's own collector is as it was — the caller may
    be a library user's process."""
    _freeze_what_lives()
    try:
        yield
    finally:
        gc.unfreeze()


def leave_heap_to_the_system() -> None:
    """For a process about to exit: keep its objects out of the interpreter's last garbage
    collections, which take seconds for the heap Dagster, pydantic and MinerU build (measured:
    3–4 s of a warm worker's or the command's exit, docs/decisions.md); the system takes the
    memory back at once. Exit handlers, threads and the modules' teardown still run."""
    gc.freeze()


def fork_is_safe() -> bool:
    """Whether a worker may be forked from this process: one Python thread only, so no lock
    another thread holds (logging's, the import system's, a database driver's) is copied held.
    The native threads of what we load (OpenBLAS's pool, Arrow's jemalloc) see a fork through
    their own at-fork handlers; SQLite connections are closed before one (runs/storage.py).
    Linux only: macOS's system libraries are not safe to fork, and Python spawns there."""
    return sys.platform == "linux" and threading.active_count() == 1


def serve(conn: Connection, setup: Callable[..., Any], handle: Callable[[Any, Any], Any], *args: Any) -> None:
    """A worker's life: `state = setup(*args)` once, then `handle(state, task)` for each task sent.
    A task's exception is sent back and the worker lives on; so does an interrupt (Ctrl-C, or
    a run being cancelled) that arrives between tasks."""
    try:
        _serve(conn, setup, handle, *args)
    finally:
        leave_heap_to_the_system()


def _serve(conn: Connection, setup: Callable[..., Any], handle: Callable[[Any, Any], Any], *args: Any) -> None:
    state = setup(*args)
    conn.send(("ready", os.getpid()))
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        except KeyboardInterrupt:
            continue
        if task is None:
            return
        try:
            answer: tuple[str, Any] = ("ok", handle(state, task))
        except BaseException as e:  # noqa: BLE001 — reported to the parent, the worker lives on
            answer = ("error", e if isinstance(e, Exception) else RuntimeError(f"{type(e).__name__} in the worker"))
        give_back_memory()
        try:
            conn.send(answer)
        except (EOFError, OSError):
            return


@dataclass
class Worker:
    """The parent's end of one worker process."""

    process: BaseProcess
    conn: Connection
    ready: bool = False
    tasks: int = 0
    # What the owner hands out with it (a run id, a document name), for status lines and health.
    holding: Any = None

    @classmethod
    def start(
        cls,
        setup: Callable[..., Any],
        handle: Callable[[Any, Any], Any],
        *args: Any,
        name: str,
        context: BaseContext = SPAWN,
    ) -> Worker:
        if context is FORK:  # what this process printed but did not write yet would be written twice
            sys.stdout.flush()
            sys.stderr.flush()
        parent, child = context.Pipe()
        process = context.Process(target=serve, args=(child, setup, handle, *args), name=name)  # type: ignore[attr-defined]
        process.start()
        child.close()
        return cls(process, parent)

    @property
    def pid(self) -> int | None:
        return self.process.pid

    def send(self, task: Any) -> None:
        self.tasks += 1
        self.conn.send(task)

    def receive(self) -> tuple[str, Any] | None:
        """The next message, or None when the worker died first."""
        try:
            message = self.conn.recv()
        except (EOFError, OSError):
            return None
        if message[0] == "ready":
            self.ready = True
        return message

    def answer(self) -> tuple[str, Any] | None:
        """Wait for the answer to the task sent (skipping the start-up 'ready'); None if it died."""
        while True:
            if self.conn not in wait([self.conn, self.process.sentinel]):
                return None
            message = self.receive()
            if message is None or message[0] != "ready":
                return message

    def call(self, task: Any) -> Any:
        """Send `task` and return its value; raise its error, or `WorkerDied`."""
        try:
            self.send(task)
            message = self.answer()
        except OSError:
            message = None
        if message is None:
            self.reap()
            raise WorkerDied(self.pid, self.process.exitcode)
        status, value = message
        if status == "ok":
            return value
        raise value

    def reap(self) -> None:
        """Collect a dead worker, so no zombie keeps its pid alive."""
        self.process.join(timeout=STOP_SECONDS)
        self.conn.close()

    def stop(self) -> None:
        """Ask the worker to exit after its task (`join` waits for it)."""
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.conn.close()

    def join(self) -> None:
        """Wait for a stopped worker's exit; kill it if it is not gone within STOP_SECONDS."""
        self.process.join(timeout=STOP_SECONDS)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=STOP_SECONDS)


@dataclass
class WorkerPool:
    """`n` workers for blocking calls from any number of threads: each `call` borrows an idle
    worker (waiting for one), so a long task holds up only its own worker. A worker starts when
    its slot is first needed (a run of cache hits starts none); one that has run `max_tasks`
    tasks, or died, leaves its slot empty for the next call to fill."""

    n: int
    setup: Callable[..., Any]
    handle: Callable[[Any, Any], Any]
    args: tuple = ()
    name: str = "kb-worker"
    max_tasks: int | None = None
    # An idle worker, or None for an empty slot.
    _idle: queue.Queue[Worker | None] = field(default_factory=queue.Queue)
    _all: list[Worker] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _closed: bool = False

    def __post_init__(self) -> None:
        for _ in range(self.n):
            self._idle.put(None)

    def _take(self) -> Worker:
        worker = self._idle.get()
        if worker is not None:
            return worker
        worker = Worker.start(self.setup, self.handle, *self.args, name=self.name)
        with self._lock:
            if self._closed:
                worker.stop()
                raise RuntimeError("the worker pool is closed")
            self._all.append(worker)
        return worker

    def _drop(self, worker: Worker) -> None:
        with self._lock:
            if worker in self._all:
                self._all.remove(worker)

    @property
    def busy(self) -> dict[int, Any]:
        """pid → what each busy worker holds."""
        with self._lock:
            return {w.pid or 0: w.holding for w in self._all if w.holding is not None}

    def call(self, task: Any, holding: Any = None) -> Any:
        """`handle(state, task)` in a worker. Raises what it raises, or `WorkerDied` when the worker
        died meanwhile (it is replaced)."""
        worker = self._take()
        worker.holding = holding if holding is not None else True
        died = False
        try:
            return worker.call(task)
        except WorkerDied:
            died = True
            raise
        finally:
            worker.holding = None
            if died or (self.max_tasks is not None and worker.tasks >= self.max_tasks):
                self._drop(worker)
                if not died:
                    worker.stop()
                    worker.join()
                self._idle.put(None)
            else:
                self._idle.put(worker)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            workers, self._all = self._all, []
        for worker in workers:
            worker.stop()
        for worker in workers:
            worker.join()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
