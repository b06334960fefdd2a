"""What the review desk shows, read from the data root: every document's payloads
(`<data root>/knowledge/<doc_id>/`), joined with the decisions by entry_id, each entry's status
against them computed as it is read (status.py).

The queue binds to `review_queue.json` (contract §9: "the payload a review UI binds to") and keeps
its order across documents: conflicts first, then mention_count descending. A decision whose
entry_id no payload has any more is shown as orphaned, never dropped; one made on a definition
the document no longer says is shown with its entry, pending again.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from ..knowledge.payloads.contracts import BriefContext, FormulaEntry, GlossaryEntry, ReviewQueueRow, RuleEntry
from ..knowledge.payloads.document_versions import KEPT_PAYLOADS, DocumentVersion, list_versions, version_folder
from ..parsing.mineru_adapter import SOURCE_COPY
from ..paths import DataLayout
from ..pipeline import ARTIFACT_NAME
from .expert_entries import ExpertEntries, ExpertEntry, anchored, document_chunks
from .items import (
    CONFLICT,
    KINDS,
    Entity,
    KindFilter,
    ReviewItem,
    brief_item,
    formula_item,
    rule_item,
    term_item,
    text_key,
    with_status,
)
from .status import Decided, EntryStatus, State, entry_status
from .store import Decision, Kind


class QueueRow(BaseModel):
    """A queue row of any kind with the document it came from and its decision state. `entry_id`
    is the entry's id whatever its kind; `row` is a term's `ReviewQueueRow`, `item` every kind's
    view (None when orphaned)."""

    doc_id: str
    row: ReviewQueueRow | None  # None for an orphaned decision and for the kinds other than term
    entry_id: str
    term: str
    state: State
    decision: Decision | None
    kind: Kind = "term"
    item: ReviewItem | None = None
    # Against the document version: "carried" — decided on an earlier version whose text this
    # one still says; "changed" — pending because the text changed since it was decided.
    since: Literal["carried", "changed"] | None = None

    @property
    def text(self) -> str | None:
        """The entry's text as it stands: the edit's, once edited, else the extracted one."""
        if self.state == "edited" and self.decision is not None:
            return self.decision.definition
        return self.item.text if self.item else None


@dataclass(frozen=True)
class Entry:
    doc_id: str
    kind: Kind
    entity: Entity  # the payload's object: GlossaryEntry, RuleEntry, FormulaEntry, BriefContext
    item: ReviewItem
    status: EntryStatus
    formulas: list[FormulaEntry]  # a term's and a rule's linked formulas
    rules: list[RuleEntry]  # a term's rules
    row: ReviewQueueRow | None  # a term's queue row

    @property
    def entry(self) -> GlossaryEntry:
        """A term's glossary entry (only for kind "term")."""
        assert isinstance(self.entity, GlossaryEntry)
        return self.entity


@dataclass(frozen=True)
class Found:
    """An entry of a document: the desk's view of it, the payload's object, where it stands
    against the decisions it was read with, and a term's queue row (its reason the desk's)."""

    item: ReviewItem
    entity: Entity
    status: EntryStatus
    row: ReviewQueueRow | None = None


@dataclass(frozen=True)
class Document:
    """One document's payloads, as the desk reads them."""

    doc_id: str
    queue: list[ReviewQueueRow]
    glossary: list[GlossaryEntry]
    rules: list[RuleEntry]
    formulas: list[FormulaEntry]
    brief: BriefContext | None

    @cached_property
    def views(self) -> list[tuple[ReviewItem, Entity, str | None, ReviewQueueRow | None]]:
        """Every entry of every kind as the document alone says it, in its order (a term's: the
        queue's rank), with the name it is matched by (a term's, a formula's) and a term's queue
        row: made once per reading of the files."""
        terms = {e.term_id: e for e in self.glossary}
        views: list[tuple[ReviewItem, Entity, str | None, ReviewQueueRow | None]] = [
            (term_item(self.doc_id, row, terms[row.term_id]), terms[row.term_id], row.term, row)
            for row in self.queue
            if row.term_id in terms
        ]
        views += [(rule_item(self.doc_id, rule, rank), rule, None, None) for rank, rule in enumerate(self.rules, 1)]
        views += [(formula_item(self.doc_id, f, rank), f, f.name, None) for rank, f in enumerate(self.formulas, 1)]
        if self.brief is not None:
            views.append((brief_item(self.doc_id, self.brief), self.brief, None, None))
        return views

    def items(self, decided: Decided) -> list[Found]:
        """Every entry, each with its status against `decided` (a term's row with its reason)."""
        found = []
        for view, entity, name, row in self.views:
            status = entry_status(view.kind, view.id, name, view.text, decided, view.conflict_variants)
            item = with_status(view, status)
            if row is not None and item.review_reason != row.review_reason:
                row = row.model_copy(update={"review_reason": item.review_reason})
            found.append(Found(item, entity, status, row))
        return found


