"""An entry an expert adds from a selection in one chunk (review/expert_entries.py), as the JSON
API (`POST /api/entries`) and the document and entry pages' add form (documents.py) take it:
under the signed-in account when the desk has accounts, else under the name the expert typed.

A refusal of fields answers in FastAPI's own shape of a field's error, one per field refused
(`loc` names it, `msg` says why, `ctx.nearest` offers the chunk's nearest words): the add form
(static/add_entry.js) sends through the API and marks each field on the page it is on."""

from __future__ import annotations

from fastapi import HTTPException
from pydantic import BaseModel, Field, ValidationInfo, field_validator

from ..review.accounts import Account
from ..review.corpus import Corpus
from ..review.expert_entries import AddedKind, EntryRefused, ExpertEntry, FieldRefused
from ..review.store import DecisionStore
from .decisions import checked_text


class EntryIn(BaseModel):
    """An entry an expert adds from a selection in one chunk (expert_entries.py): its kind, the
    chunk, the selected text, and the kind's fields, each verbatim in that chunk (a rule's
    `rule_type` aside; a formula's variables' meanings as `variables.<symbol>`)."""

    doc_id: str = Field(min_length=1)
    kind: AddedKind
    chunk_id: str = Field(min_length=1)
    span: str = Field(min_length=1)
    fields: dict[str, str]
    # Only in the single-expert mode (no accounts): the name the expert goes by.
    reviewer: str | None = Field(default=None, max_length=200)

    @field_validator("span", "reviewer")
    @classmethod
    def _text(cls, value: str | None, info: ValidationInfo) -> str | None:
        return None if value is None else checked_text(str(info.field_name), value)

    @field_validator("fields")
    @classmethod
    def _fields(cls, value: dict[str, str]) -> dict[str, str]:
        return {k: checked_text(f"fields.{k}", v) for k, v in value.items()}


class FieldErrors(list[dict]):
    """The fields refused, as the API's 422 says them; read as its sentences where a page shows
    the refusal (the error page of the form's own route, `/entries/add`, prints `str(detail)`)."""

    def __init__(self, refused: tuple[FieldRefused, ...]) -> None:
        super().__init__(
            {
                "type": "entry_refused",
                "loc": ["body", "fields", r.field],
                "msg": r.message,
                "input": r.typed,
                "ctx": {"nearest": list(r.nearest)},
            }
            for r in refused
        )

    def __str__(self) -> str:
        return "; ".join(error["msg"] for error in self)


def add_entry(corpus: Corpus, store: DecisionStore, body: EntryIn, account: Account | None) -> ExpertEntry:
    """The entry added and approved under the account (or the single expert's name); 422 when it
    is not verbatim in its chunk or the desk has it already."""
    reviewer = account.name if account else (body.reviewer or "").strip()
    if not reviewer:
        raise HTTPException(422, "reviewer: who added it is required (the name you go by)")
    assert corpus.added is not None  # the desk's corpus reads the added entries
    taken = {f.item.id for f in corpus.items(store.latest())}
    try:
        return corpus.added.add(
            corpus.layout,
            doc_id=body.doc_id,
            kind=body.kind,
            chunk_id=body.chunk_id,
            span=body.span,
            fields=body.fields,
            reviewer=reviewer,
            account_id=account.id if account else None,
            doc_version=corpus.content_hash(body.doc_id),
            taken=taken,
        )
    except EntryRefused as e:
        raise HTTPException(422, FieldErrors(e.fields) if e.fields else str(e)) from e
