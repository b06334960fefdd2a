"""The review queue (contract §9): a flat, join-free projection of the glossary, conflicts
first, then the most mentioned terms."""

from __future__ import annotations

import re

from ..document.text import key
from .contracts import GlossaryEntry, RejectedField, ReviewQueueRow, ReviewReason

_SECTION_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s*")
_ABBREVIATION_SUFFIX = re.compile(r"\s*\([^()]*\)\s*$")


def review_reason(entry: GlossaryEntry, rejected_definition: bool) -> ReviewReason:
    if entry.definition_conflict:
        return "conflicting definitions — expert decision required"
    if entry.definition is None and (rejected_definition or entry.extraction_status == "escalated"):
        return "definition rejected by span check or absent"
    if entry.definition is None:
        return "term found but no definition in document"
    if entry.source_wording and entry.full_name:
        printed = _ABBREVIATION_SUFFIX.sub("", _SECTION_NUMBER.sub("", entry.source_wording))
        if key(printed) != key(entry.full_name):
            return "source wording differs from the expanded name — confirm which is correct"
    return "routine confirmation"


def review_queue(glossary: list[GlossaryEntry], rejected: list[RejectedField]) -> list[ReviewQueueRow]:
    refused = {r.entry_term for r in rejected if r.branch == "glossary" and r.field == "definition"}
    ordered = sorted(glossary, key=lambda e: (not e.definition_conflict, -e.mention_count, e.term, e.term_id))
    return [
        ReviewQueueRow(
            rank=rank,
            term_id=entry.term_id,
            term=entry.term,
            definition=entry.definition,
            source_wording=entry.source_wording,
            mention_count=entry.mention_count,
            page=entry.provenance.page,
            section_no=entry.provenance.section_no,
            span=entry.provenance.span,
            review_reason=review_reason(entry, entry.term in refused),
        )
        for rank, entry in enumerate(ordered, start=1)
    ]
