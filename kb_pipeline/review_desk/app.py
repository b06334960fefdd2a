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

from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import quote

from fastapi import Depends, FastAPI, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware

from ..paths import DataLayout
from ..review.accounts import Accounts
from ..review.corpus import Corpus
from ..review.sessions import Sessions
from ..review.store import DecisionStore
from . import api, bulk, pages, signin, users, version_pages
from .auth import require_csrf_token
from .dependencies import Desk

_HERE = Path(__file__).parent
_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'"


async def _security_headers(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
    response = await call_next(request)
    response.headers["Content-Security-Policy"] = _CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


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


def create_app(
    layout: DataLayout,
    store: DecisionStore,
    *,
    hosts: tuple[str, ...] = ("127.0.0.1", "localhost"),
    proxy_header: str | None = None,
    sessions: Sessions | None = None,
) -> FastAPI:
    app = FastAPI(
        title="kb-pipeline review desk",
        # Served by the api router, behind its sign-in like every other route.
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        dependencies=[Depends(require_csrf_token)],
    )
    sessions = sessions or Sessions(store.engine)
    app.state.desk = Desk(Corpus(layout), store, Accounts(store.engine, sessions), sessions, proxy_header=proxy_header)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))
    app.middleware("http")(_security_headers)
    app.add_exception_handler(StarletteHTTPException, _errors)  # type: ignore[arg-type]
    app.mount("/static", StaticFiles(directory=_HERE / "static"), name="static")
    app.include_router(signin.router)
    app.include_router(pages.router)
    app.include_router(bulk.router)
    app.include_router(version_pages.router)
    app.include_router(users.router)
    app.include_router(api.router)
    return app
