"""The review desk's web app (FastAPI, server-rendered Jinja2 pages, a JSON API beside them):
`create_app` assembles the desk's state, its safety layers and its routers (`signin`: the only
routes open to anyone; `pages`, `api`: the viewer role, deciding the reviewer role; `users`:
admins).

Safety (docs/review.md): no accounts, bound to 127.0.0.1 by the CLI; with accounts, a session or
an API token on every other route (auth.py); the Host header must name this machine (a
DNS-rebinding page cannot reach it under its own name); every write carries the asker's CSRF
token, checked by one app-wide dependency (`auth.require_csrf_token`) that no route can leave
out; Jinja2 autoescapes every value and the Content Security Policy runs no inline script, so a
definition containing `<script>` is text.

Bodies (`_BodyGuard`, before any route reads one): the asker is signed in first, then the body
is at most MAX_BODY_BYTES (413) and, as JSON or a form, text (UTF-8, no lone surrogate: 422
naming the field and the character); an error shows at most a short excerpt of what was sent.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from fastapi import Depends, FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..paths import DataLayout
from ..review.accounts import Accounts
from ..review.corpus import Corpus
from ..review.expert_entries import ExpertEntries
from ..review.sessions import Sessions
from ..review.store import DecisionStore
from . import api, bulk, documents, pages, signin, users, version_pages
from .auth import principal_of, refusal, require_csrf_token
from .dependencies import SAFE_METHODS, Desk
from .request_bodies import form_not_text, json_not_text

_HERE = Path(__file__).parent
# The largest request body the desk reads: a decision or an added entry (each field at most
# decisions.FIELD_LENGTH characters, a few bytes each, percent-encoded in a form) is far below
# it; a client cannot make the desk hold more than this of what it sends.
MAX_BODY_BYTES = 1024 * 1024
# The most of a client's input an error shows back: enough to recognise it, never the body again.
EXCERPT_CHARACTERS = 100
# An error's whole message (a 4xx's detail may quote what was sent: an unknown id, a span).
ERROR_CHARACTERS = 500
_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'"


async def _security_headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
    response = await call_next(request)
    response.headers["Content-Security-Policy"] = _CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    if not request.url.path.startswith("/static/"):
        # Pages and answers hold what a signed-in person may read: no cache (a shared machine's,
        # a proxy's) keeps them past the session.
        response.headers["Cache-Control"] = "no-store"
    return response


def host_name(header: str) -> str:
    """A Host header's host, without its port; an IPv6 address keeps its brackets
    ("[::1]:8040" → "[::1]"), which Starlette's TrustedHostMiddleware cuts at the first colon."""
    return header.partition("]")[0] + "]" if header.startswith("[") else header.partition(":")[0]


def _from_loopback(request: Request) -> bool:
    try:
        return request.client is not None and ipaddress.ip_address(request.client.host).is_loopback
    except ValueError:
        return False


