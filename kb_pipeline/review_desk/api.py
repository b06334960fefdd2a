"""The review desk's JSON API (`/api/…`, OpenAPI at /api/docs): the queue, an entry with its
decision history, a decision, the active glossary; and the CSRF token a session's API client
sends back as `X-CSRF-Token`. With accounts, a script signs in with `Authorization: Bearer
TOKEN` (`kb-pipeline review user token NAME`) and needs no CSRF token. Reading needs the viewer
role, deciding the reviewer role."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from ..review.completion import complete, mark
from ..review.corpus import QueueFilter, QueueRow
from ..review.expert_entries import ExpertEntry
from ..review.export import ActiveEntry, active_entries
from ..review.progress import progress
from ..review.reattach import current_decisions
from ..review.score import KindScore, score
from ..review.store import Decision
from ..review.version_diff import version_diffs
from .added_entries import EntryIn, add_entry
from .auth import PrincipalDep, require
from .decisions import DecisionIn, record_decision, unknown_id
from .dependencies import CSRF_HEADER, CorpusDep, StoreDep

router = APIRouter(prefix="/api", dependencies=[require("viewer")])


@router.get("/csrf-token")
def api_csrf_token(principal: PrincipalDep) -> dict[str, str]:
    return {"header": CSRF_HEADER, "token": principal.csrf_token}


@router.get("/openapi.json", include_in_schema=False)
def api_openapi(request: Request) -> dict:
    return request.app.openapi()


@router.get("/docs", include_in_schema=False)
def api_docs() -> HTMLResponse:
    return get_swagger_ui_html(openapi_url="/api/openapi.json", title="kb-pipeline review desk")


@router.get("/queue")
def api_queue(corpus: CorpusDep, store: StoreDep, filters: Annotated[QueueFilter, Depends()]) -> list[QueueRow]:
    """One kind's queue (`kind=all`: every kind's), filtered; `q` searches term, full name, text."""
    return filters.apply(corpus.queue(current_decisions(corpus, store), filters.kind))


@router.get("/progress")
def api_progress(corpus: CorpusDep, store: StoreDep) -> dict[str, dict[str, tuple[int, int] | int]]:
    """Per document and kind: (decided, total); and, for a document with versions to compare,
    `pending_for_version`: its entries pending because of its latest version (version_diff.py)."""
    decisions = current_decisions(corpus, store)
    rows = corpus.queue(decisions, "all")
    counts: dict[str, dict[str, tuple[int, int] | int]] = {doc: dict(kinds) for doc, kinds in progress(rows).items()}
    for doc_id, diff in version_diffs(corpus, store, decisions, rows).items():
        counts[doc_id]["pending_for_version"] = diff.pending_for_version
    return counts


@router.get("/entries/{entry_id}")
def api_entry(entry_id: str, corpus: CorpusDep, store: StoreDep) -> dict:
    """An entry of any kind: `entry` is the payload's object (GlossaryEntry, RuleEntry,
    FormulaEntry, BriefContext), `item` the desk's view of it."""
    decisions = current_decisions(corpus, store)
    found = corpus.entry(entry_id, decisions)
    if found is None:
        raise unknown_id(corpus, entry_id)
    latest = decisions.get(entry_id)
    return {
        "doc_id": found.doc_id,
        "kind": found.kind,
        "entry": found.entity.model_dump(mode="json"),
        "item": found.item.model_dump(mode="json"),
        "review_reason": found.item.review_reason,
        "formulas": [f.model_dump(mode="json") for f in found.formulas],
        "rules": [r.model_dump(mode="json") for r in found.rules],
        "decision": latest.model_dump() if latest else None,
        "history": [d.model_dump() for d in store.history(entry_id)],
    }


@router.get("/active-glossary")
def api_active_glossary(corpus: CorpusDep, store: StoreDep) -> list[ActiveEntry]:
    """What `kb-pipeline knowledge export` writes as active_glossary.json: the approved terms."""
    return active_entries(current_decisions(corpus, store), corpus)


@router.post("/decisions", dependencies=[require("reviewer")])
def api_decide(body: DecisionIn, principal: PrincipalDep, corpus: CorpusDep, store: StoreDep) -> Decision:
    return record_decision(corpus, store, body, principal.account)


@router.post("/entries", dependencies=[require("reviewer")])
def api_add_entry(body: EntryIn, principal: PrincipalDep, corpus: CorpusDep, store: StoreDep) -> ExpertEntry:
    return add_entry(corpus, store, body, principal.account)


class CompletionIn(BaseModel):
    doc_id: str = Field(min_length=1)
    kind: Literal["term", "rule", "formula"]
    complete: bool = True
    reviewer: str | None = Field(default=None, max_length=200)


@router.post("/review-complete", dependencies=[require("reviewer")])
def api_review_complete(body: CompletionIn, principal: PrincipalDep, corpus: CorpusDep, store: StoreDep) -> dict:
    """Mark a document's entries of one kind fully reviewed (`complete: false` takes it back):
    what `kb-pipeline knowledge score` and `--format gold` read."""
    reviewer = principal.account.name if principal.account else (body.reviewer or "").strip()
    if not reviewer:
        raise HTTPException(422, "reviewer: who marked it is required (the name you go by)")
    if body.doc_id not in corpus.documents():
        raise HTTPException(404, f"unknown document {body.doc_id!r} under {corpus.layout.knowledge}")
    mark(store, body.doc_id, body.kind, body.complete, reviewer, principal.account.id if principal.account else None)
    return {"doc_id": body.doc_id, "kind": body.kind, "complete": body.complete}


@router.get("/scores")
def api_scores(corpus: CorpusDep, store: StoreDep) -> dict[str, list[dict]]:
    """What `kb-pipeline knowledge score` prints: per complete document and kind, and per kind."""
    scores = score(corpus, current_decisions(corpus, store), complete(store))
    return {"documents": [_figures(s) for s in scores.documents], "totals": [_figures(s) for s in scores.totals]}


def _figures(s: KindScore) -> dict:
    return {**asdict(s), "precision": list(s.precision), "recall": list(s.recall)}
