"""The routes anyone may reach: the sign-in page, signing in and out, and health.

Signing in starts a new session (a fresh id, the one the browser held ended: no fixation) and
sets it as the `kb_session` cookie: HttpOnly, SameSite=Lax, Secure when the desk is reached over
HTTPS (uvicorn takes the scheme from a proxy's X-Forwarded-Proto), expiring with the session.
Failed sign-ins are throttled per name and per address, an address by the names that failed from
it (throttle.py); the message never says which of name or password was wrong."""

from __future__ import annotations

import math
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from .auth import SESSION_COOKIE, PrincipalDep
from .dependencies import DeskDep
from .pages import local_path, render

router = APIRouter()
_WRONG = "Unknown name or wrong password."


@router.get("/health")
def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/signin")
def signin_page(request: Request, principal: PrincipalDep, next: str = "/") -> Response:
    if not principal.team:
        return RedirectResponse("/", status_code=303)  # the single-expert mode has no sign-in
    return render(request, "signin.html", next=local_path(next), message=None)


@router.post("/signin")
def sign_in(
    request: Request,
    desk: DeskDep,
    principal: PrincipalDep,
    # Empty fields are the form's to say, on the page (not a validation error's JSON).
    name: Annotated[str, Form(max_length=200)] = "",
    password: Annotated[str, Form(max_length=1000)] = "",
    next: Annotated[str, Form()] = "/",
) -> Response:
    if not name.strip() or not password:
        message = "Enter your name and your password."
        return render(request, "signin.html", status_code=422, next=local_path(next), message=message)
    # The address is the connection's, or what a trusted proxy says (app.py `_forwarded`).
    named, address = name.strip().casefold(), request.client.host if request.client else ""
    wait = desk.throttle.wait(named, address)
    if wait:
        message = f"Too many failed sign-ins: try again in {math.ceil(wait)} s."
        refused = render(request, "signin.html", status_code=429, next=local_path(next), message=message)
        refused.headers["Retry-After"] = str(math.ceil(wait))
        return refused
    account = desk.accounts.sign_in(name, password)
    if account is None:
        desk.throttle.failed(named, address)
        return render(request, "signin.html", status_code=401, next=local_path(next), message=_WRONG)
    if principal.session_id:
        desk.sessions.end(principal.session_id)
    session_id, _ = desk.sessions.start(account.id)
    response = RedirectResponse(local_path(next), status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        session_id,
        max_age=int(desk.sessions.lifetime),
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
    )
    return response


@router.post("/signout")
def sign_out(desk: DeskDep, principal: PrincipalDep) -> Response:
    if principal.session_id:
        desk.sessions.end(principal.session_id)
    response = RedirectResponse("/signin", status_code=303)
    response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="lax")
    return response
