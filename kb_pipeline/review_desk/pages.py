"""The review desk's pages: the queue, an entry beside its source page, and the two forms (the
single expert's name, a decision). Server-rendered Jinja2; every value autoescaped. Reading
needs the viewer role, deciding the reviewer role (auth.py: checked here, on the server; the
pages only hide what the role cannot do)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

import pypdfium2 as pdfium
from fastapi import APIRouter, Depends, Form, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from ..contracts import Chunk
from ..review.completion import MARKABLE, mark, pending_when_marked
from ..review.corpus import Corpus, Entry, QueueFilter, facet_counts, next_pending
from ..review.expert_entries import FIELDS, document_chunks
from ..review.items import CONFLICT, KINDS, RULE_TYPES, VARIABLE_FIELD, current_values, field_values
from ..review.page_image import PageImage, render_page
from ..review.progress import by_kind, by_reviewer, progress
from ..review.reattach import current_decisions
from ..review.score import ratio, score
from ..review.status import STATES
from ..review.version_diff import version_diffs
from ..review.word_diff import word_diff
from .auth import Principal, PrincipalDep, principal_of, require
from .decisions import DecisionIn, as_sentences, record_decision, unknown_id
from .dependencies import CorpusDep, StoreDep, current_desk

REVIEWER_COOKIE = "kb_reviewer"

router = APIRouter(dependencies=[require("viewer")])


def form_reviewer(request: Request, principal: Principal, records: str) -> str:
    """The name a form's change is recorded under without an account (typed at the top of the
    page; "" with one): none is refused, since every change `records` who made it."""
    reviewer = request.cookies.get(REVIEWER_COOKIE, "")
    if principal.account is None and not reviewer:
        raise HTTPException(400, f"type your name first (top of the page): every {records}")
    return reviewer


def render(request: Request, name: str, status_code: int = 200, **context) -> HTMLResponse:
    """A page, with what every page needs: the asker's CSRF token for its forms, who they are
    and what they may do (the single expert: the name typed)."""
    principal = principal_of(request)
    reviewer = principal.account.name if principal.account else request.cookies.get(REVIEWER_COOKIE, "")
    return current_desk(request).templates.TemplateResponse(
        request,
        name,
        {
            "csrf_token": principal.csrf_token,
            "principal": principal,
            "reviewer": "" if principal.team and not principal.account else reviewer,
            "can_decide": principal.may("reviewer"),
            "can_bulk": principal.may_approve_in_bulk(),
            "status_code": status_code,
            **context,
        },
        status_code=status_code,
    )


def local_path(back: str) -> str:
    """`back` if it is a page of this desk, else the queue: "//host" and "/\\host" are other
    sites to a browser."""
    return back if back.startswith("/") and not back.startswith(("//", "/\\")) else "/"


@lru_cache(maxsize=64)
def _page_image(pdf: Path, mtime: float, page: int, span: str | None) -> PageImage:
    # Keyed by the file's mtime too: a re-parse that rewrote the PDF is rendered again.
    return render_page(pdf, page, span)


def cached_page_image(pdf: Path, page: int, span: str | None) -> PageImage | None:
    """Page `page` of `pdf`, `span` highlighted; None for a page past the end, or a cache copy
    gone or broken (the entry is still decidable, the document still readable)."""
    try:
        return _page_image(pdf, pdf.stat().st_mtime, page, span)
    except (IndexError, OSError, pdfium.PdfiumError):
        return None


def page_image(corpus: Corpus, found: Entry) -> PageImage | None:
    """The entry's source page with its span highlighted, whatever its kind."""
    pdf = corpus.source_pdf(found.doc_id)
    page = found.entity.provenance.page
    if pdf is None or page is None:
        return None
    return cached_page_image(pdf, page, found.entity.provenance.span)


# Rows a queue page shows: enough for a morning's decisions, few enough to load at once.
QUEUE_PAGE_SIZE = 100


