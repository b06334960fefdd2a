"""The knowledge payloads: Output Contract v2 (`docs/knowledge.md`), one pydantic model per entity.

This module is their single source of truth; the field tables of `docs/knowledge.md` are
generated from these models' descriptions (`kb_pipeline/contract_docs.py`). Field names,
declaration order (= JSON key order), enums, defaults and nullability follow the contract
exactly: consumers bind to these files as they are. Every content field is nullable by design — null is an abstention, not a failure.
`page` is 0-based everywhere, as the parser reports it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from ...files import write_text_atomically
from ...llm.usage import CallUsage  # usage.json's record, built by the model client; in the contract all the same

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
    span: str = Field(
        description="verbatim from the source, span-checked: a reviewer checks a quote against a page, not a "
        "claim against memory"
    )
    page: int | None = Field(default=None, description="0-based: the page where the span's chunk starts")
    section_no: str | None = Field(default=None, description='e.g. `"2.1.2"`; null when the document is unnumbered')
    chunk_id: str | None = Field(
        default=None, description="the chunk of the parsed artifact (`<doc_id>::<seq>`); opaque, not to be split"
    )


class GlossaryEntry(BaseModel):
    """A term of the document; `glossary.json` holds one per canonical term."""

    term_id: str = Field(description="stable across re-runs: the key an approval hangs on")
    term: str = Field(description="the only required content field")
    full_name: str | None = Field(default=None, description="the expanded name, span-checked")
    source_wording: str | None = Field(
        default=None, description="the document's literal wording of the term's heading, un-normalised"
    )
    definition: str | None = Field(
        default=None, description="one sentence sliced from the source; null is an abstention, not a failure"
    )
    defining_formula_id: str | None = Field(default=None, description="the formula of the same name (link stage)")
    subdomain_tags: list[SubdomainTag] = Field(
        default_factory=list, description="a closed enum; left empty: a tag cannot be span-checked"
    )
    mention_count: int = Field(default=0, description="whole-word mentions in the document; orders the review queue")
    provenance: Provenance
    extraction_status: ExtractionStatus = Field(
        default="ok",
        description="`escalated`: the layout left the definition open for the model (its pick, or null for a person)",
    )
    # The contract's field, always null here: the payloads are the document's and the code's alone,
    # and the diff against the decisions is made when they are read (review/status.py).
    diff_status: DiffStatus | None = Field(
        default=None,
        description="null in the payload; the desk, the exports and `status` compute it against the decisions",
    )
    definition_conflict: bool = Field(default=False, description="two different definitions: both kept, none picked")
    conflict_variants: list[str] = Field(
        default_factory=list, description="the competing definitions; the pipeline never picks a winner"
    )


class RuleEntry(BaseModel):
    """A sentence with an explicit condition and consequence; `interpretation_pack.json`."""

    rule_id: str = Field(description="from the span's chunk and offset: stable across re-runs")
    rule_type: RuleType = Field(description="`calculation` when it speaks of computing or sourcing a value")
    statement: str | None = Field(default=None, description="the rule as prose")
    condition: str | None = Field(default=None, description="the triggering condition, split out")
    consequence: str | None = Field(default=None, description="what follows when the condition holds")
    formula_ids: list[str] = Field(default_factory=list, description="the formulas the rule names (link stage)")
    term_ids: list[str] = Field(default_factory=list, description="the terms the rule names (link stage)")
    provenance: Provenance


class FormulaVariable(BaseModel):
    """A symbol of a formula's expression."""

    symbol: str = Field(description="verbatim in the formula's chunk")
    term_id: str | None = Field(default=None, description="the term (or full name) equal to the symbol (link stage)")
    meaning: str | None = Field(
        default=None,
        description="the words the document explains the symbol with, verbatim in the chunk `meaning_chunk_id` "
        "names, else in the formula's own",
    )
    meaning_chunk_id: str | None = Field(
        default=None,
        description="the chunk the meaning is quoted from when it is not the formula's: the next one in reading "
        "order (a legend printed after the equation) or an earlier one (the symbol explained where the document "
        "introduced it); null: the formula's own chunk",
    )


