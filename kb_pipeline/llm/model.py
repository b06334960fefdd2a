"""A language model behind an OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, Ollama,
llama.cpp's server), asked for JSON under a JSON schema — or, when no endpoint is set, the
embedded llama.cpp server (local_server.py).

What the caller gets is an `Answer`: the parsed JSON and the call's `CallUsage`, read from the
API's own `usage` (cached prompt tokens included). What can go wrong splits in two:
- the endpoint fails (unreachable, timed out, 429/5xx after the retries, refused): `ModelFailed`,
  naming the URL and the reason — the document's extraction fails, nothing is written;
- the model answers badly (cut off at `max_tokens`, not JSON): `BadAnswer`, which the caller
  records against the one value it asked for and goes on.

Answers are kept in a content-keyed cache (`ResponseCache`): the same question to the same model
is never asked twice. A replayed answer carries its original call's usage, `simulated: true`.
"""

from __future__ import annotations

import hashlib
import json
import socket
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..files import write_text_atomically
from .endpoint import ModelEndpoint
from .local_server import LocalServer, ModelUnavailable
from .usage import CallUsage

if TYPE_CHECKING:
    # Imported where a call is made: every process that builds the definitions imports this
    # module (a second of the definitions' three is openai's import), and most never ask a model.
    import openai

STRUCTURED_OUTPUT_MODE = "json_schema"
# A Retry-After longer than this is not waited for: the call fails and the run can be retried.
_LONGEST_WAIT_SECONDS = 120.0


class ModelFailed(RuntimeError):
    """The endpoint did not answer: its URL and why."""


class BadAnswer(ValueError):
    """The endpoint answered, but not with what was asked: `raw` is what it returned."""

    def __init__(self, reason: str, raw: str) -> None:
        super().__init__(reason)
        self.raw = raw


@dataclass(frozen=True)
class Answer:
    """What came back: the JSON object, or, `content` None, a bad answer (`raw`, `problem`)."""

    content: dict[str, Any] | None
    usage: CallUsage
    raw: str = ""
    problem: str = ""
    # Whether the same question would get it again (temperature 0): a JSON object, an answer cut
    # at max_tokens or not JSON. One with no choices or stopped for another reason (a proxy, a
    # filter) may be the moment's, and is not cached.
    lasting: bool = True

    def parsed(self) -> dict[str, Any]:
        if self.content is None:
            raise BadAnswer(self.problem, self.raw)
        return self.content


class ResponseCache:
    """Answers on disk, one JSON file each, named by the hash of everything the answer depends on.
    A bad answer is kept too: at temperature 0 the same question gets it again."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Answer | None:
        try:
            stored = json.loads(self._path(key).read_text(encoding="utf-8"))
            usage = CallUsage.model_validate(stored["usage"]).model_copy(update={"simulated": True})
            return Answer(content=stored["content"], usage=usage, raw=stored["raw"], problem=stored["problem"])
        except (OSError, ValueError, KeyError, TypeError):  # absent, or not an entry this code wrote
            return None

    def put(self, key: str, answer: Answer) -> None:
        stored = {
            "content": answer.content,
            "usage": answer.usage.model_dump(mode="json"),
            "raw": answer.raw,
            "problem": answer.problem,
        }
        write_text_atomically(self._path(key), json.dumps(stored, ensure_ascii=False) + "\n")


def _listening(url: str) -> bool:
    """Whether something accepts connections at `url`'s host and port (a local server: ~0.1 ms)."""
    parts = urlsplit(url)
    try:
        socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), timeout=1.0).close()
    except OSError:
        return False
    return True


def _retry_after(error: openai.APIStatusError) -> float | None:
    """The wait the endpoint asked for: `retry-after-ms` (OpenAI) or `Retry-After` in seconds."""
    headers = error.response.headers
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return float(headers[name]) * scale
        except (KeyError, ValueError):
            continue
    return None


