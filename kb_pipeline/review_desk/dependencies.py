"""What the review desk's routes depend on: the desk's state (its corpus, its decisions store,
its page templates and CSRF token), and the CSRF guard every state-changing request passes.

The guard is a dependency of the whole app (`create_app`), not of each route, so a POST added
later cannot forget it: a request with any method but GET, HEAD or OPTIONS is refused (403)
unless it carries the server's token, as the `X-CSRF-Token` header (the API) or the
`csrf_token` form field (the pages), and no other. A page of another origin cannot read it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, PackageLoader, select_autoescape

from .corpus import Corpus
from .store import DecisionStore

CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


def _templates() -> Jinja2Templates:
    environment = Environment(
        loader=PackageLoader("kb_pipeline.review_desk", "templates"), autoescape=select_autoescape(default=True)
    )
    return Jinja2Templates(env=environment)


@dataclass(frozen=True)
class Desk:
    """One running desk: the payloads it shows, where decisions go, and its session's token."""

    corpus: Corpus
    store: DecisionStore
    csrf_token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    templates: Jinja2Templates = field(default_factory=_templates)


def current_desk(request: Request) -> Desk:
    return request.app.state.desk


DeskDep = Annotated[Desk, Depends(current_desk)]


def current_corpus(desk: DeskDep) -> Corpus:
    return desk.corpus


def current_store(desk: DeskDep) -> DecisionStore:
    return desk.store


CorpusDep = Annotated[Corpus, Depends(current_corpus)]
StoreDep = Annotated[DecisionStore, Depends(current_store)]


async def require_csrf_token(request: Request, desk: DeskDep) -> None:
    if request.method in SAFE_METHODS:
        return
    tokens: list[object] = [request.headers[CSRF_HEADER]] if CSRF_HEADER in request.headers else []
    if request.headers.get("content-type", "").startswith(_FORM_TYPES):
        form = await request.form()  # the form FastAPI parsed already: cached on the request
        tokens += [form[CSRF_FIELD]] if CSRF_FIELD in form else []
    # Every token sent must be the server's. As bytes: compare_digest refuses a str with
    # non-ASCII characters (a forged header may have them).
    if not tokens or not all(
        isinstance(token, str) and secrets.compare_digest(token.encode(), desk.csrf_token.encode()) for token in tokens
    ):
        raise HTTPException(
            403,
            "missing or stale CSRF token: reload the page (API: send the X-CSRF-Token header, GET /api/csrf-token)",
        )
