"""Account management in the desk, for admins only (the router's dependency): list, add,
change a role, disable and enable, reset a password, issue and revoke API tokens — what
`kb-pipeline review user …` does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ..review.accounts import ROLES, Role
from .auth import require
from .dependencies import DeskDep
from .pages import render

router = APIRouter(prefix="/users", dependencies=[require("admin")])
NameField = Annotated[str, Form(min_length=1, max_length=200)]


def _page(
    request: Request, desk: DeskDep, new_token: str | None = None, token_owner: str | None = None
) -> HTMLResponse:
    return render(
        request, "users.html", accounts=desk.accounts.all(), roles=ROLES, new_token=new_token, token_owner=token_owner
    )


@router.get("", response_class=HTMLResponse)
def users_page(request: Request, desk: DeskDep) -> HTMLResponse:
    return _page(request, desk)


def _apply(change: Callable[[], object]) -> Response:
    """The change made, back to the list; refused (400, with the reason) as the accounts refuse it."""
    try:
        change()
    except ValueError as e:  # AccountError, or a password too short
        raise HTTPException(400, str(e)) from e
    return RedirectResponse("/users", status_code=303)


@router.post("/add")
def add_user(
    desk: DeskDep, name: NameField, role: Annotated[Role, Form()], password: Annotated[str, Form()]
) -> Response:
    return _apply(lambda: desk.accounts.add(name, role, password))


@router.post("/set-role")
def set_role(desk: DeskDep, name: NameField, role: Annotated[Role, Form()]) -> Response:
    return _apply(lambda: desk.accounts.set_role(name, role))


@router.post("/disable")
def disable_user(desk: DeskDep, name: NameField) -> Response:
    return _apply(lambda: desk.accounts.disable(name))


@router.post("/enable")
def enable_user(desk: DeskDep, name: NameField) -> Response:
    return _apply(lambda: desk.accounts.enable(name))


@router.post("/token", response_class=HTMLResponse)
def issue_token(request: Request, desk: DeskDep, name: NameField) -> HTMLResponse:
    """A new API token, shown on this page once (only its sha256 is kept)."""
    try:
        token = desk.accounts.issue_token(name)
    except ValueError as e:
        raise HTTPException(400, str(e)) from e
    return _page(request, desk, new_token=token, token_owner=name.strip())


@router.post("/revoke-tokens")
def revoke_tokens(desk: DeskDep, name: NameField) -> Response:
    return _apply(lambda: desk.accounts.revoke_tokens(name))


@router.post("/reset-password")
def reset_password(desk: DeskDep, name: NameField, password: Annotated[str, Form()]) -> Response:
    return _apply(lambda: desk.accounts.reset_password(name, password))
