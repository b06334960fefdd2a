"""One model call's accounting, as the client records it and usage.json lists it (Output
Contract v2, docs/knowledge.md): the one payload model the model client builds itself."""

from __future__ import annotations

from pydantic import BaseModel, Field


class CallUsage(BaseModel):
    """One model call's accounting; `cached_tokens` is read from the API, never estimated."""

    branch: str
    deployment: str = Field(description="the model's name")
    tier: str = Field(description="`embedded` or `endpoint`")
    prompt_tokens: int
    cached_tokens: int = Field(description="as the API reports them; 0 when it reports none")
    completion_tokens: int
    latency_s: float
    retries: int
    structured_output_mode: str
    simulated: bool = Field(description="an answer replayed from the cache, with its original call's accounting")