def _since(decision: Decision | None, state: State, version: str | None) -> Literal["carried", "changed"] | None:
    if decision is None:
        return None
    if state == "pending":
        return "changed"
    carried = decision.doc_version is not None and version is not None and decision.doc_version != version
    return "carried" if carried else None


def _read(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []


def _order(item: ReviewItem) -> tuple:
    # The contract's order across documents (conflicts first, then mentions); within a document,
    # its own rank breaks ties; kinds in KINDS' order.
    return (KINDS.index(item.kind), item.review_reason != CONFLICT, -item.mention_count, item.doc_id, item.rank)


def _stamp(folder: Path) -> tuple:
    """What says a document's payloads changed: each file's size and modification time (they
    are written atomically, by rename, so a re-extraction always changes them)."""
    stamps: list[tuple[int, int] | None] = []
    for name in KEPT_PAYLOADS:  # the desk's five, in a document's folder and in a kept version
        try:
            stat = (folder / name).stat()
            stamps.append((stat.st_mtime_ns, stat.st_size))
        except FileNotFoundError:
            stamps.append(None)
    return tuple(stamps)


class Corpus:
    """The payloads under one data root. Looked at on every call: a re-extraction shows at the
    next page load; a document whose files did not change is not parsed again."""

    def __init__(self, layout: DataLayout, added: ExpertEntries | None = None) -> None:
        self.layout = layout
        self.added = added  # the entries experts added (None: the payloads' alone)
        self._read: dict[str, tuple[tuple, Document]] = {}  # by folder: the document's, a kept version's
        self._artifacts: dict[str, tuple[tuple, dict]] = {}
        self._items: tuple[tuple, list[Found]] | None = None

    def documents(self) -> list[str]:
        root = self.layout.knowledge
        return sorted(p.name for p in root.iterdir() if (p / "review_queue.json").is_file()) if root.is_dir() else []

    def document(self, doc_id: str) -> Document:
        return self._document(doc_id, self.layout.knowledge / doc_id)

    def _document(self, doc_id: str, folder: Path) -> Document:
        stamp = _stamp(folder)
        known = self._read.get(str(folder))
        if known is None or known[0] != stamp:
            known = self._read[str(folder)] = (stamp, self._parse(doc_id, folder))
        return known[1]

    def _stamp_of(self, doc_id: str) -> tuple:
        """The stamp of the document as now read (read again first if its files changed)."""
        self.document(doc_id)
        return self._read[str(self.layout.knowledge / doc_id)][0]

    def _parse(self, doc_id: str, folder: Path) -> Document:
        brief = folder / "brief_context.json"
        return Document(
            doc_id=doc_id,
            queue=[ReviewQueueRow.model_validate(r) for r in _read(folder / "review_queue.json")],
            glossary=[GlossaryEntry.model_validate(r) for r in _read(folder / "glossary.json")],
            rules=[RuleEntry.model_validate(r) for r in _read(folder / "interpretation_pack.json")],
            formulas=[FormulaEntry.model_validate(r) for r in _read(folder / "formulas.json")],
            brief=BriefContext.model_validate_json(brief.read_bytes()) if brief.is_file() else None,
        )

    def versioned(self) -> list[str]:
        """The documents with kept versions (a document whose latest extraction failed too)."""
        root = self.layout.knowledge_versions
        return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []

    def versions(self, doc_id: str) -> list[DocumentVersion]:
        """The document's kept versions, oldest extraction first (document_versions.py)."""
        return list_versions(self.layout.document_versions(doc_id))

    def version_document(self, doc_id: str, content_hash: str) -> Document:
        """One kept version's payloads, read as the document's own are."""
        return self._document(doc_id, version_folder(self.layout.document_versions(doc_id), content_hash))

    def items(self, decisions: Mapping[str, Decision]) -> list[Found]:
        """Every entry of every document, each with its status against `decisions` (every
        entry's current one). Made again only when a document's files or the decisions changed:
        a read asks twice (re-attachment, then the queue), and most reads change neither."""
        stamps = tuple((doc_id, self._stamp_of(doc_id)) for doc_id in self.documents())
        added = self.added.all() if self.added else []
        artifacts = tuple(self._artifact_stamp(doc_id) for doc_id in sorted({e.doc_id for e in added}))
        key = (stamps, frozenset(d.id for d in decisions.values()), tuple(e.entry_id for e in added), artifacts)
        if self._items is None or self._items[0] != key:
            decided = Decided(decisions)
            found = [found for doc_id, _ in stamps for found in self.document(doc_id).items(decided)]
            self._items = (key, found + self._added(found, added, decided))
        return self._items[1]

    def _added(self, found: list[Found], added: list[ExpertEntry], decided: Decided) -> list[Found]:
        """The experts' entries no reader's joins: one a reader proposes too (its id, or its
        document, kind and text) is the reader's, the expert's approval moved onto it (reattach.py)."""
        ids = {f.item.id for f in found}
        texts = {text_key(f.item.doc_id, f.item.kind, f.item.label, f.item.text) for f in found}
        kept = []
        for entry in added:
            if entry.entry_id in ids or text_key(entry.doc_id, entry.kind, entry.label, entry.text) in texts:
                continue
            chunk = anchored(entry, document_chunks(self.layout, entry.doc_id))
            name = entry.fields.get("term") or entry.fields.get("name")
            status = entry_status(entry.kind, entry.entry_id, name, entry.text, decided)
            kept.append(Found(with_status(entry.item(chunk), status), entry.entity(chunk), status))
        return kept

    def _artifact_stamp(self, doc_id: str) -> tuple[int, int] | None:
        try:
            stat = (self.layout.parsed_dir(doc_id) / ARTIFACT_NAME).stat()
        except FileNotFoundError:
            return None
        return (stat.st_mtime_ns, stat.st_size)

    def queue(self, decisions: dict[str, Decision], kind: KindFilter = "term") -> list[QueueRow]:
        """The queue of one kind ("all": every kind), then the decisions no entry has any more
        (orphaned), never dropped; a decision moved to another id (reattach.py) is not one."""
        found = sorted(self.items(decisions), key=lambda f: _order(f.item))
        shown = [f for f in found if kind in ("all", f.item.kind)]
        versions = {doc_id: self.content_hash(doc_id) for doc_id in {f.item.doc_id for f in shown}}
        rows = []
        for f in shown:
            decision = decisions.get(f.item.id)
            rows.append(
                QueueRow(
                    doc_id=f.item.doc_id,
                    row=f.row,
                    entry_id=f.item.id,
                    term=f.item.label,
                    state=f.status.state,
                    decision=decision,
                    kind=f.item.kind,
                    item=f.item,
                    since=_since(decision, f.status.state, versions[f.item.doc_id]),
                )
            )
        present = {f.item.id for f in found}
        # A moved decision is current on its new id only (`DecisionStore.latest`): not orphaned.
        rows += [
            QueueRow(
                doc_id=d.doc_id, row=None, entry_id=d.entry_id, term=d.term, state="orphaned", decision=d, kind=d.kind
            )
            for d in sorted(decisions.values(), key=lambda d: (d.doc_id, d.term))
            if d.entry_id not in present and kind in ("all", d.kind)
        ]
        return rows

    def entry(self, entity_id: str, decisions: dict[str, Decision] | None = None) -> Entry | None:
        """The entry of any kind with this id, its status against `decisions`."""
        found = next((f for f in self.items(decisions or {}) if f.item.id == entity_id), None)
        if found is None:
            return None
        item, entity = found.item, found.entity
        document = self.document(item.doc_id)
        formulas: list[FormulaEntry] = []
        rules: list[RuleEntry] = []
        if isinstance(entity, GlossaryEntry):
            formulas = [
                f
                for f in document.formulas
                if f.formula_id == entity.defining_formula_id or any(v.term_id == entity_id for v in f.variables)
            ]
            rules = [r for r in document.rules if entity_id in r.term_ids]
        elif isinstance(entity, RuleEntry):
            formulas = [f for f in document.formulas if f.formula_id in entity.formula_ids]
        return Entry(item.doc_id, item.kind, entity, item, found.status, formulas, rules, found.row)

    def _artifact(self, doc_id: str) -> dict:
        """The artifact's version fields (read again only when the file changed: it can be large)."""
        artifact = self.layout.parsed_dir(doc_id) / ARTIFACT_NAME
        try:
            stat = artifact.stat()
        except FileNotFoundError:
            return {}
        stamp = (stat.st_mtime_ns, stat.st_size)
        known = self._artifacts.get(doc_id)
        if known is None or known[0] != stamp:
            raw = json.loads(artifact.read_bytes())
            known = self._artifacts[doc_id] = (
                stamp,
                {k: raw.get(k) for k in ("content_hash", "raw_output_dir", "source_path", "n_pages")},
            )
        return known[1]

    def content_hash(self, doc_id: str) -> str | None:
        """The document version an entry is read from: the sha256 of the source PDF the artifact
        was parsed from (`ParsedDocument.content_hash`); None without the artifact."""
        return self._artifact(doc_id).get("content_hash")

    def pages(self, doc_id: str) -> int | None:
        """How many pages MinerU returned for the document (`ParsedDocument.n_pages`)."""
        return self._artifact(doc_id).get("n_pages")

    def source_name(self, doc_id: str) -> str:
        """The file name the document was ingested as (its doc_id's PDF without the artifact)."""
        source_path = self._artifact(doc_id).get("source_path")
        return Path(source_path).name if source_path else f"{doc_id}.pdf"

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
        "reason": Counter(r.item.review_reason for r in rows if r.item),
        "state": Counter(r.state for r in rows),
    }


