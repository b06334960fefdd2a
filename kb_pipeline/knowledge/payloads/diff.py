"""The diff stage (contract §5, `diff_status`): every (re-)extracted glossary entry compared with
the active glossary version, the entries experts approved (review_desk/). Pure: payloads in,
payloads out, nothing read or written.

- `duplicate`: the active glossary has this term_id with the same definition, or the source still
  says what it said when the expert decided (an edited entry whose document did not change is
  not a new question);
- `conflicting`: it has this term_id, or the same canonical term, with another definition. Both
  definitions go into `conflict_variants` and `definition_conflict` is set, so the review queue
  puts the entry first; the pipeline never picks a winner. An entry without a definition
  conflicts only with its own approved one (the extraction lost it), never with a term approved
  in another document;
- `new`: neither.

The canonical term is matched across documents too: ids are per document (contract §1), but a
definition that contradicts an approved one elsewhere is exactly the expert decision §9 asks to
surface first. It flags, it never merges.

Rules and formulas are compared the same way (`text_diff_status`: the statement, the formula),
but the contract gives them no `diff_status` field, so the review desk computes it in its view
and the payloads stay as the contract says.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel

from ..document.text import canonical
from .contracts import DiffStatus, GlossaryEntry, Payloads
from .review import review_queue

Kind = Literal["term", "rule", "formula", "brief"]


class ApprovedDefinition(BaseModel):
    """One entry of the active knowledge version: what an expert approved, edits applied. For a
    rule, formula or brief, `term_id` is its own id, `term` its name (a formula's, else its
    text) and `definition` its verbatim text (the statement, the formula, the purpose)."""

    term_id: str
    doc_id: str
    term: str
    definition: str | None  # the approved definition: the edit, if the expert edited it
    extracted_definition: str | None = None  # what the extraction said when the expert decided
    kind: Kind = "term"

    def matches(self, definition: str | None) -> bool:
        return same_definition(self.definition, definition) or (
            self.extracted_definition is not None and same_definition(self.extracted_definition, definition)
        )


def same_definition(a: str | None, b: str | None) -> bool:
    # Layout (line breaks, doubled spaces) is not a different definition.
    return " ".join((a or "").split()) == " ".join((b or "").split())


def _variants(*definitions: str | None) -> list[str]:
    seen: dict[str, None] = {}
    for definition in definitions:
        if definition and not any(same_definition(definition, known) for known in seen):
            seen[definition] = None
    return list(seen)


def diff_entry(
    entry: GlossaryEntry, by_id: dict[str, ApprovedDefinition], by_term: dict[str, list[ApprovedDefinition]]
) -> GlossaryEntry:
    approved = by_id.get(entry.term_id)
    if approved is not None and approved.matches(entry.definition):
        return entry.model_copy(update={"diff_status": "duplicate"})
    rivals = [approved] if approved is not None else []
    if entry.definition is not None:
        # A document that only mentions a term approved elsewhere contradicts nothing; the same
        # entry losing its approved definition is a conflict (the approved one its variant).
        rivals += [a for a in by_term.get(canonical(entry.term), []) if a.term_id != entry.term_id]
    differing = [a for a in rivals if not a.matches(entry.definition)]
    if not differing:  # an equal definition under another term_id is not this entry's approval
        return entry.model_copy(update={"diff_status": "new"})
    return entry.model_copy(
        update={
            "diff_status": "conflicting",
            "definition_conflict": True,
            "conflict_variants": _variants(
                *entry.conflict_variants, entry.definition, *(a.definition for a in differing)
            ),
        }
    )


def apply_diff(payloads: Payloads, active: Iterable[ApprovedDefinition]) -> Payloads:
    """`payloads` with every glossary entry's `diff_status` set against `active`, and the review
    queue projected again (a conflict moves an entry to the front)."""
    by_id: dict[str, ApprovedDefinition] = {}
    by_term: dict[str, list[ApprovedDefinition]] = {}
    for approved in active:
        if approved.kind != "term":
            continue
        by_id[approved.term_id] = approved
        by_term.setdefault(canonical(approved.term), []).append(approved)
    glossary = [diff_entry(entry, by_id, by_term) for entry in payloads.glossary]
    return payloads.model_copy(update={"glossary": glossary, "review_queue": review_queue(glossary, payloads.rejected)})


class ApprovedTexts:
    """The approved rules and formulas by kind and id, and a formula's by its canonical name:
    what `text_diff_status` compares each entry of a view with, indexed once for all of them."""

    def __init__(self, active: Iterable[ApprovedDefinition]) -> None:
        self.by_id: dict[tuple[Kind, str], list[ApprovedDefinition]] = {}
        self.formulas_by_name: dict[str, list[ApprovedDefinition]] = {}
        for approved in active:
            self.by_id.setdefault((approved.kind, approved.term_id), []).append(approved)
            if approved.kind == "formula":
                self.formulas_by_name.setdefault(canonical(approved.term), []).append(approved)


def text_diff_status(
    kind: Kind, entity_id: str, name: str | None, text: str | None, active: ApprovedTexts
) -> DiffStatus:
    """A rule's or formula's status against the approved ones of its kind: `duplicate` when its
    id is approved with this text, `conflicting` when its id, or (a formula) its name, is approved
    with another text, else `new`. Names are matched only for formulas: a rule has none."""
    rivals = active.by_id.get((kind, entity_id), [])
    if any(a.matches(text) for a in rivals):
        return "duplicate"
    if kind == "formula" and name:
        rivals = rivals + [a for a in active.formulas_by_name.get(canonical(name), []) if a.term_id != entity_id]
    return "conflicting" if any(not a.matches(text) for a in rivals) else "new"
