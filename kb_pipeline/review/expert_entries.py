"""Entries an expert adds where the readers found none: a term, a rule or a
formula read from a selection in one chunk of the parsed document.

Each field is span-checked against that chunk as every reader's value is (`spans.locate`: the
chunk's own characters, layout aside), and the entry gets the content id a reader would give it
(`t_`/`r_`/`f_`, ids.py), so a later extraction of the same entry has the same id, or the same
text, and joins it (corpus.py shows one entry, reattach.py moves the expert's approval onto the
reader's). Added entries live in the review database beside the decisions (the payloads are the
readers'), with `origin: expert` and the account that added them; each is recorded with an
approval, so it is in the queue and the exports at once. After a re-parse an entry is found
again by its text: the chunk that says its span now (`anchored`), its id unchanged.

A field the chunk does not say is refused, as a reader's is, never stored loosened: every field
refused is named at once (`EntryRefused.fields`), with the chunk's words nearest to what was typed
(nearest_words.py), so the add form marks each and offers the chunk's own words in its place.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

import sqlalchemy as sa
from pydantic import BaseModel, field_validator

from ..contracts import Chunk, ParsedDocument
from ..knowledge.document.text import canonical
from ..knowledge.payloads import ids
from ..knowledge.payloads.contracts import FormulaEntry, FormulaVariable, GlossaryEntry, Provenance, RuleEntry
from ..knowledge.payloads.spans import locate
from ..paths import DataLayout
from ..pipeline import ARTIFACT_NAME
from .items import EDITABLE, RULE_TYPES, TEXT_FIELD, VARIABLE_FIELD, Entity, ReviewItem
from .nearest_words import nearest_words
from .store import DecisionStore, create_tables, decided_now, metadata

AddedKind = Literal["term", "rule", "formula"]
ADDED = "added by an expert"  # its review reason in the queue, and its approval's reason
# The fields an added entry may set, per kind: a term's own (with its full name), a rule's and a
# formula's as an edit sets them (a formula's variables under "variables.<symbol>").
FIELDS: dict[AddedKind, tuple[str, ...]] = {
    "term": ("term", "full_name", "definition"),
    "rule": EDITABLE["rule"],
    "formula": EDITABLE["formula"],
}
# Content, each checked verbatim in the chunk; what is not (a rule's type, a formula's unit) is
# a reviewer's label.
_NOT_VERBATIM = frozenset({"rule_type", "unit"})

expert_entries_table = sa.Table(
    "review_expert_entries",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("entry_id", sa.String(64), nullable=False, index=True),
    sa.Column("doc_id", sa.String(512), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("chunk_id", sa.String(600), nullable=False),  # the chunk selected in, when added
    sa.Column("span", sa.Text, nullable=False),
    sa.Column("fields", sa.Text, nullable=False),  # JSON: FIELDS' values, each verbatim
    sa.Column("reviewer", sa.String(200), nullable=False),
    sa.Column("account_id", sa.Integer, nullable=True),
    sa.Column("added_at", sa.String(32), nullable=False),
)


class ExpertEntry(BaseModel):
    entry_id: str
    doc_id: str
    kind: AddedKind
    chunk_id: str
    span: str
    fields: dict[str, str]
    reviewer: str
    account_id: int | None = None
    added_at: str

    @field_validator("fields", mode="before")
    @classmethod
    def _from_json(cls, value: object) -> object:
        return json.loads(value) if isinstance(value, str) else value

    @property
    def label(self) -> str:
        """What names it in the queue: a term's term, a formula's name, else its text."""
        return self.fields.get("term") or self.fields.get("name") or self.text or self.entry_id

    @property
    def text(self) -> str | None:
        """TEXT_FIELD's value (a term without a definition: its full name), what a decision is on."""
        return self.fields.get(TEXT_FIELD[self.kind]) or self.fields.get("full_name")

    def entity(self, chunk: Chunk | None) -> Entity:
        """The entry as a reader's payload holds it, its provenance the chunk that says it now."""
        provenance = Provenance(
            doc_id=self.doc_id,
            span=self.span,
            page=chunk.page_idx if chunk else None,
            section_no=chunk.section_no if chunk else None,
            chunk_id=chunk.chunk_id if chunk else self.chunk_id,
        )
        get = self.fields.get
        if self.kind == "term":
            return GlossaryEntry(
                term_id=self.entry_id,
                term=self.fields["term"],
                full_name=get("full_name"),
                definition=get("definition"),
                provenance=provenance,
            )
        if self.kind == "rule":
            return RuleEntry(
                rule_id=self.entry_id,
                rule_type=get("rule_type") or "interpretation",  # checked on input
                statement=get("statement"),
                condition=get("condition"),
                consequence=get("consequence"),
                provenance=provenance,
            )
        variables = [
            FormulaVariable(symbol=k.removeprefix(VARIABLE_FIELD), meaning=v or None)
            for k, v in self.fields.items()
            if k.startswith(VARIABLE_FIELD)
        ]
        return FormulaEntry(
            formula_id=self.entry_id,
            name=get("name"),
            formula_latex=get("formula_latex"),
            variables=variables,
            unit=get("unit"),
            provenance=provenance,
        )

    def item(self, chunk: Chunk | None) -> ReviewItem:
        """The entry as the queue shows it."""
        return ReviewItem(
            kind=self.kind,
            id=self.entry_id,
            doc_id=self.doc_id,
            label=self.label,
            full_name=self.fields.get("full_name"),
            text=self.text,
            page=chunk.page_idx if chunk else None,
            section_no=chunk.section_no if chunk else None,
            span=self.span,
            review_reason=ADDED,
            origin="expert",
            added_by=self.reviewer,
        )


