"""The approved knowledge written as files, in the formats asked: the one writer behind
`kb-pipeline knowledge export` and the Dagster assets (docs/review.md, "Exports").

    json  active_glossary.json  active_knowledge.json   (the approved terms; rules, formulas, briefs)
    csv   active_glossary.csv   active_knowledge.csv
    tbx   active_glossary.tbx   (TBX-Basic, tbx.py)
    skos  active_glossary.ttl   (SKOS in Turtle, skos.py)

Every file is written atomically; the decisions are read once, with the re-attachments a
re-parse calls for applied but not recorded (reattach.py `read_decisions`: an export never
writes to the desk's database, and one run right after a re-parse lists the moved ids), and
every format of a call is made from that one reading, so its files agree.

Nothing to export is said, not written as empty files: `allow_empty=False` (the CLI's default)
refuses a data root with no knowledge payloads or no approved entry (`NothingToExport`). An empty
glossary never makes a TBX (TBX-Basic's body needs a conceptEntry): none is written, and one left
from an earlier export is removed, so no file says terms are approved that are not."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..files import write_text_atomically
from .corpus import Corpus
from .export import ActiveEntry, ActiveKnowledge, active_entries, active_knowledge, to_csv, to_json
from .reattach import read_decisions
from .skos import DEFAULT_BASE_IRI, to_skos
from .store import Decision, DecisionStore
from .tbx import to_tbx

FORMATS = ("json", "csv", "tbx", "skos")


class NothingToExport(ValueError):
    """An export that would write only empty files, said in words the CLI shows as they are."""


@dataclass
class KnowledgeExport:
    entries: list[ActiveEntry]
    knowledge: list[ActiveKnowledge]
    files: dict[str, list[Path]] = field(default_factory=dict)  # by format, in FORMATS order

    @property
    def paths(self) -> list[Path]:
        return [path for paths in self.files.values() for path in paths]


def write_knowledge_export(
    store: DecisionStore,
    corpus: Corpus,
    out: Path,
    formats: Iterable[str] = FORMATS,
    language: str = "und",
    base_iri: str = DEFAULT_BASE_IRI,
    allow_empty: bool = True,
) -> KnowledgeExport:
    """The files of `formats` under `out`; `language` (BCP 47) for the TBX and the SKOS labels."""
    decisions = read_decisions(corpus, store)
    export = KnowledgeExport(active_entries(decisions, corpus), active_knowledge(decisions, corpus))
    if not allow_empty and not export.entries and not export.knowledge:
        documents = len(corpus.documents())
        raise NothingToExport(
            f"no approved entry among the {documents} documents under {corpus.layout.knowledge}"
            if documents
            else f"nothing found: no knowledge payloads under {corpus.layout.knowledge} (is KB_DATA_DIR the data root?)"
        )
    asked = set(formats)
    # Every file made before any is written: one that cannot be made (a TBX of a text XML cannot
    # hold) leaves the others as they were.
    made: dict[str, dict[Path, str]] = {}
    for fmt in (f for f in FORMATS if f in asked):
        if fmt == "json":
            made[fmt] = {
                out / "active_glossary.json": to_json(export.entries),
                out / "active_knowledge.json": to_json(export.knowledge),
            }
        elif fmt == "csv":
            made[fmt] = {
                out / "active_glossary.csv": to_csv(export.entries, ActiveEntry),
                out / "active_knowledge.csv": to_csv(export.knowledge, ActiveKnowledge),
            }
        elif fmt == "tbx":
            made[fmt] = (
                {out / "active_glossary.tbx": to_tbx(export.entries, corpus, language)} if export.entries else {}
            )
        else:
            trails = store.histories([e.term_id for e in export.entries])
            histories = {e.term_id: _history(trails.get(e.term_id, []), decisions[e.term_id]) for e in export.entries}
            made[fmt] = {out / "active_glossary.ttl": to_skos(export.entries, corpus, histories, language, base_iri)}
    for fmt, texts in made.items():
        for path, text in texts.items():
            write_text_atomically(path, text)
        if fmt == "tbx" and not texts:
            (out / "active_glossary.tbx").unlink(missing_ok=True)
        export.files[fmt] = list(texts)
    return export


def _history(history: list[Decision], current: Decision) -> list[Decision]:
    """An entry's decisions (its trail, oldest first), ending with its current one: a
    re-attachment the desk has not recorded yet is the last."""
    return history if current in history else [*history, current]
