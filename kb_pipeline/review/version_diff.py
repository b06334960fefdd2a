"""What changed between versions of a document: its latest kept version against
the last one reviewed — the newest other version any decision of the document was made on
(`Decision.doc_version`), or, with none reviewed, the previous one. The latest is the version
the document's payloads were extracted from: the kept version of its artifact's content (what a
decision's `doc_version` records), not the newest extraction's number; when that one is not
kept (its folder removed, or a new content's extraction failed and left the old payloads),
nothing is compared.

Entries are matched across the two versions by their verbatim text first, so a re-parse that
renumbers them is no change: the same id saying the same text; then the same text under another
id (kind, squashed text and, for a term, the term: reattach.py's key); then the same id saying
another text; then, for a term, the same term under another id. What is left is removed (only
in the base) or added (only in the latest). A matched entry whose text (a term's definition, a
rule's statement, a formula's LaTeX, a brief's purpose) differs, layout aside, is changed, with
a word diff. A decision made on an earlier version whose text the latest still says is carried
(as the queue's `since: "carried"`).

Pending because of the new version (`pending_for_version`, what `kb-pipeline status` and the
queue's progress table count): the changed entries whose decision, made on an earlier version,
is pending again (the queue's `since: "changed"`), plus the added entries not decided yet.

`match_entries` and `diff_versions` are pure; `document_diff` and `version_diffs` (every
document's, for the queue's progress table, `/api/progress` and `kb-pipeline status`) read their
inputs (the kept versions, the base's payloads, the versions decided on) through the Corpus and
the store: one query for the versions decided on, one for the removed entries' trails, whatever
the documents; `version_diffs` keeps each document's diff until its inputs change.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Hashable
from dataclasses import dataclass
from typing import Literal
from weakref import WeakKeyDictionary

from pydantic import BaseModel, computed_field

from ..knowledge.document.text import canonical
from ..knowledge.payloads.document_versions import DocumentVersion
from .corpus import Corpus, Document, QueueRow
from .items import ReviewItem
from .reattach import text_key
from .status import Decided, decided_on, same_definition
from .store import Decision, DecisionStore
from .word_diff import Op, word_diff


class ChangedEntry(BaseModel):
    before: ReviewItem  # the entry in the base version
    row: QueueRow  # the entry now, with its decision
    words: list[tuple[Op, str]]  # the base's text against the latest's, word by word
    pending_for_version: bool  # decided on an earlier version, pending again


class RemovedEntry(BaseModel):
    item: ReviewItem  # the entry in the base version
    decision: Decision | None  # its decision, now orphaned


class VersionDiff(BaseModel):
    doc_id: str
    versions: list[DocumentVersion]  # every kept version, the oldest extraction first
    decisions_on: dict[str, int]  # content_hash → decisions made on it
    # The content the document's payloads come from (its artifact's); None: no payloads, or no artifact.
    payloads_version: str | None = None
    # Why the document has no payloads now: its latest extraction failed, or none is there (the
    # document removed from the drop folder, or not extracted since); None: it has payloads.
    no_payloads: Literal["failed", "absent"] | None = None
    latest: DocumentVersion | None  # the kept version of `payloads_version` (None: not kept)
    base: DocumentVersion | None  # None: nothing to compare (one version kept, or the latest not kept)
    base_reviewed: bool  # the base is the last reviewed version (else the previous, none reviewed)
    added: list[QueueRow] = []
    removed: list[RemovedEntry] = []
    changed: list[ChangedEntry] = []
    carried: list[QueueRow] = []
    unchanged: int = 0
    renumbered: int = 0  # of the unchanged, found under another id

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pending_for_version(self) -> int:
        return sum(c.pending_for_version for c in self.changed) + sum(r.state == "pending" for r in self.added)


def latest_version(versions: list[DocumentVersion], payloads_version: str | None) -> DocumentVersion | None:
    """The kept version the payloads were extracted from (None: not kept, or unknown)."""
    return next((v for v in versions if v.content_hash == payloads_version), None)


def base_version(
    versions: list[DocumentVersion], latest: DocumentVersion | None, decisions_on: dict[str, int]
) -> tuple[DocumentVersion | None, bool]:
    """The version `latest` is compared with, and whether it was reviewed: of the other kept
    versions (extraction order), the last reviewed, else the last."""
    if latest is None:
        return None, False
    earlier = [v for v in versions if v != latest]
    reviewed = [v for v in earlier if decisions_on.get(v.content_hash)]
    if reviewed:
        return reviewed[-1], True
    return (earlier[-1] if earlier else None), False


def _term_key(item: ReviewItem) -> Hashable | None:
    return canonical(item.label) if item.kind == "term" else None


def match_entries(
    before: list[ReviewItem], after: list[ReviewItem]
) -> tuple[list[tuple[ReviewItem, ReviewItem]], list[ReviewItem], list[ReviewItem]]:
    """The entries of two versions of one document paired (base, latest), in the module's order of
    evidence; then the base's unpaired (removed) and the latest's (added). A key two entries of
    one side share pairs neither: precision first."""
    left = {i.id: i for i in before}
    right = {i.id: i for i in after}
    pairs: list[tuple[ReviewItem, ReviewItem]] = []

    def by_id(same_text: bool) -> None:
        for id_ in [i for i in left if i in right]:
            if not same_text or same_definition(left[id_].text, right[id_].text):
                pairs.append((left.pop(id_), right.pop(id_)))

    def by_key(key: Callable[[ReviewItem], Hashable | None]) -> None:
        sides: list[dict[Hashable, list[ReviewItem]]] = [defaultdict(list), defaultdict(list)]
        for side, items in zip(sides, (left, right), strict=True):
            for item in items.values():
                k = key(item)
                if k is not None:
                    side[k].append(item)
        for k, (old, *more) in sides[0].items():
            new = sides[1].get(k, [])
            if not more and len(new) == 1:
                pairs.append((left.pop(old.id), right.pop(new[0].id)))

    by_id(same_text=True)
    by_key(lambda i: text_key(i.doc_id, i.kind, i.label, i.text))
    by_id(same_text=False)
    by_key(_term_key)
    return pairs, list(left.values()), list(right.values())


def _carried(row: QueueRow, latest: DocumentVersion | None) -> bool:
    # Decided on another version than the latest, whose text this one still says (the queue's
    # "carried", against the kept version rather than the artifact).
    decision = row.decision
    return (
        decision is not None
        and row.state != "pending"
        and latest is not None
        and decision.doc_version not in (None, latest.content_hash)
    )


def _made_on(decision: Decision | None, item: ReviewItem) -> Decision | None:
    # A removed entry's id may name another entry's decision now (a re-parse moved it there).
    return decision if decision is not None and decided_on(decision, item.text) else None


def diff_versions(
    doc_id: str,
    versions: list[DocumentVersion],
    payloads_version: str | None,
    decisions_on: dict[str, int],
    base_items: list[ReviewItem],
    rows: list[QueueRow],
    decisions: dict[str, Decision],
) -> VersionDiff:
    """The latest version (the payloads', `payloads_version`: its queue rows `rows`, every kind)
    against the base's entries `base_items` (base_version's); `decisions`: every entry's current one."""
    latest = latest_version(versions, payloads_version)
    base, reviewed = base_version(versions, latest, decisions_on)
    carried = [r for r in rows if _carried(r, latest)]
    diff = VersionDiff(
        doc_id=doc_id,
        versions=versions,
        decisions_on=decisions_on,
        payloads_version=payloads_version,
        latest=latest,
        base=base,
        base_reviewed=reviewed,
        carried=carried,
    )
    if latest is None or base is None:
        return diff
    now = {r.entry_id: r for r in rows if r.item is not None}
    pairs, removed, added = match_entries(base_items, [r.item for r in now.values() if r.item is not None])
    for old, new in pairs:
        if same_definition(old.text, new.text):
            diff.unchanged += 1
            diff.renumbered += old.id != new.id
            continue
        row = now[new.id]
        again = row.since == "changed" and row.decision is not None and row.decision.doc_version != latest.content_hash
        diff.changed.append(
            ChangedEntry(before=old, row=row, words=word_diff(old.text, new.text), pending_for_version=again)
        )
    diff.removed = [RemovedEntry(item=i, decision=_made_on(decisions.get(i.id), i)) for i in removed]
    diff.added = [now[i.id] for i in added]
    return diff