def matches(row: QueueRow, query: str) -> bool:
    """Whether the row's term, full name, text (extracted or edited) or span holds `query` (case
    aside)."""
    needle = query.casefold().strip()
    item = row.item
    haystack = [row.term, row.entry_id, row.text or ""]
    haystack += [item.full_name or "", item.text or "", item.span] if item else []
    return any(needle in h.casefold() for h in haystack)


@dataclass(frozen=True)
class QueueFilter:
    """The queue's filters, as the page's form and `/api/queue` take them (query parameters): one
    kind ("all": every kind), document, review reason and state, and text to search for; an
    empty one keeps every row."""

    kind: KindFilter = "term"
    doc: str = ""
    reason: str = ""
    state: str = ""
    q: str = ""

    def keeps(self, row: QueueRow) -> bool:
        return (
            self.kind in ("all", row.kind)
            and (not self.doc or row.doc_id == self.doc)
            and (not self.reason or (row.item is not None and row.item.review_reason == self.reason))
            and (not self.state or row.state == self.state)
            and (not self.q.strip() or matches(row, self.q))
        )

    def apply(self, rows: list[QueueRow]) -> list[QueueRow]:
        return [r for r in rows if self.keeps(r)]


def next_pending(rows: list[QueueRow], after: str) -> str | None:
    """The first pending row after `after` in queue order (wrapping), for "decide, then next"."""
    at = next((i for i, r in enumerate(rows) if r.entry_id == after), -1)
    for row in rows[at + 1 :] + rows[: max(at, 0)]:
        if row.state == "pending":
            return row.entry_id
    return None
