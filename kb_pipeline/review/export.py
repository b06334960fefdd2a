"""The active glossary as files downstream users read: JSON (one object per approved entry) and
CSV (the same columns); the approved rules, formulas and briefs beside it (`active_knowledge`);
TBX is tbx.py, SKOS skos.py, the files and formats knowledge_export.py. An entry is in it when
its current decision approves it (an edit approves the edited definition), once: a decision a
re-attachment moved is listed under its new id only (`approved_decisions`). `orphaned` says its
id is in no payload any more, `source_changed` that its document now says something else (the
approval stands, with what it approved, until an expert decides on the new wording): the entry's
status against the decisions as the desk computes it (status.py).

An approved rule, formula or brief carries every field of its kind: each field a
person may set (items.py `EDITABLE`; a formula's variables with their meanings) as approved — the
edit's value over the extraction's — with the extracted value beside it (`extracted_<field>`),
and the links the link stage set. The text decided on (a rule's statement, a formula's LaTeX, a
brief's purpose) is the decision's, as `text` is; the other extracted fields are the payload's
entry as it reads now (an expert's added entry: what the expert added), none for an orphaned one."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from typing import TypedDict

from pydantic import BaseModel

from ..knowledge.payloads.contracts import BriefContext, FormulaEntry, GlossaryEntry, RuleEntry
from .corpus import Corpus, Found
from .items import EDITABLE, TEXT_FIELD, VARIABLE_FIELD, Entity
from .store import Decision, Kind, approved_decisions


class ActiveEntry(BaseModel):
    term_id: str
    doc_id: str
    term: str
    definition: str | None
    extracted_definition: str | None
    edited: bool
    reviewer: str
    decided_at: str
    orphaned: bool
    source_changed: bool
    origin: str = "reader"  # "expert": added where the readers found none (expert_entries.py)


def _found(corpus: Corpus, decisions: Mapping[str, Decision]) -> dict[str, Found]:
    """Every entry as the payloads say it now, by id, with its status against `decisions`: what
    says an approval is orphaned or its source changed. The corpus's entries, made again only
    when its files or the decisions change (`Corpus.items`)."""
    return {f.item.id: f for f in corpus.items(decisions)}


class _Standing(TypedDict):
    orphaned: bool
    source_changed: bool
    origin: str


def _standing(found: Found | None) -> _Standing:
    """An approval against the payloads (`found`: its entry there, if any): `orphaned`, its id in
    none; `source_changed`, its entry saying something else now; `origin`, who found the entry."""
    return {
        "orphaned": found is None,
        "source_changed": found is not None and found.status.source_changed,
        "origin": found.item.origin if found is not None else "reader",
    }


def active_entries(decisions: Mapping[str, Decision], corpus: Corpus) -> list[ActiveEntry]:
    """The approved terms among `decisions` (each entry's current one, re-attachments applied).
    The approved rules, formulas and briefs are `active_knowledge`'s."""
    found = _found(corpus, decisions)
    return [
        ActiveEntry(
            term_id=d.entry_id,
            doc_id=d.doc_id,
            term=d.term,
            definition=d.definition,
            extracted_definition=d.extracted_definition,
            edited=d.decision == "edit",
            reviewer=d.reviewer,
            decided_at=d.decided_at,
            **_standing(found.get(d.entry_id)),
        )
        for d in approved_decisions(decisions.values())
        if d.kind == "term"
    ]


class ActiveVariable(BaseModel):
    """A formula's variable: its symbol, its meaning, the term the link stage found it to be."""

    symbol: str
    meaning: str | None
    term_id: str | None = None


class ActiveKnowledge(BaseModel):
    """An approved rule, formula or brief: its approved text (the edit's, if edited), the fields
    an edit set, and every field of its kind, approved and extracted (null: not its kind's)."""

    kind: Kind
    id: str
    doc_id: str
    label: str
    text: str | None
    extracted_text: str | None
    edited_fields: dict[str, str] | None
    reviewer: str
    decided_at: str
    orphaned: bool
    source_changed: bool
    origin: str = "reader"  # "expert": added where the readers found none (expert_entries.py)
    # A rule's.
    statement: str | None = None
    extracted_statement: str | None = None
    condition: str | None = None
    extracted_condition: str | None = None
    consequence: str | None = None
    extracted_consequence: str | None = None
    rule_type: str | None = None
    extracted_rule_type: str | None = None
    term_ids: list[str] | None = None  # the terms and formulas it names (link stage)
    formula_ids: list[str] | None = None
    # A formula's.
    name: str | None = None
    extracted_name: str | None = None
    formula_latex: str | None = None
    extracted_formula_latex: str | None = None
    variables: list[ActiveVariable] | None = None
    extracted_variables: list[ActiveVariable] | None = None
    unit: str | None = None
    extracted_unit: str | None = None
    # A brief's.
    title: str | None = None
    extracted_title: str | None = None
    purpose: str | None = None
    extracted_purpose: str | None = None
    key_parameters: list[str] | None = None  # the abbreviations its purpose names (link stage)


def _own_fields(decision: Decision, entity: Entity | None) -> dict[str, object]:
    """The kind's fields of an approved entry: each as approved (the edit's value over the
    extraction's; one an edit emptied, null) and as extracted; its links; a formula's variables,
    each meaning edited under `variables.<symbol>`. The text decided on is the decision's."""
    kind = decision.kind
    edits = (decision.edited_fields or {}) if decision.decision == "edit" else {}
    values: dict[str, object] = {}
    for name in EDITABLE[kind]:
        extracted = decision.extracted_definition if name == TEXT_FIELD[kind] else getattr(entity, name, None)
        values[name] = (edits[name] or None) if name in edits else extracted
        values["extracted_" + name] = extracted
    values[TEXT_FIELD[kind]] = decision.definition  # what `text` says: the edit's, else the extracted
    if isinstance(entity, RuleEntry):
        values |= {"term_ids": entity.term_ids, "formula_ids": entity.formula_ids}
    elif isinstance(entity, BriefContext):
        values["key_parameters"] = entity.key_parameters
    if kind == "formula":
        extracted_variables = (
            [ActiveVariable(symbol=v.symbol, meaning=v.meaning, term_id=v.term_id) for v in entity.variables]
            if isinstance(entity, FormulaEntry)
            else None
        )
        edited = {k.removeprefix(VARIABLE_FIELD): v or None for k, v in edits.items() if k.startswith(VARIABLE_FIELD)}
        values["extracted_variables"] = extracted_variables
        values["variables"] = (
            [v.model_copy(update={"meaning": edited.get(v.symbol, v.meaning)}) for v in extracted_variables]
            if extracted_variables is not None
            else [ActiveVariable(symbol=s, meaning=m) for s, m in edited.items()] or None  # orphaned: the edit's
        )
    return values


def active_knowledge(decisions: Mapping[str, Decision], corpus: Corpus) -> list[ActiveKnowledge]:
    """Every approved entry of the kinds other than term (those are the active glossary)."""
    found = _found(corpus, decisions)
    return [
        ActiveKnowledge(
            kind=d.kind,
            id=d.entry_id,
            doc_id=d.doc_id,
            label=d.term,
            text=d.definition,
            extracted_text=d.extracted_definition,
            edited_fields=d.edited_fields,
            reviewer=d.reviewer,
            decided_at=d.decided_at,
            **_standing(found.get(d.entry_id)),
            **_own_fields(d, found[d.entry_id].entity if d.entry_id in found else None),
        )
        for d in approved_decisions(decisions.values())
        if d.kind != "term"
    ]


def to_csv(entries: Sequence[BaseModel], model: type[BaseModel]) -> str:
    """One row per entry, `model`'s fields the columns; a dict- or list-valued one (an edit's
    fields, a rule's links, a formula's variables) as JSON."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(model.model_fields), lineterminator="\n")
    writer.writeheader()
    writer.writerows(
        {k: json.dumps(v, ensure_ascii=False) if isinstance(v, dict | list) else v for k, v in e.model_dump().items()}
        for e in entries
    )
    return out.getvalue()


def to_json(entries: Sequence[BaseModel]) -> str:
    return json.dumps([e.model_dump() for e in entries], ensure_ascii=False, indent=2) + "\n"


def current_terms(corpus: Corpus) -> dict[str, GlossaryEntry]:
    """The terms as the payloads say them now, by term_id: the full names and pages the
    glossary formats add to a decision."""
    return {f.item.id: f.entity for f in corpus.items({}) if isinstance(f.entity, GlossaryEntry)}


def source_reference(entry: ActiveEntry, glossary: GlossaryEntry | None) -> str:
    """Where the definition is read: "doc_id, page N" (1-based), the document alone when the
    entry is gone from the payloads or has no page."""
    page = glossary.provenance.page if glossary else None
    return entry.doc_id + (f", page {page + 1}" if page is not None else "")