def _forwarded(
    trust_address: bool,
) -> Callable[[Request, Callable[[Request], Awaitable[Response]]], Awaitable[Response]]:
    """What a TLS proxy on this machine says of the client (the CLI turns uvicorn's own reading
    off): the scheme (`X-Forwarded-Proto`, so cookies are Secure) always, the address
    (`X-Forwarded-For`) only when the desk trusts its proxy (`--trust-forwarded-for`,
    `--trust-proxy-header`) — else any local process could name a new address per attempt and
    the throttle would count per name alone."""

    async def middleware(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        if _from_loopback(request):
            proto = request.headers.get("x-forwarded-proto", "").strip().lower()
            if proto in ("http", "https"):
                request.scope["scheme"] = proto
            address = request.headers.get("x-forwarded-for", "").rpartition(",")[2].strip()
            if trust_address and address:
                request.scope["client"] = (address, 0)
        return await call_next(request)

    return middleware


def _excerpt(text: str, limit: int = EXCERPT_CHARACTERS) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


async def _errors(request: Request, exc: StarletteHTTPException) -> Response:
    """The API's errors as JSON; the pages' as a page, and a page's "sign in first" as the way
    to the sign-in page. Registered for Starlette's exception, which FastAPI's extends, so an
    unknown route's 404 gets a page too. A detail quoting what was sent is cut short."""
    detail = _excerpt(exc.detail, ERROR_CHARACTERS) if isinstance(exc.detail, str) else exc.detail
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": detail}, status_code=exc.status_code, headers=exc.headers)
    if exc.status_code == 401:
        back = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/signin?next={quote(back)}", status_code=303)
    return pages.render(request, "error.html", status_code=exc.status_code, message=detail)


def _shown(error: dict[str, Any]) -> dict[str, Any]:
    """A validation error as a 422 tells it: where, what, why (`ctx`: a JSON decode error's
    reason, a field's limit), and of the input a short excerpt of one value at most (a missing
    field's input is the whole body: not shown)."""
    shown: dict[str, Any] = {"type": error["type"], "loc": list(error["loc"]), "msg": error["msg"]}
    if "input" in error and not isinstance(error["input"], dict | list):
        shown["input"] = _excerpt(str(error["input"]))
    if "ctx" in error:
        shown["ctx"] = {key: _excerpt(str(value)) for key, value in error["ctx"].items()}
    return shown


async def _invalid(request: Request, exc: RequestValidationError) -> Response:
    """A request whose fields do not read: the API's as FastAPI's JSON (a `detail` list of
    `type`, `loc`, `msg`, `input`), a page's as a page."""
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": [_shown(e) for e in exc.errors()]}, status_code=422)
    message = "; ".join(f"{'.'.join(map(str, e['loc'][1:])) or 'request'}: {e['msg']}" for e in exc.errors())
    return pages.render(request, "error.html", status_code=422, message=message)


def _open_to_anyone(scope: Scope) -> bool:
    return any(route.matches(scope)[0] is Match.FULL for route in signin.router.routes)


async def _checked_body(request: Request) -> bytes | Response:
    """The body of `request` (a method that may carry one), or the answer refusing it."""
    if not _open_to_anyone(request.scope) and (refused := refusal(principal_of(request), "viewer")):
        return await _errors(request, refused)  # before a byte of the body is read
    too_large = HTTPException(413, f"the request body is larger than {MAX_BODY_BYTES} bytes, the most the desk reads")
    if int(request.headers.get("content-length") or 0) > MAX_BODY_BYTES:
        return await _errors(request, too_large)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:  # a chunked body says no length: counted as it comes
            return await _errors(request, too_large)
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type == "application/json" or media_type.startswith("application/") and media_type.endswith("+json"):
        error = json_not_text(bytes(body))
    elif media_type == "application/x-www-form-urlencoded":
        error = form_not_text(bytes(body))
    else:
        error = None
    return await _invalid(request, RequestValidationError([error])) if error else bytes(body)


class _BodyGuard:
    """A request that may carry a body, before any route reads it: from a signed-in asker
    unless its route is open to anyone (an anonymous body is never read: it gets the 401 of any
    anonymous request), at most MAX_BODY_BYTES (413, read no further), and, as JSON or a form,
    text (422 naming the field and the character) — so no route fails encoding what it echoes,
    nor stores a character other than the one sent. The body read is handed on to the app."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        checked = await _checked_body(Request(scope, receive))
        if isinstance(checked, Response):
            await checked(scope, receive, send)
            return
        unread: list[Message] = [{"type": "http.request", "body": checked, "more_body": False}]

        async def replay() -> Message:
            return unread.pop() if unread else await receive()

        await self.app(scope, replay, send)


def create_app(
    layout: DataLayout,
    store: DecisionStore,
    *,
    hosts: tuple[str, ...] = ("127.0.0.1", "localhost"),
    proxy_header: str | None = None,
    trust_forwarded_for: bool = False,
    sessions: Sessions | None = None,
) -> FastAPI:
    """The desk over `layout`'s payloads and `store`'s decisions, answering the Host names
    `hosts`; `proxy_header` the user header of a trusted sign-in proxy; `trust_forwarded_for`:
    the client's address is what a proxy on this machine says (X-Forwarded-For), implied by
    `proxy_header`."""
    app = FastAPI(
        title="kb-pipeline review desk",
        # Served by the api router, behind its sign-in like every other route.
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        dependencies=[Depends(require_csrf_token)],
    )
    sessions = sessions or Sessions(store.engine)
    app.state.desk = Desk(
        Corpus(layout, ExpertEntries(store)),
        store,
        Accounts(store.engine, sessions),
        sessions,
        proxy_header=proxy_header,
    )
    # Innermost: a request reaches it past the Host check, with the scheme a proxy says.
    app.add_middleware(_BodyGuard)
    app.middleware("http")(_security_headers)
    app.middleware("http")(_forwarded(trust_address=trust_forwarded_for or proxy_header is not None))

    @app.middleware("http")
    async def trusted_host(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        if host_name(request.headers.get("host", "")) not in hosts:
            return PlainTextResponse("Invalid host header", status_code=400)
        return await call_next(request)

    app.add_exception_handler(StarletteHTTPException, _errors)  # type: ignore[arg-type]
    app.add_exception_handler(RequestValidationError, _invalid)  # type: ignore[arg-type]
    app.mount("/static", StaticFiles(directory=_HERE / "static"), name="static")
    app.include_router(signin.router)
    app.include_router(pages.router)
    app.include_router(bulk.router)
    app.include_router(documents.router)
    app.include_router(version_pages.router)
    app.include_router(users.router)
    app.include_router(api.router)
    return app