@router.get("/", response_class=HTMLResponse)
def queue_page(
    request: Request,
    corpus: CorpusDep,
    store: StoreDep,
    filters: Annotated[QueueFilter, Depends()],
    page: Annotated[int, Query(ge=1)] = 1,
) -> HTMLResponse:
    decisions = current_decisions(corpus, store)
    every = corpus.queue(decisions, "all")
    rows = QueueFilter(kind=filters.kind).apply(every)  # the kind's: what the filters' counts count
    shown = filters.apply(rows)
    pages = max(1, -(-len(shown) // QUEUE_PAGE_SIZE))
    page = min(page, pages)
    first = (page - 1) * QUEUE_PAGE_SIZE
    # Decided / total per kind under the filters, whatever decision state they ask for.
    summary_filter = replace(filters, state="")
    return render(
        request,
        "queue.html",
        rows=shown[first : first + QUEUE_PAGE_SIZE],
        first=first,
        shown=len(shown),
        page=page,
        pages=pages,
        summary=by_kind(summary_filter.apply(every)),
        reviewers=by_reviewer(every),
        total=len(rows),
        counts=facet_counts(rows),
        kinds=KINDS,
        kind_counts={k: sum(r.kind == k for r in every) for k in KINDS},
        progress=progress(every),
        # The readers measured on the documents and kinds marked review complete (score.py).
        marked=(marked := pending_when_marked(store)),
        markable=MARKABLE,
        scores=score(corpus, decisions, set(marked)),
        ratio=ratio,
        # Per document: entries pending because their text changed since they were decided.
        changed=Counter(r.doc_id for r in every if r.since == "changed"),
        # Per document with versions to compare: pending because of its latest (version_diff.py).
        new_version={d: diff.pending_for_version for d, diff in version_diffs(corpus, store, decisions, every).items()},
        states=STATES,
        conflict=CONFLICT,
        filters=filters,
    )


@router.get("/entries/{entry_id}", response_class=HTMLResponse)
def entry_page(request: Request, entry_id: str, corpus: CorpusDep, store: StoreDep) -> HTMLResponse:
    decisions = current_decisions(corpus, store)
    found = corpus.entry(entry_id, decisions)
    history = store.history(entry_id)
    if found is None and not history:
        raise unknown_id(corpus, entry_id)
    kind = found.kind if found else history[-1].kind
    rows = corpus.queue(decisions, kind)
    decision = decisions.get(entry_id)
    changed = (
        word_diff(decision.extracted_definition, found.item.text)
        if found and decision and found.status.source_changed
        else None
    )
    version = corpus.content_hash(found.doc_id) if found else None
    carried = decision is not None and decision.doc_version not in (None, version) and not changed
    extracted = field_values(found.entity, found.kind) if found else {}
    return render(
        request,
        "entry.html",
        entry_id=entry_id,
        kind=kind,
        found=found,
        history=history,
        image=page_image(corpus, found) if found else None,
        # The form and the facts show the values as they stand (an edit on the text shown);
        # the extracted ones beside those it changed.
        editable=current_values(extracted, kind, None if changed else decision),
        extracted=extracted,
        multiline=("definition", "statement", "condition", "consequence", "purpose", "formula_latex"),
        rule_types=RULE_TYPES,
        variable_field=VARIABLE_FIELD,
        chunk=_chunk(corpus, found) if found else None,
        added_fields=FIELDS,
        next_entry=next_pending(rows, entry_id),
        decision=decision,
        changed=changed,
        carried=carried,
    )


def _chunk(corpus: Corpus, found: Entry) -> Chunk | None:
    """The chunk the entry is read from, to select in (the add form: documents.py)."""
    chunk_id = found.entity.provenance.chunk_id
    return next((c for c in document_chunks(corpus.layout, found.doc_id) if c.chunk_id == chunk_id), None)


@router.get("/entries/{entry_id}/page.png")
def entry_page_image(entry_id: str, corpus: CorpusDep) -> Response:
    found = corpus.entry(entry_id)
    if found is None:
        raise unknown_id(corpus, entry_id)
    image = page_image(corpus, found)
    if image is None:
        raise HTTPException(404, f"no source page for {entry_id}: the parse cache's PDF or the page is gone")
    return Response(image.png, media_type="image/png", headers={"Cache-Control": "no-store"})


@router.post("/reviewer")
def set_reviewer(name: Annotated[str, Form()], back: Annotated[str, Form()] = "/") -> Response:
    response = RedirectResponse(local_path(back), status_code=303)
    # No max-age: a browser-session cookie, the name typed once per session.
    response.set_cookie(REVIEWER_COOKIE, name.strip()[:200], httponly=True, samesite="strict")
    return response


@router.post("/review-complete", dependencies=[require("reviewer")])
def review_complete_form(
    request: Request,
    principal: PrincipalDep,
    corpus: CorpusDep,
    store: StoreDep,
    doc_id: Annotated[str, Form()],
    kind: Annotated[Literal["term", "rule", "formula"], Form()],
    complete: Annotated[bool, Form()] = True,
    confirmed: Annotated[bool, Form()] = False,
    back: Annotated[str, Form()] = "/",
) -> Response:
    """The progress table's "review complete" mark of a document and kind (or its withdrawal);
    with entries still pending, a page asks first. Back to the queue as it was filtered."""
    reviewer = principal.account.name if principal.account else request.cookies.get(REVIEWER_COOKIE, "")
    if not reviewer:
        raise HTTPException(400, "type your name first (top of the page): every mark records who made it")
    if doc_id not in corpus.documents():
        raise HTTPException(404, f"unknown document {doc_id!r}")
    rows = corpus.queue(current_decisions(corpus, store), kind)
    pending = sum(r.doc_id == doc_id and r.state == "pending" for r in rows)
    if complete and pending and not confirmed:
        return render(request, "review_complete.html", doc_id=doc_id, kind=kind, pending=pending, back=local_path(back))
    account_id = principal.account.id if principal.account else None
    mark(store, doc_id, kind, complete, reviewer, account_id, pending if complete else None)
    return RedirectResponse(local_path(back).partition("#")[0] + "#progress", status_code=303)


def form_fields(prefix: str) -> Callable[[Request], Awaitable[dict[str, str]]]:
    """A dependency: the form's fields named `prefix<something>`, by their whole names — fields
    no Form() parameter can declare (a formula's `variables.<symbol>`, a queue row's
    `seen.<id>`). The form FastAPI parsed already is cached on the request."""

    async def fields(request: Request) -> dict[str, str]:
        form = await request.form()
        return {k: v for k, v in form.multi_items() if k.startswith(prefix) and isinstance(v, str)}

    return fields


@router.post("/decisions", dependencies=[require("reviewer")])
def decide_form(
    request: Request,
    principal: PrincipalDep,
    corpus: CorpusDep,
    store: StoreDep,
    entry_id: Annotated[str, Form()],
    decision: Annotated[Literal["approve", "reject", "edit", "withdraw"], Form()],
    variables: Annotated[dict[str, str], Depends(form_fields(VARIABLE_FIELD))],
    definition: Annotated[str | None, Form()] = None,
    reason: Annotated[str | None, Form()] = None,
    seen_definition: Annotated[str | None, Form()] = None,
    # The edit form of a rule, formula or brief: its editable fields (items.EDITABLE).
    statement: Annotated[str | None, Form()] = None,
    condition: Annotated[str | None, Form()] = None,
    consequence: Annotated[str | None, Form()] = None,
    rule_type: Annotated[str | None, Form()] = None,
    name: Annotated[str | None, Form()] = None,
    formula_latex: Annotated[str | None, Form()] = None,
    unit: Annotated[str | None, Form()] = None,
    title: Annotated[str | None, Form()] = None,
    purpose: Annotated[str | None, Form()] = None,
) -> Response:
    reviewer = form_reviewer(request, principal, "decision records who made it")
    sent = {
        "statement": statement,
        "condition": condition,
        "consequence": consequence,
        "rule_type": rule_type,
        "name": name,
        "formula_latex": formula_latex,
        "unit": unit,
        "title": title,
        "purpose": purpose,
        **variables,
    }
    fields = {k: v for k, v in sent.items() if v is not None}
    try:
        body = DecisionIn(
            entry_id=entry_id,
            decision=decision,
            definition=definition,
            fields=fields if decision == "edit" and fields else None,
            reason=reason,
            reviewer=reviewer or None,
            seen_definition=seen_definition,
        )
        made = record_decision(corpus, store, body, principal.account)
    except ValidationError as e:
        raise HTTPException(422, as_sentences(e)) from e
    except ValueError as e:
        raise HTTPException(422, str(e)) from e
    following = next_pending(corpus.queue(store.latest(), made.kind), entry_id)
    return RedirectResponse(f"/entries/{following}" if following else "/", status_code=303)
