"""The review desk's JSON API (`/api/…`, OpenAPI at /api/docs): the queue, an entry with its
decision history, a decision, the active glossary; and the CSRF token a session's API client
sends back as `X-CSRF-Token`. With accounts, a script signs in with `Authorization: Bearer
TOKEN` (`kb-pipeline review user token NAME`) and needs no CSRF token. Reading needs the viewer
role, deciding the reviewer role."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse

from .auth import PrincipalDep, require
from .corpus import QueueRow, filter_queue
from .decisions import DecisionIn, record_decision, unknown_term
from .dependencies import CSRF_HEADER, CorpusDep, StoreDep
from .export import ActiveEntry, active_entries
from .store import Decision

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


@router.get("/active-glossary")
def api_active_glossary(corpus: CorpusDep, store: StoreDep) -> list[ActiveEntry]:
    """What `kb-pipeline glossary export` writes: the approved entries."""
    return active_entries(store, corpus)


@router.post("/decisions", dependencies=[require("reviewer")])
def api_decide(body: DecisionIn, principal: PrincipalDep, corpus: CorpusDep, store: StoreDep) -> Decision:
    return record_decision(corpus, store, body, principal.account)
