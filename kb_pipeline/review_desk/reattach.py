"""Decisions that survive a re-parse (issue 27, item 2). A rule's id hashes its chunk and offset
(contract §1), so a parser change that renumbers chunks moves every rule's id — and may give an
old id to another rule; a clustering change can move a term's. A decision whose id no payload
has any more, or whose id's entry no longer says what was decided on, is re-attached to the
entry of the same document and kind whose verbatim text (definition, statement, formula,
purpose), squashed as the span check squashes it, is the text decided on — when exactly one
undecided entry says it (or one whose own decision is stale in the same way). A term must also be the same term (canonically): an approval of what
"A" means is not one of "B" defined alike. It is recorded as a new row naming both ids (`reattached_from`), the
original kept: the audit trail is appended to, never rewritten. Else it stays orphaned.
"""

from __future__ import annotations

from collections import defaultdict

from ..knowledge.text import canonical, squash
from .corpus import Corpus, decided_on
from .items import ReviewItem
from .store import Decision, DecisionStore, decided_now


def text_key(doc_id: str, kind: str, label: str, text: str | None) -> tuple[str, str, str, str] | None:
    """What says two entries are the same one, ids aside: its document, kind, verbatim text
    squashed, and for a term the term itself (canonically)."""
    squashed = squash(text or "")
    return (doc_id, kind, canonical(label) if kind == "term" else "", squashed) if squashed else None


def reattach(corpus: Corpus, store: DecisionStore, decisions: dict[str, Decision]) -> int:
    """Re-attach every orphaned decision that has one entry to go to; how many moves it found
    (each recorded, unless another request recorded it, or decided the entry, meanwhile)."""
    items = {f.item.id: f.item for f in corpus.items(decisions)}
    # What has been moved already: (the id it was on, the text), never moved twice.
    moved = {(d.reattached_from, squash(d.extracted_definition or "")) for d in decisions.values() if d.reattached_from}

    def stale(d: Decision) -> bool:
        # Its entry gone, or saying something else now (layout aside, as the span check sees it).
        item = items.get(d.term_id)
        if item is not None and decided_on(d, item.text):
            return False  # the common case, first: the cheap comparison
        decided = squash(d.extracted_definition or "")
        if (d.term_id, decided) in moved:
            return False
        return item is None or squash(item.text or "") != decided

    orphans = [d for d in decisions.values() if stale(d)]
    if not orphans:
        return 0
    undecided: dict[tuple[str, str, str, str], list[ReviewItem]] = defaultdict(list)
    for item in items.values():
        key = text_key(item.doc_id, item.kind, item.label, item.text)
        if key and (item.id not in decisions or stale(decisions[item.id])):
            undecided[key].append(item)
    moves = 0
    for orphan in sorted(orphans, key=lambda d: d.id):
        key = text_key(orphan.doc_id, orphan.kind, orphan.term, orphan.extracted_definition)
        candidates = undecided.pop(key, []) if key else []
        if len(candidates) != 1 or candidates[0].id == orphan.term_id:
            continue  # none, or ambiguous: precision first, it stays orphaned
        (target,) = candidates
        # Reads re-attach, so two requests at once may both find this move: the store records
        # it only while the target's newest decision is still the one read here.
        seen = decisions[target.id].id if target.id in decisions else 0
        moved_decision = orphan.model_copy(
            update={
                "term_id": target.id,
                "term": target.label,
                "reattached_from": orphan.term_id,
                "decided_at": decided_now(),
            }
        )
        store.record_unless_decided_since(seen, moved_decision)
        moves += 1
    return moves


def current_decisions(corpus: Corpus, store: DecisionStore) -> dict[str, Decision]:
    """Every entry's current decision, after re-attaching what a re-parse moved."""
    decisions = store.latest()
    return store.latest() if reattach(corpus, store, decisions) else decisions
