"""The active glossary as files downstream users read: JSON (one object per approved entry) and
CSV (the same columns). An entry is in it when its current decision approves it (an edit
approves the edited definition); `orphaned` says its term_id is in no payload any more,
`source_changed` that its document now says something else (the approval stands, with what
it approved, until an expert decides on the new wording)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from pydantic import BaseModel

from ..files import write_text_atomically
from .corpus import Corpus, decided_on
from .store import DecisionStore


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


def active_entries(store: DecisionStore, corpus: Corpus) -> list[ActiveEntry]:
    current = {row.term_id: row.row.definition for row in corpus.queue({}) if row.row is not None}
    # The glossary's: approved rules, formulas and briefs are in the active knowledge (the diff),
    # not in this file.
    return [
        ActiveEntry(
            term_id=d.term_id,
            doc_id=d.doc_id,
            term=d.term,
            definition=d.definition,
            extracted_definition=d.extracted_definition,
            edited=d.decision == "edit",
            reviewer=d.reviewer,
            decided_at=d.decided_at,
            orphaned=d.term_id not in current,
            source_changed=d.term_id in current and not decided_on(d, current[d.term_id]),
        )
        for d in store.approved()
        if d.kind == "term"
    ]


def to_csv(entries: list[ActiveEntry]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(ActiveEntry.model_fields), lineterminator="\n")
    writer.writeheader()
    writer.writerows(e.model_dump() for e in entries)
    return out.getvalue()


def write_active_glossary(entries: list[ActiveEntry], out: Path) -> list[Path]:
    """`out/active_glossary.json` and `out/active_glossary.csv`, each written atomically."""
    json_path, csv_path = out / "active_glossary.json", out / "active_glossary.csv"
    write_text_atomically(json_path, json.dumps([e.model_dump() for e in entries], ensure_ascii=False, indent=2) + "\n")
    write_text_atomically(csv_path, to_csv(entries))
    return [json_path, csv_path]
