"""A reviewer's decision as the pages' forms and the JSON API both take it (`DecisionIn`: each text
field checked), recorded by review/decisions.py under the signed-in account when the desk has
accounts (a `reviewer` sent is ignored), else under the name the single expert typed; a refused
one answered with its status."""

from __future__ import annotations

from fastapi import HTTPException
from pydantic import AliasChoices, BaseModel, Field, ValidationError, ValidationInfo, field_validator, model_validator

from ..review import decisions
from ..review.accounts import Account
from ..review.corpus import Corpus
from ..review.decisions import DecisionAsked, DecisionRefused, Refusal, unknown_entry
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

    # The entry's id (a term_id, rule_id, formula_id or brief_id): "entry_id", or "term_id" (its
    # name while only terms were decided) or "id"; at most what the decisions table's column holds.
    entry_id: str = Field(min_length=1, max_length=64, validation_alias=AliasChoices("entry_id", "term_id", "id"))
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


# The status the web answers each kind of refused decision with.
_STATUS: dict[Refusal, int] = {"unknown": 404, "changed": 409, "invalid": 422}


def unknown_id(corpus: Corpus, entry_id: str) -> HTTPException:
    return http_error(unknown_entry(corpus, entry_id))


def http_error(refused: DecisionRefused) -> HTTPException:
    return HTTPException(_STATUS[refused.refusal], str(refused))


def record_decision(corpus: Corpus, store: DecisionStore, body: DecisionIn, account: Account | None) -> Decision:
    """The decision, stored (review/decisions.py: 404 for an unknown entry, 409 when the text the
    reviewer saw is no longer the document's, 422 for a decision no one may make)."""
    asked = DecisionAsked(
        entry_id=body.entry_id,
        decision=body.decision,
        definition=body.definition,
        fields=body.fields,
        reason=body.reason,
        reviewer=body.reviewer,
        seen_text=body.seen_definition,
    )
    try:
        return decisions.record_decision(corpus, store, asked, account)
    except DecisionRefused as e:
        raise http_error(e) from e
