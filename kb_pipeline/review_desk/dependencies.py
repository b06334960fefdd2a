"""What the review desk's routes depend on: the desk's state (its corpus, its decisions store,
its accounts and sessions, its page templates and its own CSRF token), and the names of the CSRF
token's header and form field. Who is asking, and what they may do, is auth.py."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Request
from fastapi.templating import Jinja2Templates
from jinja2 import Environment, PackageLoader, select_autoescape

from ..review.accounts import Accounts
from ..review.corpus import Corpus
from ..review.sessions import Sessions
from ..review.store import DecisionStore
from .throttle import SignInThrottle

CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def _templates() -> Jinja2Templates:
    environment = Environment(
        loader=PackageLoader("kb_pipeline.review_desk", "templates"), autoescape=select_autoescape(default=True)
    )
    return Jinja2Templates(env=environment)


@dataclass(frozen=True)
class Desk:
    """One running desk: the payloads it shows, where decisions go, who may sign in, and the
    token of a request with no session (the single expert's, and the sign-in form's)."""

    corpus: Corpus
    store: DecisionStore
    accounts: Accounts
    sessions: Sessions
    throttle: SignInThrottle = field(default_factory=SignInThrottle)
    # The header an authenticating proxy names its signed-in user in (`--trust-proxy-header`).
    proxy_header: str | None = None
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
