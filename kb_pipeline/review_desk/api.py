"""The review desk's JSON API (`/api/…`, OpenAPI at /api/docs): the queue, an entry with its
decision history, a decision; and the CSRF token an API client sends back as `X-CSRF-Token`."""

from __future__ import annotations

from fastapi import APIRouter

from .corpus import QueueRow, filter_queue
from .decisions import DecisionIn, record_decision, unknown_term
from .dependencies import CSRF_HEADER, CorpusDep, DeskDep, StoreDep
from .store import Decision

router = APIRouter(prefix="/api")


@router.get("/csrf-token")
def api_csrf_token(desk: DeskDep) -> dict[str, str]:
    return {"header": CSRF_HEADER, "token": desk.csrf_token}


@router.get("/queue")
def api_queue(corpus: CorpusDep, store: StoreDep, doc: str = "", reason: str = "", state: str = "") -> list[QueueRow]:
    return filter_queue(corpus.queue(store.latest()), doc, reason, state)


@router.get("/entries/{term_id}")
def api_entry(term_id: str, corpus: CorpusDep, store: StoreDep) -> dict:
    found = corpus.entry(term_id)
    if found is None:
        raise unknown_term(corpus, term_id)
    latest = store.latest().get(term_id)
    return {
        "doc_id": found.doc_id,
        "entry": found.entry.model_dump(mode="json"),
        "review_reason": found.row.review_reason if found.row else None,
        "formulas": [f.model_dump(mode="json") for f in found.formulas],
        "rules": [r.model_dump(mode="json") for r in found.rules],
        "decision": latest.model_dump() if latest else None,
        "history": [d.model_dump() for d in store.history(term_id)],
    }


@router.post("/decisions")
def api_decide(body: DecisionIn, corpus: CorpusDep, store: StoreDep) -> Decision:
    return record_decision(corpus, store, body)
