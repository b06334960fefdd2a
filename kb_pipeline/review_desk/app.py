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
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import quote

from fastapi import Depends, FastAPI, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..paths import DataLayout
from ..review.accounts import Accounts
from ..review.corpus import Corpus
from ..review.expert_entries import ExpertEntries
from ..review.sessions import Sessions
from ..review.store import DecisionStore
from . import api, bulk, documents, pages, signin, users, version_pages
from .auth import require_csrf_token
from .dependencies import Desk

_HERE = Path(__file__).parent
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


async def _errors(request: Request, exc: StarletteHTTPException) -> Response:
    """The API's errors as JSON; the pages' as a page, and a page's "sign in first" as the way
    to the sign-in page. Registered for Starlette's exception, which FastAPI's extends, so an
    unknown route's 404 gets a page too."""
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=exc.headers)
    if exc.status_code == 401:
        back = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/signin?next={quote(back)}", status_code=303)
    return pages.render(request, "error.html", status_code=exc.status_code, message=exc.detail)


async def _invalid(request: Request, exc: RequestValidationError) -> Response:
    """A request whose fields do not read: the API's as FastAPI's JSON, a page's as a page."""
    if request.url.path.startswith("/api/"):
        return await request_validation_exception_handler(request, exc)
    message = "; ".join(f"{'.'.join(map(str, e['loc'][1:])) or 'request'}: {e['msg']}" for e in exc.errors())
    return pages.render(request, "error.html", status_code=422, message=message)


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
