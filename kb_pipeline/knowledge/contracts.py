"""The knowledge payloads: Output Contract v2 (`docs/knowledge.md`), one pydantic model per entity.

This module is their single source of truth. Field names, declaration order (= JSON key order),
enums, defaults and nullability follow the contract exactly: consumers bind to these files as
they are. Every content field is nullable by design — null is an abstention, not a failure.
`page` is 0-based everywhere, as the parser reports it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from ..files import write_text_atomically
from ..llm.usage import CallUsage  # usage.json's record, built by the model client; in the contract all the same

SubdomainTag = Literal[
    "production",
    "maintenance",
    "hauling",
    "loading",
    "drilling_blasting",
    "equipment",
    "safety",
    "quality",
    "planning",
    "cost",
    "geology",
    "other",
]
ExtractionStatus = Literal["ok", "no_definition_found", "escalated"]
DiffStatus = Literal["new", "duplicate", "conflicting"]
RuleType = Literal["interpretation", "calculation"]
LatexVerification = Literal["verified", "unverified_no_markup", "unverified_operator"]
RejectedBranch = Literal["glossary", "rule", "formula", "summary"]
# Exact strings: a review UI shows them as they are.
ReviewReason = Literal[
    "conflicting definitions — expert decision required",
    "source wording differs from the expanded name — confirm which is correct",
    "term found but no definition in document",
    "definition rejected by span check or absent",
    "routine confirmation",
]


class Provenance(BaseModel):
    """Where an entity comes from. `span` is verbatim from the chunk `chunk_id` names."""

    doc_id: str
    span: str
    page: int | None = None
    section_no: str | None = None
    chunk_id: str | None = None


class GlossaryEntry(BaseModel):
    term_id: str
    term: str
    full_name: str | None = None
    source_wording: str | None = None
    definition: str | None = None
    defining_formula_id: str | None = None
    subdomain_tags: list[SubdomainTag] = Field(default_factory=list)
    mention_count: int = 0
    provenance: Provenance
    extraction_status: ExtractionStatus = "ok"
    diff_status: DiffStatus | None = None
    definition_conflict: bool = False
    conflict_variants: list[str] = Field(default_factory=list)


class RuleEntry(BaseModel):
    rule_id: str
    rule_type: RuleType
    statement: str | None = None
    condition: str | None = None
    consequence: str | None = None
    formula_ids: list[str] = Field(default_factory=list)
    term_ids: list[str] = Field(default_factory=list)
    provenance: Provenance


class FormulaVariable(BaseModel):
    symbol: str
    term_id: str | None = None
    meaning: str | None = None


class FormulaEntry(BaseModel):
    formula_id: str
    name: str | None = None
    formula_latex: str | None = None
    variables: list[FormulaVariable] = Field(default_factory=list)
    unit: str | None = None
    # Set by the markup check (formulas.py), never by a model; null iff no formula_latex.
    latex_verification: LatexVerification | None = None
    provenance: Provenance


class BriefContext(BaseModel):
    brief_id: str
    title: str | None = None
    purpose: str | None = None
    key_parameters: list[str] = Field(default_factory=list)
    provenance: Provenance


class ReviewQueueRow(BaseModel):
    rank: int
    term_id: str
    term: str
    definition: str | None
    source_wording: str | None
    mention_count: int
    page: int | None
    section_no: str | None
    span: str
    review_reason: ReviewReason


class RejectedField(BaseModel):
    """A value the span check refused: set to null (or its entity dropped), never repaired."""

    entry_term: str
    field: str
    offending_value: str
    reason: str
    branch: RejectedBranch


class Payloads(BaseModel):
    """Everything extraction produces for one document; `write` lays it out as seven files."""

    glossary: list[GlossaryEntry]
    interpretation_pack: list[RuleEntry]
    formulas: list[FormulaEntry]
    brief_context: BriefContext
    review_queue: list[ReviewQueueRow]
    rejected: list[RejectedField]
    usage: list[CallUsage]

    def write(self, folder: Path) -> list[Path]:
        """Bare JSON, no envelope: `brief_context.json` one object, the six others arrays."""
        paths = []
        for name, value in self.model_dump(mode="json").items():
            path = folder / f"{name}.json"
            write_text_atomically(path, json.dumps(value, ensure_ascii=False, indent=2) + "\n")
            paths.append(path)
        return paths
