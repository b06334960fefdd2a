"""A document as MinerU read it: its chunks in reading order beside the page
image, each chunk's entries linked, and the add form, through which an expert adds a term, a
rule or a formula the readers missed from a selection in a chunk (also on the entry page, under
the entry's own chunk). The keys are desk.js's: select text in a chunk, Shift+T, Shift+R or
Shift+F, fill in, Ctrl+Enter."""

from __future__ import annotations

from collections import defaultdict
from typing import Annotated

from fastapi import APIRouter, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import ValidationError

from ..review.expert_entries import FIELDS, AddedKind, document_chunks
from ..review.items import RULE_TYPES, VARIABLE_FIELD
from ..review.reattach import current_decisions
from .added_entries import EntryIn, add_entry
from .auth import PrincipalDep, require
from .dependencies import CorpusDep, StoreDep
from .pages import cached_page_image, form_reviewer, render

router = APIRouter(dependencies=[require("viewer")])


@router.get("/documents/{doc_id}", response_class=HTMLResponse)
def document_page(request: Request, doc_id: str, corpus: CorpusDep, store: StoreDep) -> HTMLResponse:
    chunks = document_chunks(corpus.layout, doc_id)
    if not chunks:
        raise HTTPException(
            404, f"unknown document {doc_id!r}: no parsed artifact at {corpus.layout.parsed_dir(doc_id)}"
        )
    entries = defaultdict(list)
    for found in corpus.items(current_decisions(corpus, store)):
        if found.item.doc_id == doc_id:
            entries[found.entity.provenance.chunk_id].append(found.item)
    return render(
        request,
        "document.html",
        doc_id=doc_id,
        chunks=chunks,
        entries=entries,
        has_pdf=corpus.source_pdf(doc_id) is not None,
        added_fields=FIELDS,  # the add form's, as on the entry page
        rule_types=RULE_TYPES,
    )


@router.get("/documents/{doc_id}/pages/{page}.png")
def document_page_image(doc_id: str, page: int, corpus: CorpusDep) -> Response:
    pdf = corpus.source_pdf(doc_id)
    image = cached_page_image(pdf, page, None) if pdf else None
    if image is None:
        raise HTTPException(404, f"no page {page + 1} of {doc_id}: the parse cache's PDF or the page is gone")
    return Response(image.png, media_type="image/png", headers={"Cache-Control": "no-store"})


def _variables(text: str) -> dict[str, str]:
    """The form's variables, one `symbol = meaning` a line, as `variables.<symbol>` fields."""
    pairs = (line.partition("=") for line in text.splitlines() if line.strip())
    return {VARIABLE_FIELD + symbol.strip(): meaning.strip() for symbol, _, meaning in pairs}


@router.post("/entries/add", dependencies=[require("reviewer")])
def add_entry_form(
    request: Request,
    principal: PrincipalDep,
    corpus: CorpusDep,
    store: StoreDep,
    doc_id: Annotated[str, Form()],
    kind: Annotated[AddedKind, Form()],
    chunk_id: Annotated[str, Form()],
    span: Annotated[str, Form()],
    term: Annotated[str, Form()] = "",
    full_name: Annotated[str, Form()] = "",
    definition: Annotated[str, Form()] = "",
    statement: Annotated[str, Form()] = "",
    condition: Annotated[str, Form()] = "",
    consequence: Annotated[str, Form()] = "",
    rule_type: Annotated[str, Form()] = "",
    formula_latex: Annotated[str, Form()] = "",
    name: Annotated[str, Form()] = "",
    unit: Annotated[str, Form()] = "",
    variables: Annotated[str, Form()] = "",
) -> Response:
    reviewer = form_reviewer(request, principal, "entry records who added it")
    sent = {
        "term": term,
        "full_name": full_name,
        "definition": definition,
        "statement": statement,
        "condition": condition,
        "consequence": consequence,
        "rule_type": rule_type,
        "formula_latex": formula_latex,
        "name": name,
        "unit": unit,
    }
    fields = {k: v for k, v in sent.items() if k in FIELDS[kind] and v.strip()}
    if kind == "formula":
        fields.update(_variables(variables))
    try:
        body = EntryIn(doc_id=doc_id, kind=kind, chunk_id=chunk_id, span=span, fields=fields, reviewer=reviewer or None)
    except ValidationError as e:
        raise HTTPException(422, "; ".join(str(error["msg"]) for error in e.errors())) from e
    added = add_entry(corpus, store, body, principal.account)
    return RedirectResponse(f"/entries/{added.entry_id}", status_code=303)