class FormulaEntry(BaseModel):
    """A `Name = expression` line of the document, copied; `formulas.json`."""

    formula_id: str = Field(description="from the name, else the formula, else the chunk")
    name: str | None = Field(default=None, description="what the formula computes, as the source names it")
    formula_latex: str | None = Field(default=None, description="the document's line, transcribed, never derived")
    variables: list[FormulaVariable] = Field(default_factory=list)
    unit: str | None = Field(default=None, description="the result's unit, if stated")
    latex_verification: LatexVerification | None = Field(
        default=None,
        description="set by the markup check (formulas.py), never by a model: `verified` only when the parser's "
        "markup (`Chunk.latex`) holds the same formula; null iff no `formula_latex`",
    )
    provenance: Provenance


class BriefContext(BaseModel):
    """The document's orientation brief; `brief_context.json`, one object."""

    brief_id: str
    title: str | None = Field(default=None, description="the artifact's `source_title`")
    purpose: str | None = Field(
        default=None,
        description="the first prose sentence under a purpose/introduction/summary-like heading, else the first "
        "one that speaks of the document itself or states its aim; else null",
    )
    key_parameters: list[str] = Field(
        default_factory=list, description="the glossary's abbreviations the purpose names"
    )
    provenance: Provenance


class ReviewQueueRow(BaseModel):
    """A glossary entry flattened for a review UI, so a row renders with no joins; `review_queue.json`."""

    rank: int = Field(description="1-based: conflicts first, then `mention_count` descending")
    term_id: str = Field(description="what a decision attaches to, so it survives a re-run")
    term: str
    definition: str | None
    source_wording: str | None
    mention_count: int
    page: int | None = Field(description="lifted out of the entry's provenance, as `section_no` and `span` are")
    section_no: str | None
    span: str
    review_reason: ReviewReason = Field(description="the first that applies, in this order")


class RejectedField(BaseModel):
    """A value the span check refused: set to null (or its entity dropped), never repaired."""

    entry_term: str
    field: str
    offending_value: str
    reason: str
    branch: RejectedBranch


class MissingArtifact(BaseModel):
    """An artifact of the parse extraction ran without, and what its readers did instead:
    listed in `usage.json` after the model's calls, so payloads read from less say so."""

    missing_artifact: str = Field(description="its file name beside `chunks.json`, e.g. `page_layout.json`")
    lost: list[str] = Field(description="per reader that reads it: what the reader did without it")


class Payloads(BaseModel):
    """Everything extraction produces for one document; `write` lays it out as seven files."""

    glossary: list[GlossaryEntry] = Field(description="`glossary.json`")
    interpretation_pack: list[RuleEntry] = Field(description="`interpretation_pack.json`")
    formulas: list[FormulaEntry] = Field(description="`formulas.json`")
    brief_context: BriefContext = Field(description="`brief_context.json`, one object")
    review_queue: list[ReviewQueueRow] = Field(description="`review_queue.json`")
    rejected: list[RejectedField] = Field(description="`rejected.json`: what the span check refused")
    usage: list[CallUsage | MissingArtifact] = Field(
        description="`usage.json`: one entry per model question, then one per artifact extraction ran without"
    )

    @property
    def calls(self) -> list[CallUsage]:
        """The model's calls in `usage`."""
        return [entry for entry in self.usage if isinstance(entry, CallUsage)]

    def write(self, folder: Path) -> list[Path]:
        """Bare JSON, no envelope: `brief_context.json` one object, the six others arrays."""
        paths = []
        for name, value in self.model_dump(mode="json").items():
            path = folder / f"{name}.json"
            write_text_atomically(path, json.dumps(value, ensure_ascii=False, indent=2) + "\n")
            paths.append(path)
        return paths
