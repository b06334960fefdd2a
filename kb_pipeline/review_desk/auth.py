"""Who is asking, and what they may do: one code path for the desk's two modes.

- No account exists: the single-expert mode. Every request is the expert on this machine (the
  CLI binds loopback); a decision names whoever the expert typed; the CSRF token is the desk's.
- Any account exists: every route but sign-in and health needs a signed-in account, found by
  (in this order) an `Authorization: Bearer` API token, the authenticating proxy's header when
  the desk trusts one (`--trust-proxy-header`), or the session cookie. Roles are checked here,
  by a dependency of each router or route (`require`), never only in the pages. A request that
  may carry a body is asked for its account before the body is read (app.py's `_BodyGuard`): an
  anonymous one gets the 401 of any anonymous request, whatever it sent.

The CSRF guard (`require_csrf_token`) is a dependency of the whole app (`create_app`), not of
each route, so a POST added later cannot forget it: a request with any method but GET, HEAD or
OPTIONS is refused (403) unless it carries the asker's token — the session's own (so another
session's is refused), else the desk's — as the `X-CSRF-Token` header (the API) or the
`csrf_token` form field (the pages), and no other. A page of another origin cannot read it. A
request with a valid API token needs none: a browser never adds an Authorization header on its own.
"""

from __future__ import annotations

import hmac
import secrets
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request

from ..review.accounts import Account, Role
from .dependencies import CSRF_FIELD, CSRF_HEADER, SAFE_METHODS, Desk, current_desk

SESSION_COOKIE = "kb_session"
_UNKNOWN_TOKEN = "unknown or revoked API token"
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


@dataclass(frozen=True)
class Principal:
    team: bool  # accounts exist: sign-in required
    account: Account | None  # None: the single expert, or nobody signed in
    csrf_token: str
    by_token: bool = False  # an API token's request: no CSRF token needed
    session_id: str | None = None  # the cookie's value, to end it at sign-out
    proxy_user: str | None = None  # the user the trusted proxy header named
    unknown_token: bool = False  # an API token no account holds (revoked, forged): who asks is unknown

    def may(self, role: Role) -> bool:
        if not self.team:
            return role != "admin"  # no accounts: nothing to manage
        return self.account is not None and self.account.may(role)

    def may_approve_in_bulk(self) -> bool:
        """A document's routine confirmations at once (bulk.py): an admin's, or the single
        expert's (who, with no accounts, is every role but account management)."""
        return self.may("admin") if self.team else self.may("reviewer")


def _proxy_csrf_token(desk: Desk, user: str) -> str:
    """A proxy-signed-in user has no session here: their CSRF token is derived from the desk's
    secret and their name, so it is theirs alone."""
    return hmac.new(desk.csrf_token.encode(), f"proxy-user:{user}".encode(), "sha256").hexdigest()


def _bearer(request: Request) -> bool:
    return request.headers.get("authorization", "").partition(" ")[0].lower() == "bearer"


def _resolve(request: Request, desk: Desk) -> Principal:
    if not desk.accounts.exist():
        return Principal(team=False, account=None, csrf_token=desk.csrf_token)
    nobody = Principal(team=True, account=None, csrf_token=desk.csrf_token)
    if _bearer(request):
        token = request.headers["authorization"].partition(" ")[2].strip()
        account = desk.accounts.for_token(token) if token else None
        if account is None:
            return Principal(team=True, account=None, csrf_token=desk.csrf_token, unknown_token=True)
        return Principal(team=True, account=account, csrf_token=desk.csrf_token, by_token=True)
    user = request.headers.get(desk.proxy_header, "").strip() if desk.proxy_header else ""
    if user:
        account = desk.accounts.get(user)
        return Principal(
            team=True,
            account=account if account and account.enabled else None,
            csrf_token=_proxy_csrf_token(desk, user),
            proxy_user=user,
        )
    session_id = request.cookies.get(SESSION_COOKIE, "")
    session = desk.sessions.find(session_id) if session_id else None
    account = desk.accounts.by_id(session.account_id) if session else None
    if session is None or account is None or not account.enabled:
        return nobody
    return Principal(team=True, account=account, csrf_token=session.csrf_token, session_id=session_id)


def principal_of(request: Request) -> Principal:
    """Who is asking, worked out once per request (the error pages ask too)."""
    principal = getattr(request.state, "principal", None)
    if principal is None:
        principal = request.state.principal = _resolve(request, current_desk(request))
    return principal


PrincipalDep = Annotated[Principal, Depends(principal_of)]


def refusal(principal: Principal, role: Role) -> HTTPException | None:
    """Why `principal` may not do what needs `role`, None if they may: 401 for nobody signed in
    (the pages send them to the sign-in page), else 403."""
    if principal.may(role):
        return None
    if not principal.team:
        return HTTPException(
            403, "no accounts yet: create the first admin with `kb-pipeline review user add NAME --role admin`"
        )
    if principal.proxy_user is not None:
        return HTTPException(
            403,
            f"the sign-in proxy names you {principal.proxy_user!r}, and the desk has no enabled account of that "
            "name: an admin adds it (kb-pipeline review user add NAME --role viewer)",
        )
    if principal.account is None:
        message = _UNKNOWN_TOKEN if principal.unknown_token else "sign in first (API: send Authorization: Bearer TOKEN)"
        return HTTPException(401, message, headers={"WWW-Authenticate": "Bearer"})
    return HTTPException(403, f"{principal.account.name} is a {principal.account.role}: this needs the {role} role")


def require(role: Role) -> Any:
    """A dependency refusing a request whose asker's role does not include `role` (`refusal`)."""

    def check(principal: PrincipalDep) -> None:
        if (refused := refusal(principal, role)) is not None:
            raise refused

    return Depends(check)


async def require_csrf_token(request: Request, principal: PrincipalDep) -> None:
    if request.method in SAFE_METHODS or principal.by_token:
        return
    if principal.unknown_token:
        raise HTTPException(401, _UNKNOWN_TOKEN, headers={"WWW-Authenticate": "Bearer"})
    tokens: list[object] = [request.headers[CSRF_HEADER]] if CSRF_HEADER in request.headers else []
    if request.headers.get("content-type", "").startswith(_FORM_TYPES):
        form = await request.form()  # the form FastAPI parsed already: cached on the request
        tokens += [form[CSRF_FIELD]] if CSRF_FIELD in form else []
    # Every token sent must be the asker's. As bytes: compare_digest refuses a str with
    # non-ASCII characters (a forged header may have them).
    expected = principal.csrf_token.encode()
    if not tokens or not all(isinstance(t, str) and secrets.compare_digest(t.encode(), expected) for t in tokens):
        raise HTTPException(
            403,
            "missing or stale CSRF token: reload the page (API: send the X-CSRF-Token header, GET /api/csrf-token)",
        )