def _own_decisions(store: DecisionStore, diffs: Collection[VersionDiff]) -> None:
    # A removed entry whose id's latest decision is another's (a re-parse moved that one there):
    # its own, the newest made on its text, from the trail.
    orphans = [r for diff in diffs for r in diff.removed if r.decision is None]
    trails = store.histories({r.item.id for r in orphans})
    for removed in orphans:
        removed.decision = next(
            (d for d in reversed(trails.get(removed.item.id, [])) if _made_on(d, removed.item)), None
        )


def _document_diff(
    corpus: Corpus,
    doc_id: str,
    versions: list[DocumentVersion],
    decisions_on: dict[str, int],
    rows: list[QueueRow],
    decisions: dict[str, Decision],
) -> tuple[VersionDiff, Document | None]:
    # The diff of a document with payloads (its removed entries' own decisions not looked up
    # yet), and the base's payloads it was made from.
    payloads_version = corpus.content_hash(doc_id)
    base, _ = base_version(versions, latest_version(versions, payloads_version), decisions_on)
    base_document = corpus.version_document(doc_id, base.content_hash) if base else None
    base_items = [f.item for f in base_document.items(Decided({}))] if base_document else []
    diff = diff_versions(doc_id, versions, payloads_version, decisions_on, base_items, rows, decisions)
    return diff, base_document


