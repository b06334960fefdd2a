"""Decisions that survive a re-parse. A rule's id hashes its chunk and offset
(contract §1), so a parser change that renumbers chunks moves every rule's id — and may give an
old id to another rule; a clustering change can move a term's. A decision whose id no payload
has any more, or whose id's entry no longer says what was decided on, is re-attached to the
entry of the same document and kind whose verbatim text (definition, statement, formula,
purpose), squashed as the span check squashes it, is the text decided on — when exactly one
undecided entry says it (or one whose own decision is stale in the same way). A term must also
be the same term (canonically): an approval of what "A" means is not one of "B" defined alike.
Else it stays orphaned.

`find_moves` computes the moves and records nothing. The desk, the one writer, records them
(`current_decisions`): a new row naming both ids (`reattached_from`), the original kept — the
audit trail is appended to, never rewritten. The other readers (the exports, `kb-pipeline
status`) apply them to what they read (`read_decisions`) and never write to the database.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from .corpus import Corpus
from .items import ReviewItem, squashed, text_key
from .status import decided_on
from .store import Decision, DecisionStore


@dataclass(frozen=True)
class Move:
    """A decision re-attached: `decision` is the one made on the old id as it stands on the new
    (`reattached_from` the old id); `seen` the new id's newest decision when read (0: none)."""

    decision: Decision
    seen: int


def find_moves(corpus: Corpus, decisions: dict[str, Decision]) -> list[Move]:
    """Every orphaned decision among `decisions` (each entry's current one) that has one entry to
    go to, moved there; nothing recorded. A moved decision's id follows the newest read, as
    recording the moves in order would number them, so it is told apart from the one it copies."""
    items = {f.item.id: f.item for f in corpus.items(decisions)}

    # A decision already moved is none of `decisions` (`DecisionStore.latest`, `with_moves`): it
    # is never moved twice.
    def stale(d: Decision) -> bool:
        # Its entry gone, or saying something else now (layout aside, as the span check sees it).
        item = items.get(d.entry_id)
        if item is not None and decided_on(d, item.text):
            return False  # the common case, first: the cheap comparison
        return item is None or squashed(item.text or "") != squashed(d.extracted_definition or "")

    orphans = [d for d in decisions.values() if stale(d)]
    if not orphans:
        return []
    undecided: dict[tuple[str, str, str, str], list[ReviewItem]] = defaultdict(list)
    for item in items.values():
        key = text_key(item.doc_id, item.kind, item.label, item.text)
        if key and (item.id not in decisions or stale(decisions[item.id])):
            undecided[key].append(item)
    newest = max(d.id for d in decisions.values())
    moves: list[Move] = []
    for orphan in sorted(orphans, key=lambda d: d.id):
        key = text_key(orphan.doc_id, orphan.kind, orphan.term, orphan.extracted_definition)
        candidates = undecided.pop(key, []) if key else []
        if len(candidates) != 1 or candidates[0].id == orphan.entry_id:
            continue  # none, or ambiguous: precision first, it stays orphaned
        (target,) = candidates
        copy = orphan.moved_to(target.id, target.label, newest + len(moves) + 1)
        moves.append(Move(copy, decisions[target.id].id if target.id in decisions else 0))
    return moves


def with_moves(decisions: dict[str, Decision], moves: list[Move]) -> dict[str, Decision]:
    """`decisions` as they stand once `moves` are recorded (`DecisionStore.latest`): each moved
    one its new id's, and no longer its old id's."""
    current = dict(decisions)
    for move in moves:
        source = move.decision.reattached_from or ""
        if source in current and move.decision.is_move_of(current[source]):
            del current[source]
    return {**current, **{move.decision.entry_id: move.decision for move in moves}}


def reattach(corpus: Corpus, store: DecisionStore, decisions: dict[str, Decision]) -> int:
    """Record the moves `decisions` call for; how many it found (each recorded, unless another
    request recorded it, or decided the entry, meanwhile)."""
    moves = find_moves(corpus, decisions)
    for move in moves:
        # Reads re-attach, so two requests at once may both find this move: the store records
        # it only while the target's newest decision is still the one read here.
        store.record_unless_decided_since(move.seen, move.decision)
    return len(moves)


def current_decisions(corpus: Corpus, store: DecisionStore) -> dict[str, Decision]:
    """The desk's read: every entry's current decision, after recording the re-attachments a
    re-parse called for."""
    decisions = store.latest()
    return store.latest() if reattach(corpus, store, decisions) else decisions


def read_decisions(corpus: Corpus, store: DecisionStore) -> dict[str, Decision]:
    """Every entry's current decision with the re-attachments a re-parse calls for applied, not
    recorded: the readers other than the desk, which only read its database."""
    decisions = store.latest()
    return with_moves(decisions, find_moves(corpus, decisions))
