"""Bulk work (issue 27, item 4): "approve every routine confirmation of this document", after a
confirmation page that lists them. Stored as one decision per entry, so the audit trail stays
per entry; only what the confirmation page showed is approved (an entry that changed or was
decided since is left alone). An admin's (the single expert's, without accounts): one click
decides many entries."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ..review.corpus import QueueRow
from ..review.items import ROUTINE
from ..review.reattach import current_decisions
from .auth import Principal, PrincipalDep, require
from .decisions import DecisionIn, record_decision
from .dependencies import CorpusDep, StoreDep
from .pages import form_reviewer, render

router = APIRouter(dependencies=[require("reviewer")])


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
        if row.term_id in shown and row.item is not None:
            body = DecisionIn(
                term_id=row.term_id, decision="approve", reviewer=reviewer or None, seen_definition=row.item.text or ""
            )
            record_decision(corpus, store, body, principal.account)
    return RedirectResponse(f"/?kind=all&doc={doc_id}", status_code=303)