class LanguageModel:
    """One endpoint, its cache and (embedded) its server; a context manager that stops the
    server it started. Nothing starts until the first question the cache cannot answer."""

    def __init__(self, endpoint: ModelEndpoint, cache: ResponseCache | None = None) -> None:
        self.endpoint = endpoint
        self.cache = cache
        self._server = LocalServer(endpoint.model_file()) if endpoint.embedded else None
        self._client: openai.OpenAI | None = None
        self.identity = endpoint.identity()
        # Requests that reached the endpoint (a cached answer is not one; a retry is).
        self.calls = 0

    def __enter__(self) -> LanguageModel:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self._server is not None:
            self._server.stop()
        self._client = None

    @property
    def tier(self) -> str:
        return "embedded" if self.endpoint.embedded else "endpoint"

    def _url(self) -> str:
        if self._server is None:
            return str(self.endpoint.base_url)
        # The command's server, while it listens; gone (killed, out of memory), a server of our own.
        if self.endpoint.server_url and _listening(self.endpoint.server_url):
            return self.endpoint.server_url
        try:
            return self._server.ensure_started()
        except ModelUnavailable as error:
            raise ModelFailed(f"the embedded model ({self._server.gguf}): {error}") from error

    def _connect(self) -> openai.OpenAI:
        import openai

        url = self._url()
        if self._client is None or str(self._client.base_url).rstrip("/") != url.rstrip("/"):
            # Our own retries (they count, and honour Retry-After); the client's would hide both.
            self._client = openai.OpenAI(
                base_url=url,
                api_key=self.endpoint.api_key or "not-needed",
                max_retries=0,
                timeout=self.endpoint.timeout_seconds,
            )
        return self._client

    def ask(self, branch: str, messages: list[dict[str, str]], schema: dict[str, Any], max_tokens: int) -> Answer:
        """The answer (`parsed()` raises `BadAnswer` for a cut-off or non-JSON one); `ModelFailed`
        when the endpoint does not answer."""
        request = {
            "model": self.endpoint.deployment(),
            "messages": messages,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": f"{branch}_answer", "schema": schema, "strict": True},
            },
            "max_tokens": max_tokens,
            "temperature": 0,
        }
        key = hashlib.sha256(json.dumps([self.identity, request], sort_keys=True).encode()).hexdigest()
        if self.cache is not None and (cached := self.cache.get(key)) is not None:
            return cached
        answer = self._call(branch, request)
        if self.cache is not None and answer.lasting:
            self.cache.put(key, answer)
        return answer

    def _call(self, branch: str, request: dict[str, Any]) -> Answer:
        import openai

        retries = 0
        while True:
            client = self._connect()
            started = time.perf_counter()
            self.calls += 1
            try:
                response = client.chat.completions.create(**request)
                break
            except (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError) as error:
                wait = _retry_after(error) if isinstance(error, openai.APIStatusError) else None
                if retries >= self.endpoint.retries or (wait or 0) > _LONGEST_WAIT_SECONDS:
                    raise ModelFailed(f"model endpoint {client.base_url}: {_describe(error)}") from error
                time.sleep(wait if wait is not None else self.endpoint.retry_seconds * 2**retries)
                retries += 1
            except openai.APIError as error:
                raise ModelFailed(f"model endpoint {client.base_url}: {_describe(error)}") from error
        latency = time.perf_counter() - started
        usage = response.usage
        details = usage.prompt_tokens_details if usage else None
        record = CallUsage(
            branch=branch,
            deployment=request["model"],
            tier=self.tier,
            prompt_tokens=usage.prompt_tokens if usage else 0,
            cached_tokens=(details.cached_tokens or 0) if details else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            latency_s=round(latency, 3),
            retries=retries,
            structured_output_mode=STRUCTURED_OUTPUT_MODE,
            simulated=False,
        )
        if not response.choices:
            return Answer(None, record, "", "the answer has no choices", lasting=False)
        choice = response.choices[0]
        raw = choice.message.content or ""
        if choice.finish_reason != "stop":
            cut = choice.finish_reason == "length"
            reason = "was cut off" if cut else "stopped"
            return Answer(
                None, record, raw, f"the answer {reason} (finish_reason {choice.finish_reason!r})", lasting=cut
            )
        try:
            content = json.loads(raw)
        except ValueError:
            return Answer(None, record, raw, "the answer is not JSON")
        if not isinstance(content, dict):
            return Answer(None, record, raw, "the answer is not a JSON object")
        return Answer(content, record)


def _describe(error: openai.APIError) -> str:
    import openai

    if isinstance(error, openai.APITimeoutError):
        return "timed out"
    if isinstance(error, openai.APIConnectionError):
        cause = error.__cause__
        return f"unreachable ({cause or error})"
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}: {error.message}"
    return str(error)
