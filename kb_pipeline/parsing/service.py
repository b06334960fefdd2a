"""The local parse service: warm MinerU workers (`workers.WorkerPool`) behind a Unix socket, so
the runs the Dagster daemon launches — one short-lived process each — parse without paying
MinerU's start-up, and never more parses at once than there are workers.

`kb-pipeline ui` (`make ui`) serves one beside `dagster dev` and gives its runs the socket in
`KB_PARSE_SERVICE`; with it set, `mineru_adapter.parse_into` sends each parse here. A request
names the PDF and the cache's temp dir to fill (the service runs on the same machine and
filesystem), so the cache entry is byte for byte what an in-process parse writes, and the run
publishes it as before. Requests are Python objects over `multiprocessing.connection`, with an
HMAC handshake on a random key kept beside the socket (mode 0600).

A run whose service is gone or stops mid-parse gets a `ParseServiceError` naming the socket:
the parse step is retried per the run's policy, then fails on its own. A run that dies while
the service parses for it leaves the parse to finish unread; its temp dir is never published.
"""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path

from .errors import DocumentError, ParserError, ParseServiceError
from .workers import WorkerPool, from_task, to_task

SERVICE_ENV = "KB_PARSE_SERVICE"
_KEY_SUFFIX = ".key"
# Unix socket paths are limited to 107 bytes on Linux.
_MAX_SOCKET_PATH = 107


def service_address() -> str | None:
    """The socket of the parse service to use (KB_PARSE_SERVICE), or None."""
    return os.environ.get(SERVICE_ENV, "").strip() or None


def _key_path(address: str) -> Path:
    return Path(address + _KEY_SUFFIX)


def parse_via_service(address: str, source: Path, out: Path, *, config, ocr_mode: str, pdf: Path):
    """`mineru_adapter.parse_in_process` done by the service at `address`."""
    try:
        key = _key_path(address).read_bytes()
        conn = Client(address, family="AF_UNIX", authkey=key)
    except (OSError, EOFError) as e:
        raise ParseServiceError(
            f"the parse service at {address} ({SERVICE_ENV}) cannot be reached ({type(e).__name__}: {e}); "
            "start it with `kb-pipeline ui` (`make ui`) or unset KB_PARSE_SERVICE to parse in the run"
        ) from e
    with conn:
        try:
            conn.send(to_task(source, out, config=config, ocr_mode=ocr_mode, pdf=pdf))
            status, value = conn.recv()
        except (OSError, EOFError) as e:
            raise ParseServiceError(
                f"the parse service at {address} stopped while parsing {pdf.name} ({type(e).__name__})"
            ) from e
    if status == "ok":
        return value
    raise value


def _answer(pool: WorkerPool, conn: Connection) -> None:
    with conn:
        try:
            kwargs = from_task(conn.recv())
        except (OSError, EOFError):
            return
        try:
            answer: tuple[str, object] = ("ok", pool.parse(**kwargs))
        except (DocumentError, ParseServiceError) as e:
            answer = ("error", e)
        except Exception as e:  # noqa: BLE001 — the run gets the reason, the service lives on
            answer = ("error", ParserError(f"parse service failed on {kwargs['pdf'].name}: {type(e).__name__}: {e}"))
        try:
            conn.send(answer)
        except OSError:
            pass  # the run died meanwhile; its temp dir is never published


@contextmanager
def serving(address: Path, workers: int, mineru_home: Path) -> Iterator[WorkerPool]:
    """Serve parses on the Unix socket `address` with `workers` warm MinerU workers (started on
    the first request) until the block ends."""
    if len(str(address)) > _MAX_SOCKET_PATH:
        raise ValueError(f"socket path {address} is longer than {_MAX_SOCKET_PATH} bytes; choose a shorter one")
    address.parent.mkdir(parents=True, exist_ok=True)
    address.unlink(missing_ok=True)  # left by a service that was killed
    key = secrets.token_bytes(32)
    key_path = _key_path(str(address))
    key_path.unlink(missing_ok=True)
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key)
    pool = WorkerPool(workers, mineru_home)
    listener = Listener(str(address), family="AF_UNIX", authkey=key)
    stopping = threading.Event()

    def accept() -> None:
        while True:
            try:
                conn = listener.accept()
            except (OSError, EOFError, AuthenticationError):
                continue  # a client that failed the handshake or hung up in it
            if stopping.is_set():
                conn.close()
                return
            threading.Thread(target=_answer, args=(pool, conn), daemon=True, name="kb-parse-request").start()

    acceptor = threading.Thread(target=accept, daemon=True, name="kb-parse-service")
    acceptor.start()
    try:
        yield pool
    finally:
        stopping.set()
        with Client(str(address), family="AF_UNIX", authkey=key):  # wakes the acceptor
            pass
        acceptor.join()
        listener.close()
        pool.close()
        key_path.unlink(missing_ok=True)
        address.unlink(missing_ok=True)
