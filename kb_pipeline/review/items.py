"""What the desk reviews, of every kind: a glossary term, a rule, a formula, a
document's brief, each flattened into one `ReviewItem` so one queue, one entry page and one
decision path serve them all.

A term's row is its `review_queue.json` row (the contract's order and reason); the other kinds
have no queue payload, so the desk projects them from `interpretation_pack.json`,
`formulas.json` and `brief_context.json`. Every kind's `diff_status` against the approved ones,
and with it a conflict's reason, is the desk's: computed when it reads (status.py), never
written into the payloads.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import BaseModel

from ..knowledge.document.text import canonical, squash
from ..knowledge.payloads.contracts import BriefContext, FormulaEntry, GlossaryEntry, ReviewQueueRow, RuleEntry
from .status import DiffStatus, EntryStatus
from .store import Decision, Kind

KINDS: tuple[Kind, ...] = ("term", "rule", "formula", "brief")
CONFLICT = "conflicting definitions — expert decision required"
ROUTINE = "routine confirmation"
# The desk's reasons for what the contract's five (terms only) do not cover.
UNVERIFIED_FORMULA = "formula not found in the parser's markup — check it against the page"
NO_PURPOSE = "no statement of purpose found in document"
CONFIRM_EXPANSION = "confirm the expansion"

# The one verbatim text an entry stands for: what a decision is made on, what a re-parse is
# matched by (reattach.py), what a conflict compares.
TEXT_FIELD: dict[Kind, str] = {
    "term": "definition",
    "rule": "statement",
    "formula": "formula_latex",
    "brief": "purpose",
}
# What a person may set, per kind: the contract's content fields. Ids, provenance, links and
# `latex_verification` (the markup check's, never a person's) are not a reviewer's to set.
EDITABLE: dict[Kind, tuple[str, ...]] = {
    "term": ("definition",),
    "rule": ("statement", "condition", "consequence", "rule_type"),
    "formula": ("name", "formula_latex", "unit"),
    "brief": ("title", "purpose"),
}
RULE_TYPES: tuple[str, ...] = ("interpretation", "calculation")
# A formula's variables' meanings are editable too, each keyed "variables.<symbol>" in an edit's
# fields: no field name has a dot, so a symbol can never be taken for a field.
VARIABLE_FIELD = "variables."

Entity = GlossaryEntry | RuleEntry | FormulaEntry | BriefContext


class ReviewItem(BaseModel):
    """One entry as the queue and the entry page show it, whatever its kind."""

    kind: Kind
    id: str
    doc_id: str
    label: str  # the term, the formula's name, the rule's statement, the brief's title
    full_name: str | None = None  # a term's expansion
    text: str | None  # TEXT_FIELD's value: what a decision is made on
    page: int | None
    section_no: str | None
    span: str
    mention_count: int = 0
    review_reason: str
    # Against the approved entries when read (`with_status`), and the competing texts: a conflict's,
    # or a term's own (its document's competing definitions).
    diff_status: DiffStatus = "new"
    conflict_variants: list[str] = []
    # How the entry is put to the reviewer when that is not "is this text right?".
    question: str | None = None
    rank: int = 0
    # "expert": an entry an expert added where the readers found none (expert_entries.py), by
    # `added_by` (the account's name).
    origin: Literal["reader", "expert"] = "reader"
    added_by: str | None = None


def _label(text: str | None, fallback: str) -> str:
    text = " ".join((text or "").split())
    return text[:120] + ("…" if len(text) > 120 else "") if text else fallback


def term_item(doc_id: str, row: ReviewQueueRow, entry: GlossaryEntry) -> ReviewItem:
    full_name = entry.full_name
    # An entry whose only content is its expansion is asked as a confirmation of it.
    question = f"{CONFIRM_EXPANSION}: {row.term} = {full_name}" if full_name and row.definition is None else None
    return ReviewItem(
        kind="term",
        id=row.term_id,
        doc_id=doc_id,
        label=row.term,
        full_name=full_name,
        text=row.definition,
        page=row.page,
        section_no=row.section_no,
        span=row.span,
        mention_count=row.mention_count,
        review_reason=row.review_reason,
        conflict_variants=entry.conflict_variants,
        question=question,
        rank=row.rank,
    )


def rule_item(doc_id: str, rule: RuleEntry, rank: int) -> ReviewItem:
    return ReviewItem(
        kind="rule",
        id=rule.rule_id,
        doc_id=doc_id,
        label=_label(rule.statement, rule.rule_id),
        text=rule.statement,
        page=rule.provenance.page,
        section_no=rule.provenance.section_no,
        span=rule.provenance.span,
        review_reason=ROUTINE,
        rank=rank,
    )


def formula_item(doc_id: str, formula: FormulaEntry, rank: int) -> ReviewItem:
    return ReviewItem(
        kind="formula",
        id=formula.formula_id,
        doc_id=doc_id,
        label=formula.name or _label(formula.formula_latex, formula.formula_id),
        text=formula.formula_latex,
        page=formula.provenance.page,
        section_no=formula.provenance.section_no,
        span=formula.provenance.span,
        review_reason=ROUTINE if formula.latex_verification == "verified" else UNVERIFIED_FORMULA,
        rank=rank,
    )


def brief_item(doc_id: str, brief: BriefContext) -> ReviewItem:
    return ReviewItem(
        kind="brief",
        id=brief.brief_id,
        doc_id=doc_id,
        label=brief.title or doc_id,
        text=brief.purpose,
        page=brief.provenance.page,
        section_no=brief.provenance.section_no,
        span=brief.provenance.span,
        review_reason=ROUTINE if brief.purpose else NO_PURPOSE,
        rank=1,
    )


def with_status(item: ReviewItem, status: EntryStatus) -> ReviewItem:
    """The entry's view as the document says it (`item`, made once per reading of its files) with
    where it stands against the decisions: its diff status, the competing texts, a conflict's
    reason. The view itself when the decisions change nothing in it."""
    variants = list(status.conflict_variants)
    if status.diff_status == item.diff_status and variants == item.conflict_variants:
        return item
    update: dict[str, object] = {"diff_status": status.diff_status, "conflict_variants": variants}
    if status.diff_status == "conflicting":
        update["review_reason"] = CONFLICT
    return item.model_copy(update=update)


def field_values(entity: Entity, kind: Kind) -> dict[str, str]:
    """The editable fields' current values ("" for null), as the edit form shows them: a
    formula's with each variable's meaning under `variables.<symbol>` (the first of a symbol
    written twice)."""
    values = {name: str(getattr(entity, name) or "") for name in EDITABLE[kind]}
    if isinstance(entity, FormulaEntry):
        for variable in entity.variables:
            values.setdefault(VARIABLE_FIELD + variable.symbol, variable.meaning or "")
    return values


def current_values(extracted: dict[str, str], kind: Kind, edit: Decision | None) -> dict[str, str]:
    """The editable fields as they stand: `edit` (the entry's edit, when it stands on the text
    shown) over the extracted values. A term's edit is its definition; another kind's, the
    fields it changed."""
    if edit is None or edit.decision != "edit":
        return dict(extracted)
    if kind == "term":
        return {**extracted, "definition": edit.edited_definition or extracted.get("definition", "")}
    return {**extracted, **{k: v for k, v in (edit.edited_fields or {}).items() if k in extracted}}


KindFilter = Literal["term", "rule", "formula", "brief", "all"]


# Every read looks for stale decisions, squashing the texts of every entry while any is stale
# (after a new version, a removed entry's stays so): the same texts, read after read.
squashed = lru_cache(maxsize=1 << 15)(squash)


def text_key(doc_id: str, kind: str, label: str, text: str | None) -> tuple[str, str, str, str] | None:
    """What says two entries are the same one, ids aside: its document, kind, verbatim text
    squashed, and for a term the term itself (canonically)."""
    text = squashed(text or "")
    return (doc_id, kind, canonical(label) if kind == "term" else "", text) if text else None
