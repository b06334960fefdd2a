"""Warm local parse workers: long-lived processes that import MinerU once and parse one document
at a time, `KB_PARSE_WORKERS` of them (default: one per core).

A caller takes the next idle worker (callers queue for one, so a long document holds up only its
own worker), sends it the document, and waits for the answer or for the worker's death. The
worker runs exactly the in-process parse (`mineru_adapter.parse_in_process`) into the cache's temp
dir, so its output is byte for byte the in-process output; the parent publishes the cache entry as
before. A worker that dies mid-parse (killed, out of memory) fails only that document with a
`ParseServiceError` and is replaced; its temp dir is never published.

`mineru_adapter.parse_into` uses the pool made active with `use_pool()` (`kb-pipeline run` does).
The daemon's runs parse in their warm run worker's own process (instance/warm_runs.py).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from .errors import DocumentError, ParserError, ParseServiceError

WORKERS_ENV = "KB_PARSE_WORKERS"
_STOP_SECONDS = 10.0


def default_workers(env: Mapping[str, str] | None = None) -> int:
    value = (os.environ if env is None else env).get(WORKERS_ENV, "").strip()
    return max(1, int(value)) if value else max(1, os.cpu_count() or 1)


def to_task(source: Path, out: Path, *, config, ocr_mode: str, pdf: Path) -> tuple[str, str, str, str, str]:
    """A parse request as plain strings, for the worker's pipe (`from_task` reads it back)."""
    return str(source), str(out), config.model_dump_json(), ocr_mode, str(pdf)


def from_task(task: tuple[str, str, str, str, str]) -> dict[str, Any]:
    """The keyword arguments of `parse_in_process` (and `WorkerPool.parse`) for a `to_task`."""
    from ..config import ParserConfig

    source, out, config_json, ocr_mode, pdf = task
    return {
        "source": Path(source),
        "out": Path(out),
        "config": ParserConfig.model_validate_json(config_json),
        "ocr_mode": ocr_mode,
        "pdf": Path(pdf),
    }


def _worker_main(conn: Connection, mineru_home: str) -> None:
    """A worker's life: configure and import MinerU once, then parse what it is sent."""
    from .mineru_adapter import configure_mineru_environment, parse_in_process

    configure_mineru_environment(Path(mineru_home))
    import mineru.parser  # noqa: F401 — the import the worker exists to pay once

    conn.send(("ready", os.getpid()))
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        kwargs = from_task(task)
        try:
            summary = parse_in_process(**kwargs)
            conn.send(("ok", summary))
        except DocumentError as e:
            conn.send(("error", e))
        except Exception as e:  # noqa: BLE001 — reported to the parent, the worker lives on
            conn.send(("error", ParserError(f"MinerU failed on {kwargs['pdf'].name}: {type(e).__name__}: {e}")))


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection


class WorkerPool:
    """`n` warm MinerU processes. Thread-safe: each `parse()` call borrows one idle worker."""

    def __init__(self, n: int, mineru_home: Path):
        self._ctx = multiprocessing.get_context("spawn")
        self._home = str(mineru_home)
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: list[_Worker] = []
        self._lock = threading.Lock()
        self._n = n
        # pid → name of the PDF that worker is parsing now (for status lines and tests).
        self.busy: dict[int, str] = {}
        self._started = False
        self._closed = False

    def _start_all(self) -> None:
        """Workers start on the first parse, so a run of cache hits never starts MinerU."""
        with self._lock:
            if self._started or self._closed:
                return
            self._started = True
        for _ in range(self._n):
            self._idle.put(self._start())

    @property
    def pids(self) -> list[int | None]:
        with self._lock:
            return [w.process.pid for w in self._all if w.process.is_alive()]

    def _start(self) -> _Worker:
        parent, child = self._ctx.Pipe()
        # Not a daemon: MinerU's own render workers are children of this process.
        process = self._ctx.Process(target=_worker_main, args=(child, self._home), name="kb-parse-worker")
        process.start()
        child.close()
        worker = _Worker(process, parent)
        with self._lock:
            self._all.append(worker)
        return worker

    def _replace(self, worker: _Worker) -> None:
        worker.conn.close()
        worker.process.join(timeout=_STOP_SECONDS)
        with self._lock:
            self._all.remove(worker)

    def _answer(self, worker: _Worker) -> tuple[str, Any] | None:
        """The worker's next message, or None when it died first. Skips its start-up 'ready'."""
        while True:
            ready = wait([worker.conn, worker.process.sentinel])
            if worker.conn in ready:
                try:
                    message = worker.conn.recv()
                except (EOFError, OSError):
                    return None
                if message[0] != "ready":
                    return message
                continue
            return None

    def parse(self, source: Path, out: Path, *, config, ocr_mode: str, pdf: Path):
        """`mineru_adapter.parse_in_process` in a warm worker. Raises what it raises, or
        `ParseServiceError` when the worker died meanwhile."""
        self._start_all()
        worker = self._idle.get()
        pid = worker.process.pid or 0
        self.busy[pid] = pdf.name
        try:
            worker.conn.send(to_task(source, out, config=config, ocr_mode=ocr_mode, pdf=pdf))
            answer = self._answer(worker)
        except OSError:
            answer = None
        finally:
            self.busy.pop(pid, None)
        if answer is None:
            self._replace(worker)
            code = worker.process.exitcode
            self._idle.put(self._start())
            raise ParseServiceError(
                f"the parse worker (pid {pid}) died while parsing {pdf.name} "
                f"(exit code {code}); it was replaced, parse the document again"
            )
        self._idle.put(worker)
        status, value = answer
        if status == "ok":
            return value
        raise value

    def close(self) -> None:
        with self._lock:
            self._closed = True
            workers = list(self._all)
            self._all.clear()
        for worker in workers:
            try:
                worker.conn.send(None)
            except OSError:
                pass
        for worker in workers:
            worker.process.join(timeout=_STOP_SECONDS)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(timeout=_STOP_SECONDS)
            worker.conn.close()


_active: WorkerPool | None = None


def active_pool() -> WorkerPool | None:
    return _active


@contextmanager
def use_pool(n: int, mineru_home: Path) -> Iterator[WorkerPool]:
    """Start `n` warm workers and route this process's parses to them until the block ends."""
    global _active
    pool = WorkerPool(n, mineru_home)
    previous, _active = _active, pool
    try:
        yield pool
    finally:
        _active = previous
        pool.close()
