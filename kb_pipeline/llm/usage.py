"""One model call's accounting, as the client records it and usage.json lists it (Output
Contract v2, docs/knowledge.md): the one payload model the model client builds itself."""

from __future__ import annotations

from pydantic import BaseModel


class CallUsage(BaseModel):
    """One model call's accounting; `cached_tokens` is read from the API, never estimated."""

    branch: str
    deployment: str
    tier: str
    prompt_tokens: int
    cached_tokens: int
    completion_tokens: int
    latency_s: float
    retries: int
    structured_output_mode: str
    simulated: bool
