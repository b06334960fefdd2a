"""Recording a reviewer's decision, as the pages' forms and the JSON API both take it: under the
signed-in account when the desk has accounts (a `reviewer` sent is ignored), else under the
name the single expert typed."""

from __future__ import annotations

from fastapi import HTTPException
from pydantic import AliasChoices, BaseModel, Field, ValidationError, ValidationInfo, field_validator, model_validator

from ..knowledge.payloads.diff import same_definition
from ..review.accounts import Account
from ..review.corpus import Corpus, Entry
from ..review.items import EDITABLE, RULE_TYPES, TEXT_FIELD, VARIABLE_FIELD, field_values
from ..review.store import Decision, DecisionKind, DecisionStore
from ..review.xml_text import xml_illegal

# The longest text a person may set in one field (a definition, a field of an edit, a reason):
# far above any definition, and far below the 131,072 characters a field of the CSV export may
# hold for Python's csv module by default.
FIELD_LENGTH = 20_000


def checked_text(name: str, text: str) -> str:
    """`text` as a field may hold it: at most FIELD_LENGTH characters, none XML cannot hold
    (the TBX and SKOS exports could not be written) — else a ValueError naming the field and
    where (422)."""
    if len(text) > FIELD_LENGTH:
        raise ValueError(f"{name}: {len(text)} characters, more than the {FIELD_LENGTH} a field may hold")
    if where := xml_illegal(text):
        raise ValueError(f"{name}: {where} is a control character no export can hold: remove it")
    return text


class DecisionIn(BaseModel):
    """A decision as the API and the pages' forms take it, on an entry of any kind."""

    # The entry's id (a term_id, rule_id, formula_id or brief_id): "term_id" or "id"; at most
    # what the decisions table's column holds.
    term_id: str = Field(min_length=1, max_length=64, validation_alias=AliasChoices("term_id", "id"))
    decision: DecisionKind
    # A term's edit: the definition. Another kind's: `fields`, the editable fields it sets
    # (items.EDITABLE; a formula's variable's meaning: "variables.<symbol>"), each one it
    # leaves out keeping the extraction's value.
    definition: str | None = None
    fields: dict[str, str] | None = None
    reason: str | None = None
    # Only in the single-expert mode (no accounts): the name the expert goes by.
    reviewer: str | None = Field(default=None, max_length=200)
    # The definition (another kind's: its statement, formula, purpose) the reviewer was shown
    # ("" for none): the pages always send it, and a decision is refused (409) when a
    # re-extraction changed it since. Optional for API clients.
    seen_definition: str | None = Field(default=None, validation_alias=AliasChoices("seen_definition", "seen_text"))

    @field_validator("definition", "reason", "reviewer")
    @classmethod
    def _text(cls, value: str | None, info: ValidationInfo) -> str | None:
        return None if value is None else checked_text(str(info.field_name), value)

    @field_validator("fields")
    @classmethod
    def _fields(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        return None if value is None else {k: checked_text(f"fields.{k}", v) for k, v in value.items()}

    @model_validator(mode="after")
    def _complete(self) -> DecisionIn:
        if self.decision == "edit" and not (self.definition or "").strip() and not self.fields:
            raise ValueError("an edit needs the edited definition (or, for a rule, formula, brief, its fields)")
        if self.decision == "reject" and not (self.reason or "").strip():
            raise ValueError("a rejection needs a reason")
        return self


def as_sentences(error: ValidationError) -> str:
    """A form's validation error as a person reads it: one sentence per problem, naming its field
    ("A rejection needs a reason.", "reviewer: String should have at most 200 characters."), not
    pydantic's report of the model."""
    said = []
    for problem in error.errors():
        message = str(problem["msg"]).removeprefix("Value error, ")
        field = ".".join(str(part) for part in problem["loc"])
        said.append(f"{field}: {message}" if field else message[:1].upper() + message[1:])
    return " ".join(s if s.endswith(".") else s + "." for s in said)


def unknown_term(corpus: Corpus, term_id: str) -> HTTPException:
    return HTTPException(
        404,
        f"unknown term_id {term_id!r}: no entry (term, rule, formula, brief) under {corpus.layout.knowledge} has it",
    )


def edited_fields(found: Entry, body: DecisionIn) -> dict[str, str] | None:
    """An edit of a rule, formula or brief: the fields it changes, checked against what a person
    may set (422 otherwise); None for a term (its edit is the definition) or no edit."""
    if body.decision != "edit" or found.kind == "term":
        if body.fields:
            raise HTTPException(422, f"fields: a {found.kind}'s edit is its definition, not fields")
        return None
    current = field_values(found.entity, found.kind)
    fields = dict(body.fields or {})
    if body.definition and body.definition.strip():  # the main text, as a term's definition is
        fields.setdefault(TEXT_FIELD[found.kind], body.definition)
    unknown = sorted(set(fields) - set(current))
    symbols = [k.removeprefix(VARIABLE_FIELD) for k in current if k.startswith(VARIABLE_FIELD)]
    for key in unknown:
        if key.startswith(VARIABLE_FIELD):
            raise HTTPException(
                422,
                f"{key}: {found.item.id} has no variable {key.removeprefix(VARIABLE_FIELD)!r}"
                f" (its variables: {', '.join(symbols) or 'none'})",
            )
    if unknown:
        allowed = [*EDITABLE[found.kind], *([f"{VARIABLE_FIELD}<symbol>"] if found.kind == "formula" else [])]
        raise HTTPException(422, f"fields: a {found.kind}'s editable fields are {', '.join(allowed)}, not {unknown}")
    if fields.get("rule_type", RULE_TYPES[0]) not in RULE_TYPES:
        raise HTTPException(422, f"rule_type: one of {', '.join(RULE_TYPES)}")
    changed = {k: v.strip() for k, v in fields.items() if v.strip() != current[k].strip()}
    if not changed:
        raise HTTPException(422, "an edit needs a field changed")
    return changed


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
    if body.decision == "withdraw" and body.term_id not in store.latest():
        raise HTTPException(422, f"{body.term_id} is pending: there is no decision to withdraw")
    if body.seen_definition is not None and not same_definition(body.seen_definition, found.item.text):
        raise HTTPException(
            409,
            "the definition changed since this page was loaded (the document was extracted again): "
            "reload and decide on what it says now",
        )
    fields = edited_fields(found, body)
    if found.kind == "term":
        edited = body.definition.strip() if body.decision == "edit" and body.definition else None
    else:  # the text an edit approves: the edited main field, else the extracted one
        edited = (fields or {}).get(TEXT_FIELD[found.kind], found.item.text) if body.decision == "edit" else None
    return store.record(
        term_id=body.term_id,
        doc_id=found.doc_id,
        term=found.item.label,
        decision=body.decision,
        extracted_definition=found.item.text,
        edited_definition=edited,
        edited_fields=fields,
        kind=found.kind,
        reason=(body.reason or "").strip() or None,
        reviewer=reviewer,
        account_id=account.id if account else None,
        doc_version=corpus.content_hash(found.doc_id),
    )