@dataclass(frozen=True)
class FieldRefused:
    """One field of an added entry refused: which (`variables.<symbol>` for a variable's meaning),
    why, what was typed, and, when the chunk does not say it, the chunk's words nearest to it
    (`nearest_words`), which the add form offers in its place."""

    field: str
    message: str
    typed: str
    nearest: tuple[str, ...] = ()


class EntryRefused(ValueError):
    """An added entry that cannot be: said in words the desk shows as they are (422), with each
    field refused (`fields`; none when the entry as a whole is: its chunk, its id taken)."""

    def __init__(self, message: str, fields: tuple[FieldRefused, ...] = ()) -> None:
        super().__init__(message)
        self.fields = fields


def _not_verbatim(name: str, value: str, chunk: Chunk) -> FieldRefused:
    nearest = tuple(nearest_words(value, chunk.text))
    offer = (
        "; the chunk's nearest words: " + " / ".join(f"“{n}”" for n in nearest)
        if nearest
        else "; no words of the chunk come close"
    )
    message = f"{name} is not verbatim in {chunk.chunk_id}: select it in the chunk's text{offer}"
    return FieldRefused(name, message, value, nearest)


def checked_fields(kind: AddedKind, fields: Mapping[str, str], chunk: Chunk) -> dict[str, str]:
    """The fields as the chunk writes them (`locate`), blanks dropped; EntryRefused, naming every
    field refused at once, for a field the kind has not, a value the chunk does not say (with the
    chunk's nearest words), or an entry without its text."""
    kept: dict[str, str] = {}
    refused: list[FieldRefused] = []
    for name, value in fields.items():
        if name not in FIELDS[kind] and not (kind == "formula" and name.startswith(VARIABLE_FIELD)):
            refused.append(
                FieldRefused(name, f"a {kind} has no field {name!r} (it has {', '.join(FIELDS[kind])})", value)
            )
        elif not value.strip():
            continue
        elif name == "rule_type" and value not in RULE_TYPES:
            refused.append(FieldRefused(name, f"rule_type must be one of {', '.join(RULE_TYPES)}", value))
        elif (found := value if name in _NOT_VERBATIM else locate(value, chunk)) is None:
            refused.append(_not_verbatim(name, value, chunk))
        else:
            kept[name] = found
    needed = ("term",) if kind == "term" else (TEXT_FIELD[kind],)
    # A needed field refused above is said once, as refused.
    said = {r.field for r in refused}
    refused += [
        FieldRefused(name, f"a {kind} needs its {name}", "") for name in needed if name not in kept.keys() | said
    ]
    if refused:
        raise EntryRefused("; ".join(r.message for r in refused), tuple(refused))
    if kind == "term" and not (kept.keys() & {"full_name", "definition"}):
        raise EntryRefused("a term needs its full name or its definition")
    return kept


