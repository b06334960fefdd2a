"""MinerU's own API service as the parse backend: `mineru-api`, or `mineru-router` in front of
several of them (docs/SCALING.md, "MinerU's API service").

With `KB_MINERU_API_URL` set (`Settings.mineru_api`), the parse backend (parsing/backends.py)
sends the PDF here instead of running MinerU on this machine. The service returns what `ParseResult.save()` writes (markdown.md,
middle_json.json, structured_content.json, model_output.json, images/) as a zip; the adapter
renders the content lists from that middle JSON exactly as the in-process path does, so the cache
entry is byte for byte the same and its key does not depend on where the parse ran.

Only the standard library (and pydantic) is used, and nothing here imports MinerU: a process that parses only
through the service never pays MinerU's import.
"""

from __future__ import annotations

import http.client
import io
import json
import shutil
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from .errors import ParserError, ParseServiceError

API_URL_ENV = "KB_MINERU_API_URL"
# The service's own synchronous wait is capped at 3600 s; past it, `file_parse` answers 202 and
# the task is polled.
_MAX_SYNC_WAIT = 3600
_POLL_SECONDS = 0.5
# Files of the zip the cache keeps; model_output.json is dropped, as in process.
_KEPT_TOP_LEVEL = ("markdown.md", "middle_json.json", "structured_content.json")


class MineruApi(BaseModel):
    """MinerU's API service (`mineru-api`, or `mineru-router` before several)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str
    key: str = ""  # sent as `Authorization: Bearer …` when set (`mineru-api --api-key`)
    # How long one document may take on the service (the whole request, queueing included).
    timeout_seconds: float = Field(default=1800.0, gt=0)


def _auth(api: MineruApi) -> dict[str, str]:
    return {"Authorization": f"Bearer {api.key}"} if api.key else {}


def _unreachable(url: str, what: str, e: BaseException) -> ParseServiceError:
    return ParseServiceError(
        f"MinerU API service at {url} {what} ({type(e).__name__}: {e}); check that `mineru-api` "
        f"(or `mineru-router`) runs there, or unset {API_URL_ENV} to parse locally"
    )


def _request(req: urllib.request.Request, url: str, timeout: float, what: str) -> tuple[int, str, bytes]:
    """(status, content type, body) of one request; a connection problem is a ParseServiceError."""
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:  # noqa: S310 — URL is configured
            return response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as e:
        return e.code, (e.headers.get("Content-Type", "") if e.headers else ""), e.read()
    except (urllib.error.URLError, http.client.HTTPException, OSError) as e:  # OSError: resets, timeouts
        raise _unreachable(url, what, getattr(e, "reason", e) if isinstance(e, urllib.error.URLError) else e) from e


def _error_message(body: bytes) -> str:
    """The service's reason, from a V1 error body or a failed task's file entry."""
    try:
        payload = json.loads(body)
    except ValueError:
        return body[:300].decode("utf-8", "replace")
    if isinstance(payload, dict):
        for file in payload.get("files") or []:
            error = file.get("error") if isinstance(file, dict) else None
            if error:
                return error.get("message", str(error)) if isinstance(error, dict) else str(error)
        error = payload.get("error") or payload.get("detail")
        if isinstance(error, dict):
            return str(error.get("message", error))
        if error:
            return str(error)
        if payload.get("status"):
            return f"task {payload.get('task_id', '?')} ended {payload['status']}"
    return str(payload)[:300]


def _await_task(api: MineruApi, status: dict, deadline: float) -> bytes:
    """The zip of a task `file_parse` handed back unfinished (202), polled until it ends."""
    url = api.url
    result_url = urllib.parse.urljoin(url + "/", status["result_url"].lstrip("/")) + "?response_format=zip"
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ParseServiceError(
                f"MinerU API service at {url}: task {status.get('task_id')} did not finish "
                f"within KB_MINERU_API_TIMEOUT={api.timeout_seconds:.0f} s"
            )
        code, _type, body = _request(
            urllib.request.Request(result_url, headers=_auth(api)), url, min(remaining, 60), "stopped answering"
        )
        if code == 200:
            return body
        if code != 202:
            return _raise_for(url, code, body)
        time.sleep(_POLL_SECONDS)


def _raise_for(url: str, code: int, body: bytes) -> bytes:
    reason = _error_message(body)
    if code >= 500 or code in (408, 429):
        # The service, not the document: overloaded, restarting, or an upstream of the router gone.
        raise ParseServiceError(f"MinerU API service at {url} answered HTTP {code}: {reason}")
    raise ParserError(f"MinerU API service at {url} could not parse it (HTTP {code}): {reason}")


def fetch_zip(api: MineruApi, pdf: Path, *, tier: str, ocr_mode: str, page_range: str, filename: str) -> bytes:
    """POST the PDF to `{api.url}/v1/file_parse` and return the result zip."""
    url, timeout = api.url, api.timeout_seconds
    deadline = time.monotonic() + timeout
    query = urllib.parse.urlencode(
        {
            "tier": tier,
            "ocr_mode": ocr_mode,
            "page_range": page_range,
            "response_format": "zip",
            "filename": filename,
            "wait_timeout": int(min(timeout, _MAX_SYNC_WAIT)),
        }
    )
    data = pdf.read_bytes()
    req = urllib.request.Request(
        f"{url}/v1/file_parse?{query}",
        data=data,
        method="POST",
        headers={"Content-Type": "application/octet-stream", "Content-Length": str(len(data)), **_auth(api)},
    )
    # The socket timeout bounds each wait for bytes; the service sends nothing while it parses.
    code, content_type, body = _request(req, url, timeout + 30, "is unreachable or dropped the connection")
    if code == 202:
        return _await_task(api, json.loads(body), deadline)
    if code != 200:
        return _raise_for(url, code, body)
    if not content_type.startswith("application/zip"):
        raise ParseServiceError(
            f"MinerU API service at {url} answered 200 without a zip (Content-Type {content_type!r})"
        )
    return body


def parse_via_api(
    api: MineruApi, pdf: Path, out: Path, *, tier: str, ocr_mode: str, page_range: str, filename: str
) -> None:
    """MinerU's saved output for `pdf`, parsed by the service, unpacked into `out`
    (markdown.md, middle_json.json, structured_content.json, images/; model_output.json is
    dropped as in process). Raises ParseServiceError (the service, retry later) or ParserError
    (the service could not parse this document)."""
    url = api.url
    payload = fetch_zip(api, pdf, tier=tier, ocr_mode=ocr_mode, page_range=page_range, filename=filename)
    try:
        archive = zipfile.ZipFile(io.BytesIO(payload))
    except zipfile.BadZipFile as e:
        raise ParseServiceError(f"MinerU API service at {url} sent a damaged zip for {filename} ({e})") from e
    with archive:
        names = archive.namelist()
        if "middle_json.json" not in names:
            raise ParseServiceError(
                f"MinerU API service at {url} sent a zip without middle_json.json for {filename} "
                f"(members: {', '.join(names[:8])})"
            )
        for name in names:
            member = Path(name)
            if member.is_absolute() or ".." in member.parts or name.endswith("/"):
                continue
            if not (name in _KEPT_TOP_LEVEL or (member.parts[0] == "images" and len(member.parts) == 2)):
                continue
            target = out / member
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(name) as source, target.open("wb") as sink:
                shutil.copyfileobj(source, sink)