def document_diff(
    corpus: Corpus, store: DecisionStore, decisions: dict[str, Decision], rows: list[QueueRow], doc_id: str
) -> VersionDiff:
    """The version diff of a document with payloads, as the desk reads it: its kept versions, the
    base's payloads, its rows of the queue (`rows`: the document's, every kind), the versions
    decided on."""
    decisions_on = store.decided_versions().get(doc_id, {})
    diff, _ = _document_diff(corpus, doc_id, corpus.versions(doc_id), decisions_on, rows, decisions)
    _own_decisions(store, [diff])
    return diff


@dataclass(frozen=True)
class _Known:
    """A document's diff and what it was made from."""

    key: tuple  # the decisions' ids, the kept versions' records, the payloads' version
    document: Document  # its payloads as read (the Corpus's object: another once the files change)
    base: Document | None  # the base's, likewise
    diff: VersionDiff

    def holds(self, corpus: Corpus, doc_id: str, key: tuple) -> bool:
        base = self.diff.base
        return (
            self.key == key
            and corpus.document(doc_id) is self.document
            and (base is None or corpus.version_document(doc_id, base.content_hash) is self.base)
        )


# Per desk (its Corpus), each document's diff: the queue page and /api/progress read it on every
# load, and most loads change neither the payloads, the versions nor the decisions. Any decision
# recorded changes the latest ones' ids (it is its entry's latest), so they stand for the versions
# decided on too, without the query.
_known: WeakKeyDictionary[Corpus, dict[str, _Known]] = WeakKeyDictionary()


def version_diffs(
    corpus: Corpus, store: DecisionStore, decisions: dict[str, Decision], rows: list[QueueRow]
) -> dict[str, VersionDiff]:
    """Every document with entries now and versions to compare (its latest kept, another beside
    it): its diff, made again only when its inputs changed. `rows`: the queue of every kind."""
    by_doc: dict[str, list[QueueRow]] = defaultdict(list)
    for row in rows:
        if row.item is not None:
            by_doc[row.doc_id].append(row)
    listed = {doc_id: corpus.versions(doc_id) for doc_id in corpus.versioned() if doc_id in by_doc}
    listed = {doc_id: versions for doc_id, versions in listed.items() if len(versions) > 1}
    ids = frozenset(d.id for d in decisions.values())
    keys = {
        doc_id: (
            ids,
            tuple((v.content_hash, v.extraction, v.extracted_at) for v in versions),
            corpus.content_hash(doc_id),
        )
        for doc_id, versions in listed.items()
    }
    known = {d: k for d, k in _known.get(corpus, {}).items() if d in listed}
    stale = [
        doc_id for doc_id in listed if doc_id not in known or not known[doc_id].holds(corpus, doc_id, keys[doc_id])
    ]
    if stale:
        decided = store.decided_versions()
        for doc_id in stale:
            diff, base = _document_diff(
                corpus, doc_id, listed[doc_id], decided.get(doc_id, {}), by_doc[doc_id], decisions
            )
            known[doc_id] = _Known(keys[doc_id], corpus.document(doc_id), base, diff)
        _own_decisions(store, [known[doc_id].diff for doc_id in stale])
    _known[corpus] = known
    return {doc_id: k.diff for doc_id, k in known.items() if k.diff.base is not None}
