"""The rules of a valid decision, whoever asks (the desk's pages and API, a bulk selection): on an
entry the payloads have, on the text the reviewer was shown, a withdrawal only of a decision that
stands, an edit only of the fields a person may set and changing one of them, and under who made
it. A decision breaking one is refused with `DecisionRefused`, saying which kind of rule; the web
layer answers each kind with its status."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .accounts import Account
from .corpus import Corpus, Entry
from .items import EDITABLE, RULE_TYPES, TEXT_FIELD, VARIABLE_FIELD, field_values
from .status import same_definition
from .store import Decision, DecisionKind, DecisionStore

# What a refused decision broke: no entry has the id; the text changed since it was shown; the
# decision itself is not one a person may make.
Refusal = Literal["unknown", "changed", "invalid"]


class DecisionRefused(ValueError):
    def __init__(self, refusal: Refusal, message: str) -> None:
        super().__init__(message)
        self.refusal = refusal


@dataclass(frozen=True)
class DecisionAsked:
    """A decision as a person asked for it, its text fields already checked (length, characters)."""

    entry_id: str
    decision: DecisionKind
    # A term's edit: the definition; another kind's: `fields` (items.EDITABLE; a formula's
    # variable's meaning "variables.<symbol>"), `definition` standing for its main text.
    definition: str | None = None
    fields: dict[str, str] | None = None
    reason: str | None = None
    reviewer: str | None = None  # the single expert's name; with accounts, the account's
    seen_text: str | None = None  # the text the reviewer was shown ("" for none)


def unknown_entry(corpus: Corpus, entry_id: str) -> DecisionRefused:
    return DecisionRefused(
        "unknown",
        f"unknown entry_id {entry_id!r}: no entry (term, rule, formula, brief) under {corpus.layout.knowledge} has it",
    )


def edited_fields(found: Entry, asked: DecisionAsked) -> dict[str, str] | None:
    """An edit of a rule, formula or brief: the fields it changes, checked against what a person
    may set; None for a term (its edit is the definition) or no edit."""
    if asked.decision != "edit" or found.kind == "term":
        if asked.fields:
            raise DecisionRefused("invalid", f"fields: a {found.kind}'s edit is its definition, not fields")
        return None
    current = field_values(found.entity, found.kind)
    fields = dict(asked.fields or {})
    if asked.definition and asked.definition.strip():  # the main text, as a term's definition is
        fields.setdefault(TEXT_FIELD[found.kind], asked.definition)
    unknown = sorted(set(fields) - set(current))
    symbols = [k.removeprefix(VARIABLE_FIELD) for k in current if k.startswith(VARIABLE_FIELD)]
    for key in unknown:
        if key.startswith(VARIABLE_FIELD):
            raise DecisionRefused(
                "invalid",
                f"{key}: {found.item.id} has no variable {key.removeprefix(VARIABLE_FIELD)!r}"
                f" (its variables: {', '.join(symbols) or 'none'})",
            )
    if unknown:
        allowed = [*EDITABLE[found.kind], *([f"{VARIABLE_FIELD}<symbol>"] if found.kind == "formula" else [])]
        raise DecisionRefused(
            "invalid", f"fields: a {found.kind}'s editable fields are {', '.join(allowed)}, not {unknown}"
        )
    if fields.get("rule_type", RULE_TYPES[0]) not in RULE_TYPES:
        raise DecisionRefused("invalid", f"rule_type: one of {', '.join(RULE_TYPES)}")
    changed = {k: v.strip() for k, v in fields.items() if v.strip() != current[k].strip()}
    if not changed:
        raise DecisionRefused("invalid", "an edit needs a field changed")
    return changed


def record_decision(corpus: Corpus, store: DecisionStore, asked: DecisionAsked, account: Account | None) -> Decision:
    """The decision, stored against the entry and the document version as they read now."""
    reviewer = account.name if account else (asked.reviewer or "").strip()
    if not reviewer:
        raise DecisionRefused("invalid", "reviewer: who decided is required (the name you go by)")
    found = corpus.entry(asked.entry_id)
    if found is None:
        raise unknown_entry(corpus, asked.entry_id)
    if asked.decision == "withdraw" and asked.entry_id not in store.latest():
        raise DecisionRefused("invalid", f"{asked.entry_id} is pending: there is no decision to withdraw")
    if asked.seen_text is not None and not same_definition(asked.seen_text, found.item.text):
        raise DecisionRefused(
            "changed",
            "the definition changed since this page was loaded (the document was extracted again): "
            "reload and decide on what it says now",
        )
    fields = edited_fields(found, asked)
    if found.kind == "term":
        edited = asked.definition.strip() if asked.decision == "edit" and asked.definition else None
    else:  # the text an edit approves: the edited main field, else the extracted one
        edited = (fields or {}).get(TEXT_FIELD[found.kind], found.item.text) if asked.decision == "edit" else None
    return store.record(
        entry_id=asked.entry_id,
        doc_id=found.doc_id,
        term=found.item.label,
        decision=asked.decision,
        extracted_definition=found.item.text,
        edited_definition=edited,
        edited_fields=fields,
        kind=found.kind,
        reason=(asked.reason or "").strip() or None,
        reviewer=reviewer,
        account_id=account.id if account else None,
        doc_version=corpus.content_hash(found.doc_id),
    )
