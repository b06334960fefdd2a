"""What the review desk shows, read from the data root: every document's payloads
(`<data root>/knowledge/<doc_id>/`), joined with the decisions by term_id.

The queue binds to `review_queue.json` (contract §9: "the payload a review UI binds to") and keeps
its order across documents: conflicts first, then mention_count descending. A decision whose
term_id no payload has any more is shown as orphaned, never dropped; one made on a definition
the document no longer says is shown with its entry, pending again.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from ..knowledge.contracts import FormulaEntry, GlossaryEntry, ReviewQueueRow, ReviewReason, RuleEntry
from ..knowledge.diff import same_definition
from ..parsing.mineru_adapter import SOURCE_COPY
from ..paths import DataLayout
from ..pipeline import ARTIFACT_NAME
from .store import Decision

State = Literal["pending", "approved", "edited", "rejected", "orphaned"]
STATES: tuple[State, ...] = ("pending", "approved", "edited", "rejected", "orphaned")
CONFLICT: ReviewReason = "conflicting definitions — expert decision required"
_STATE_OF: dict[str, State] = {"approve": "approved", "edit": "edited", "reject": "rejected"}


class QueueRow(BaseModel):
    """A review-queue row with the document it came from and its decision state."""

    doc_id: str
    row: ReviewQueueRow | None  # None for an orphaned decision
    term_id: str
    term: str
    state: State
    decision: Decision | None


@dataclass(frozen=True)
class Entry:
    doc_id: str
    entry: GlossaryEntry
    formulas: list[FormulaEntry]
    rules: list[RuleEntry]
    row: ReviewQueueRow | None


def decided_on(decision: Decision, definition: str | None) -> bool:
    """Whether the decision was made on this definition (as extracted then, or as edited): one
    made on what the document said before a re-extraction changed it is a question again."""
    return same_definition(definition, decision.extracted_definition) or (
        decision.edited_definition is not None and same_definition(definition, decision.edited_definition)
    )


def _read(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []


class Corpus:
    """The payloads under one data root. Read on every call: a re-extraction shows at the next
    page load, with nothing to invalidate."""

    def __init__(self, layout: DataLayout) -> None:
        self.layout = layout

    def documents(self) -> list[str]:
        root = self.layout.knowledge
        return sorted(p.name for p in root.iterdir() if (p / "review_queue.json").is_file()) if root.is_dir() else []

    def queue(self, decisions: dict[str, Decision]) -> list[QueueRow]:
        found = [
            (doc_id, ReviewQueueRow.model_validate(raw))
            for doc_id in self.documents()
            for raw in _read(self.layout.knowledge / doc_id / "review_queue.json")
        ]
        # The contract's order across documents; within a document, its own rank breaks ties.
        found.sort(key=lambda f: (f[1].review_reason != CONFLICT, -f[1].mention_count, f[0], f[1].rank))
        rows = []
        for doc_id, row in found:
            decision = decisions.get(row.term_id)
            state = _STATE_OF[decision.decision] if decision and decided_on(decision, row.definition) else "pending"
            rows.append(
                QueueRow(doc_id=doc_id, row=row, term_id=row.term_id, term=row.term, state=state, decision=decision)
            )
        present = {r.term_id for r in rows}
        rows += [
            QueueRow(doc_id=d.doc_id, row=None, term_id=d.term_id, term=d.term, state="orphaned", decision=d)
            for d in sorted(decisions.values(), key=lambda d: (d.doc_id, d.term))
            if d.term_id not in present
        ]
        return rows

    def entry(self, term_id: str) -> Entry | None:
        for doc_id in self.documents():
            folder = self.layout.knowledge / doc_id
            for raw in _read(folder / "glossary.json"):
                if raw.get("term_id") != term_id:
                    continue
                entry = GlossaryEntry.model_validate(raw)
                formulas = [FormulaEntry.model_validate(f) for f in _read(folder / "formulas.json")]
                rules = [RuleEntry.model_validate(r) for r in _read(folder / "interpretation_pack.json")]
                row = next((r for r in _read(folder / "review_queue.json") if r.get("term_id") == term_id), None)
                return Entry(
                    doc_id=doc_id,
                    entry=entry,
                    formulas=[
                        f
                        for f in formulas
                        if f.formula_id == entry.defining_formula_id or any(v.term_id == term_id for v in f.variables)
                    ],
                    rules=[r for r in rules if term_id in r.term_ids],
                    row=ReviewQueueRow.model_validate(row) if row else None,
                )
        return None

    def _artifact(self, doc_id: str) -> dict:
        artifact = self.layout.parsed_dir(doc_id) / ARTIFACT_NAME
        return json.loads(artifact.read_bytes()) if artifact.is_file() else {}

    def content_hash(self, doc_id: str) -> str | None:
        """The document version an entry is read from: the sha256 of the source PDF the artifact
        was parsed from (`ParsedDocument.content_hash`); None without the artifact."""
        return self._artifact(doc_id).get("content_hash")

    def source_pdf(self, doc_id: str) -> Path | None:
        """The exact PDF MinerU parsed for this document: the parse cache's copy, which the
        artifact names (`raw_output_dir`). None when the artifact or the cache entry is gone."""
        raw_output_dir = self._artifact(doc_id).get("raw_output_dir")  # ParsedDocument's field
        pdf = Path(raw_output_dir) / SOURCE_COPY if raw_output_dir else None
        return pdf if pdf is not None and pdf.is_file() else None


def facet_counts(rows: list[QueueRow]) -> dict[str, Counter[str]]:
    """How many rows each document, review_reason and state has: the filters' counts."""
    return {
        "doc": Counter(r.doc_id for r in rows),
        "reason": Counter(r.row.review_reason for r in rows if r.row),
        "state": Counter(r.state for r in rows),
    }


def filter_queue(rows: list[QueueRow], doc: str, reason: str, state: str) -> list[QueueRow]:
    """The rows of one document, review reason and state; an empty filter keeps every row."""
    return [
        r
        for r in rows
        if (not doc or r.doc_id == doc)
        and (not reason or (r.row is not None and r.row.review_reason == reason))
        and (not state or r.state == state)
    ]


def next_pending(rows: list[QueueRow], after: str) -> str | None:
    """The first pending row after `after` in queue order (wrapping), for "decide, then next"."""
    at = next((i for i, r in enumerate(rows) if r.term_id == after), -1)
    for row in rows[at + 1 :] + rows[: max(at, 0)]:
        if row.state == "pending":
            return row.term_id
    return None
