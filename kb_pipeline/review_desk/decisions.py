"""Recording a reviewer's decision, as the pages' forms and the JSON API both take it: under the
signed-in account when the desk has accounts (a `reviewer` sent is ignored), else under the
name the single expert typed."""

from __future__ import annotations

from fastapi import HTTPException
from pydantic import BaseModel, Field, model_validator

from ..knowledge.diff import same_definition
from .accounts import Account
from .corpus import Corpus
from .store import Decision, DecisionKind, DecisionStore


class DecisionIn(BaseModel):
    """A decision as the API and the pages' forms take it."""

    term_id: str = Field(min_length=1)
    decision: DecisionKind
    definition: str | None = None
    reason: str | None = None
    # Only in the single-expert mode (no accounts): the name the expert goes by.
    reviewer: str | None = Field(default=None, max_length=200)
    # The definition the reviewer was shown ("" for none): the pages always send it, and a
    # decision is refused (409) when a re-extraction changed it since. Optional for API clients.
    seen_definition: str | None = None

    @model_validator(mode="after")
    def _complete(self) -> DecisionIn:
        if self.decision == "edit" and not (self.definition or "").strip():
            raise ValueError("an edit needs the edited definition")
        if self.decision == "reject" and not (self.reason or "").strip():
            raise ValueError("a rejection needs a reason")
        return self


def unknown_term(corpus: Corpus, term_id: str) -> HTTPException:
    return HTTPException(404, f"unknown term_id {term_id!r}: no glossary entry under {corpus.layout.knowledge} has it")


def record_decision(corpus: Corpus, store: DecisionStore, body: DecisionIn, account: Account | None) -> Decision:
    """The decision, stored against the entry and the document version as they read now (404 for
    an unknown term, 409 when the definition the reviewer saw is no longer the document's, 422
    without an account or a reviewer's name)."""
    reviewer = account.name if account else (body.reviewer or "").strip()
    if not reviewer:
        raise HTTPException(422, "reviewer: who decided is required (the name you go by)")
    found = corpus.entry(body.term_id)
    if found is None:
        raise unknown_term(corpus, body.term_id)
    if body.seen_definition is not None and not same_definition(body.seen_definition, found.entry.definition):
        raise HTTPException(
            409,
            "the definition changed since this page was loaded (the document was extracted again): "
            "reload and decide on what it says now",
        )
    return store.record(
        term_id=body.term_id,
        doc_id=found.doc_id,
        term=found.entry.term,
        decision=body.decision,
        extracted_definition=found.entry.definition,
        edited_definition=body.definition.strip() if body.decision == "edit" and body.definition else None,
        reason=(body.reason or "").strip() or None,
        reviewer=reviewer,
        account_id=account.id if account else None,
        doc_version=corpus.content_hash(found.doc_id),
    )
