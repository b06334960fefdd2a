"""Which language model extraction asks (settings: `KB_LLM_*`). Light on purpose: the settings
import it, the client (model.py) and its `openai` import load only where a model is used."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .local_server import CONTEXT_TOKENS, SMOLLM2_FILE, default_gguf, model_name, server_version

# How much of a GGUF's head and tail its identity hashes (a 7B file is GBs: not all of it).
_SAMPLED_BYTES = 1 << 20
# The extraction steps a model can be asked in (knowledge/model/model_steps.py says what each asks).
MODEL_STEPS = ("definitions", "rules", "formulas")


class ModelEndpoint(BaseModel):
    """Which model answers: `base_url` (KB_LLM_BASE_URL) and `model` (KB_LLM_MODEL), or, when no
    URL is set, the embedded server on `gguf` (KB_LLM_GGUF; SmolLM2-135M-Instruct by default)."""

    model_config = ConfigDict(frozen=True)

    base_url: str | None = None
    model: str | None = None
    api_key: str = Field(default="", repr=False)
    # The environment variable the key came from, so Dagster config can name it, never show it.
    api_key_variable: str | None = None
    gguf: Path | None = None
    timeout_seconds: float = Field(default=120.0, gt=0)
    retries: int = Field(default=3, ge=0)
    # The first retry's wait when the endpoint names none (Retry-After); doubled each time.
    retry_seconds: float = Field(default=1.0, ge=0)
    # KB_LLM_STEPS: the extraction steps this model is asked in; None, those measured to help
    # for it (knowledge/model/model_steps.py).
    steps: list[str] | None = None
    # An embedded server already serving this GGUF, started by the command that launched the run
    # (`kb-pipeline ingest`): its steps ask it instead of each starting one (~0.6 s of CPU a
    # document). Not part of the identity: the same model answers.
    server_url: str | None = None

    @field_validator("steps")
    @classmethod
    def _known_steps(cls, steps: list[str] | None) -> list[str] | None:
        unknown = sorted(set(steps or ()) - set(MODEL_STEPS))
        if unknown:
            raise ValueError(f"unknown model step {', '.join(unknown)}: the steps are {', '.join(MODEL_STEPS)}")
        return steps

    @property
    def default_model(self) -> bool:
        """The embedded server on the shipped GGUF (no KB_LLM_GGUF, no endpoint)."""
        return self.embedded and self.gguf is None

    @property
    def embedded(self) -> bool:
        return not self.base_url

    def model_file(self) -> Path | None:
        """The GGUF the embedded server serves; None when the default is not installed (asking
        the model then fails with what to install; code that never asks it is unaffected)."""
        return self.gguf or default_gguf()

    def deployment(self) -> str:
        """The model's name as usage.json records it."""
        if self.embedded:
            return self.model or model_name(self.model_file() or Path(SMOLLM2_FILE))
        return self.model or ""

    def identity(self) -> str:
        """What an answer depends on besides the question: for a GGUF, the file (name, size, a
        hash of its first and last MiB: a re-export under the same name is another model), the
        server (xllamacpp's version) and its context size; for an endpoint, the model's name and
        URL. Part of the cache key and of the payloads' version."""
        if not self.embedded:
            return f"{self.model}@{self.base_url}"
        path = self.model_file()
        if path is None or not path.is_file():
            return f"gguf:{path.name if path else SMOLLM2_FILE}:missing"
        size = path.stat().st_size
        digest = hashlib.sha256()
        with path.open("rb") as gguf:
            digest.update(gguf.read(_SAMPLED_BYTES))
            gguf.seek(max(0, size - _SAMPLED_BYTES))
            digest.update(gguf.read(_SAMPLED_BYTES))
        return f"gguf:{path.name}:{size}:{digest.hexdigest()[:16]}:xllamacpp-{server_version()}:ctx-{CONTEXT_TOKENS}"
