"""Bulk work, stored as one decision per entry, so the audit trail stays per entry and each is
decided again on its own page:
- the entries a reviewer selected in the queue, approved or rejected at once (one reason for all
  the rejections); each is decided on the text the queue showed, an entry changed since is left
  alone and listed;
- "approve every routine confirmation of this document", after a confirmation page that lists
  them: only what it showed is approved. An admin's (the single expert's, without accounts)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from ..review.corpus import QueueRow
from ..review.items import ROUTINE
from ..review.reattach import current_decisions
from .auth import Principal, PrincipalDep, require
from .decisions import DecisionIn, as_sentences, record_decision
from .dependencies import CorpusDep, StoreDep
from .pages import form_fields, form_reviewer, local_path, render

router = APIRouter(dependencies=[require("reviewer")])


# The text each queue row showed, sent beside the selection: "seen.<id>".
SEEN = "seen."


@router.post("/decisions/bulk")
def decide_selected(
    request: Request,
    principal: PrincipalDep,
    corpus: CorpusDep,
    store: StoreDep,
    seen: Annotated[dict[str, str], Depends(form_fields(SEEN))],
    decision: Annotated[Literal["approve", "reject"], Form()],
    ids: Annotated[list[str] | None, Form()] = None,
    reason: Annotated[str | None, Form()] = None,
    back: Annotated[str, Form()] = "/",
) -> Response:
    """The queue's selected entries approved or rejected at once, each its own decision."""
    reviewer = form_reviewer(request, principal, "decision records who made it")
    if not ids:
        raise HTTPException(422, "Select the entries first (the boxes, or x on a row).")
    bodies = []
    try:
        for entry_id in dict.fromkeys(ids):
            bodies.append(
                DecisionIn(
                    entry_id=entry_id,
                    decision=decision,
                    reason=reason,
                    reviewer=reviewer or None,
                    seen_definition=seen.get(SEEN + entry_id),
                )
            )
    except ValidationError as e:
        raise HTTPException(422, as_sentences(e)) from e
    left: list[tuple[str, str]] = []
    for body in bodies:
        try:
            record_decision(corpus, store, body, principal.account)
        except HTTPException as e:  # changed since shown (409), or gone (404): that one alone
            left.append((body.entry_id, str(e.detail)))
    if left:
        return render(request, "bulk_left.html", decided=len(bodies) - len(left), left=left, back=local_path(back))
    return RedirectResponse(local_path(back), status_code=303)


def _admin(principal: Principal) -> None:
    if not principal.may_approve_in_bulk():
        raise HTTPException(403, "approving a document's routine confirmations at once needs the admin role")


def routine_pending(rows: list[QueueRow], doc_id: str) -> list[QueueRow]:
    """The document's pending entries, of every kind, whose review reason is routine confirmation."""
    return [
        r for r in rows if r.doc_id == doc_id and r.state == "pending" and r.item and r.item.review_reason == ROUTINE
    ]


@router.get("/documents/{doc_id}/approve-routine", response_class=HTMLResponse)
def confirm_page(
    request: Request, doc_id: str, principal: PrincipalDep, corpus: CorpusDep, store: StoreDep
) -> HTMLResponse:
    _admin(principal)
    if doc_id not in corpus.documents():
        raise HTTPException(404, f"unknown document {doc_id!r}")
    rows = routine_pending(corpus.queue(current_decisions(corpus, store), "all"), doc_id)
    return render(request, "bulk.html", doc_id=doc_id, rows=rows)


@router.post("/documents/{doc_id}/approve-routine")
def approve_routine(
    request: Request,
    doc_id: str,
    principal: PrincipalDep,
    corpus: CorpusDep,
    store: StoreDep,
    ids: Annotated[list[str], Form()],
) -> Response:
    _admin(principal)
    reviewer = form_reviewer(request, principal, "decision records who made it")
    shown = set(ids)
    for row in routine_pending(corpus.queue(current_decisions(corpus, store), "all"), doc_id):
        if row.entry_id in shown and row.item is not None:
            body = DecisionIn(
                entry_id=row.entry_id,
                decision="approve",
                reviewer=reviewer or None,
                seen_definition=row.item.text or "",
            )
            record_decision(corpus, store, body, principal.account)
    return RedirectResponse(f"/?kind=all&doc={doc_id}", status_code=303)