def content_id(doc_id: str, kind: AddedKind, fields: Mapping[str, str], chunk: Chunk) -> str:
    """The id a reader gives the same entry (ids.py): a term's by its canonical form, a rule's by
    its chunk and offset, a formula's by its name or expression."""
    if kind == "term":
        return ids.term_id(doc_id, canonical(fields["term"]))
    if kind == "rule":
        return ids.rule_id(doc_id, chunk.chunk_id, max(chunk.text.find(fields["statement"]), 0))
    return ids.formula_id(doc_id, fields.get("name"), fields.get("formula_latex"), chunk.chunk_id)


@lru_cache(maxsize=8)
def _chunks(path: Path, stamp: tuple[int, int]) -> tuple[Chunk, ...]:
    """The artifact's chunks, read again only when the file changed (`stamp`)."""
    return tuple(ParsedDocument.model_validate_json(path.read_bytes()).chunks)


def document_chunks(layout: DataLayout, doc_id: str) -> tuple[Chunk, ...]:
    """The parsed document's chunks in reading order (none without its artifact)."""
    path = layout.parsed_dir(doc_id) / ARTIFACT_NAME
    try:
        stat = path.stat()
    except FileNotFoundError:
        return ()
    return _chunks(path, (stat.st_mtime_ns, stat.st_size))


def anchored(entry: ExpertEntry, chunks: tuple[Chunk, ...]) -> Chunk | None:
    """The chunk that says the entry's span now: the one it was added in while that still does,
    else the one chunk that does (a re-parse renumbered them); None when none, or several, do."""
    by_id = next((c for c in chunks if c.chunk_id == entry.chunk_id), None)
    if by_id is not None and locate(entry.span, by_id) is not None:
        return by_id
    saying = [c for c in chunks if locate(entry.span, c) is not None]
    return saying[0] if len(saying) == 1 else None


class ExpertEntries:
    """The added entries of one review database. Readers (the exports) never create its table."""

    def __init__(self, store: DecisionStore) -> None:
        self.store = store
        self._known = False

    def _has_table(self) -> bool:
        if not self._known and self.store.has_table():
            self._known = sa.inspect(self.store.engine).has_table(expert_entries_table.name)
        return self._known

    def all(self) -> list[ExpertEntry]:
        if not self._has_table():
            return []
        query = sa.select(expert_entries_table).order_by(expert_entries_table.c.id)
        with self.store.engine.begin() as connection:
            return [ExpertEntry.model_validate(row._asdict()) for row in connection.execute(query)]

    def add(
        self,
        layout: DataLayout,
        *,
        doc_id: str,
        kind: AddedKind,
        chunk_id: str,
        span: str,
        fields: Mapping[str, str],
        reviewer: str,
        account_id: int | None = None,
        doc_version: str | None = None,
        taken: Collection[str] = (),
    ) -> ExpertEntry:
        """The entry, span-checked in its chunk, recorded with its approval; EntryRefused if the
        chunk does not say it, or the desk has an entry of its id already (`taken`, or added)."""
        chunk = next((c for c in document_chunks(layout, doc_id) if c.chunk_id == chunk_id), None)
        if chunk is None:
            raise EntryRefused(f"no chunk {chunk_id!r} in the parsed document {doc_id!r}")
        located = locate(span, chunk)
        if located is None:
            raise EntryRefused(f"the selection is not verbatim in {chunk_id}")
        kept = checked_fields(kind, fields, chunk)
        entry = ExpertEntry(
            entry_id=content_id(doc_id, kind, kept, chunk),
            doc_id=doc_id,
            kind=kind,
            chunk_id=chunk_id,
            span=located,
            fields=kept,
            reviewer=reviewer,
            account_id=account_id,
            added_at=decided_now(),
        )
        if entry.entry_id in taken or any(e.entry_id == entry.entry_id for e in self.all()):
            raise EntryRefused(f"the document has this {kind} already ({entry.entry_id}): decide it in the queue")
        create_tables(self.store.engine, [expert_entries_table])
        self._known = True
        values = entry.model_dump()
        values["fields"] = json.dumps(kept, ensure_ascii=False)
        with self.store.engine.begin() as connection:
            connection.execute(expert_entries_table.insert().values(**values))
        self.store.record(
            entry_id=entry.entry_id,
            doc_id=doc_id,
            term=entry.label,
            decision="approve",
            extracted_definition=entry.text,
            reviewer=reviewer,
            reason=ADDED,
            account_id=account_id,
            doc_version=doc_version,
            kind=kind,
        )
        return entry
