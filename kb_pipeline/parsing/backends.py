"""Where a MinerU parse runs: chosen once from the settings (`backend_for`) and passed down to
`cached_parse.parse_to_cache`, which calls `backend.parse(...)` to fill an empty cache temp dir.

- `InProcess`: MinerU in this process — a warm run worker's, for the daemon's runs.
- `WarmWorkers`: `n` warm MinerU processes (processes.WorkerPool) — `kb-pipeline run`'s, so its
  threads hash, normalise and check while the workers parse.
- `MineruService`: MinerU's API service (`KB_MINERU_API_URL`, parsing/mineru_api.py).

Every backend leaves the same files, byte for byte, and raises `DocumentError`, or
`ParseServiceError` when the backend itself failed (a worker died, the service is down). A long
document is parsed in page windows (windows.py) around a local backend; the service bounds its
own memory.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..processes import WorkerDied, WorkerPool, settle_heap
from . import mineru_api
from .config import ParserConfig
from .errors import DocumentError, ParserError, ParseServiceError
from .mineru_adapter import (
    ParseSummary,
    configure_mineru_environment,
    finish_saved_output,
    mineru_version,
    parse_in_process,
)
from .mineru_api import MineruApi


class ParseBackend(Protocol):
    # Whether MinerU runs on this machine (and a long document must go in page windows).
    local: bool

    def parse(self, source: Path, out: Path, *, config: ParserConfig, ocr_mode: str, pdf: Path) -> ParseSummary:
        """MinerU's raw output for `source` written into `out`; `pdf` is the dropped file."""
        ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class ParseTask:
    """One parse for a MinerU worker process (plain, picklable)."""

    source: Path
    out: Path
    config: ParserConfig
    ocr_mode: str
    pdf: Path


def stop_render_workers() -> None:
    """Stop the page render workers MinerU started as children of this process."""
    from docvortex.document.pdf.render_session import shutdown_pdf_render_sessions

    shutdown_pdf_render_sessions()


def warm_mineru(mineru_home: str) -> None:
    """A MinerU worker's setup: configure and import MinerU once. Its exit stops MinerU's render
    workers itself, before multiprocessing joins its children: they are daemons it would SIGTERM,
    but a process started with SIGTERM ignored (nohup, some service managers) passes that on, and
    the join then waits for ever. Finalizers with a priority run before that join."""
    from multiprocessing.util import Finalize

    configure_mineru_environment(Path(mineru_home))
    import mineru.parser  # noqa: F401 — the import the worker exists to pay once

    Finalize(None, stop_render_workers, exitpriority=10)


def warm_parse_worker(mineru_home: str) -> None:
    """A parse worker's setup (`kb-pipeline run`'s `WarmWorkers`, a long document's window
    worker): MinerU imported, then the heap settled, as a warm run worker's is
    (processes.settle_heap)."""
    warm_mineru(mineru_home)
    settle_heap()


def timed_parse(_state: None, task: ParseTask) -> tuple[ParseSummary, float]:
    """A worker's task: `parse_in_process`, timed. Errors go back as plain `DocumentError`s."""
    started = time.perf_counter()
    try:
        summary = parse_in_process(task.source, task.out, config=task.config, ocr_mode=task.ocr_mode, pdf=task.pdf)
    except DocumentError as e:
        raise type(e)(str(e)) from None
    except Exception as e:  # noqa: BLE001 — MinerU's own classes may not unpickle in the parent
        raise ParserError(f"MinerU failed on {task.pdf.name}: {type(e).__name__}: {e}") from None
    return summary, time.perf_counter() - started


@dataclass(frozen=True)
class InProcess:
    local = True

    def parse(self, source: Path, out: Path, *, config: ParserConfig, ocr_mode: str, pdf: Path) -> ParseSummary:
        return parse_in_process(source, out, config=config, ocr_mode=ocr_mode, pdf=pdf)

    def close(self) -> None:
        pass


@dataclass
class WarmWorkers:
    """`n` warm MinerU processes; a document waits for an idle one. A worker that dies mid-parse
    fails only that document (`ParseServiceError`), and is replaced; its temp dir is never
    published. Workers start on the first parse, so a run of cache hits never starts MinerU."""

    n: int
    mineru_home: Path
    local = True
    _pool: WorkerPool = field(init=False)

    def __post_init__(self) -> None:
        self._pool = WorkerPool(
            self.n, warm_parse_worker, timed_parse, (str(self.mineru_home),), name="kb-parse-worker"
        )

    @property
    def busy(self) -> dict[int, object]:
        return self._pool.busy

    def parse(self, source: Path, out: Path, *, config: ParserConfig, ocr_mode: str, pdf: Path) -> ParseSummary:
        try:
            summary, _seconds = self._pool.call(ParseTask(source, out, config, ocr_mode, pdf), holding=pdf.name)
        except WorkerDied as e:
            raise ParseServiceError(
                f"the parse worker (pid {e.pid}) died while parsing {pdf.name} "
                f"(exit code {e.exitcode}); it was replaced, parse the document again"
            ) from None
        return summary

    def close(self) -> None:
        self._pool.close()


@dataclass(frozen=True)
class MineruService:
    api: MineruApi
    local = False

    def parse(self, source: Path, out: Path, *, config: ParserConfig, ocr_mode: str, pdf: Path) -> ParseSummary:
        mineru_api.parse_via_api(
            self.api, source, out, tier=config.tier, ocr_mode=ocr_mode, page_range=config.page_range, filename=pdf.name
        )
        summary = finish_saved_output(out, config.keep_images)
        if summary.mineru_version != mineru_version():
            # The cache key names the local MinerU version; output of another one must not hide there.
            raise ParserError(
                f"MinerU API service at {self.api.url} runs MinerU {summary.mineru_version}, this pipeline "
                f"{mineru_version()}; install the same version on both"
            )
        return summary

    def close(self) -> None:
        pass


def backend_for(api: MineruApi | None, mineru_home: Path, workers: int = 1) -> ParseBackend:
    """MinerU's API service when one is configured, else `workers` warm processes, else this one."""
    if api is not None:
        return MineruService(api)
    if workers > 1:
        return WarmWorkers(workers, mineru_home)
    return InProcess()
