"""How far the review is: decided / total per document and kind, per kind over a filter's rows,
and each reviewer's current decisions."""

from __future__ import annotations

from collections import Counter, defaultdict

from .corpus import QueueRow

DECIDED = frozenset({"approved", "edited", "rejected"})


def progress(rows: list[QueueRow]) -> dict[str, dict[str, tuple[int, int]]]:
    """doc_id → kind → (decided, total), over the entries the payloads have now (an orphaned
    decision counts for no entry)."""
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for row in rows:
        if row.state == "orphaned":
            continue
        count = counts[row.doc_id][row.kind]
        count[0] += row.state in DECIDED
        count[1] += 1
    return {doc: {kind: (c[0], c[1]) for kind, c in kinds.items()} for doc, kinds in sorted(counts.items())}


def by_kind(rows: list[QueueRow]) -> dict[str, tuple[int, int]]:
    """kind → (decided, total) over `rows` (a filter's: the queue's summary)."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        if row.state != "orphaned":
            counts[row.kind][0] += row.state in DECIDED
            counts[row.kind][1] += 1
    return {kind: (c[0], c[1]) for kind, c in counts.items()}


def by_reviewer(rows: list[QueueRow]) -> dict[str, Counter[str]]:
    """reviewer → state → how many entries stand decided by them now (approved, edited,
    rejected), most decisions first."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        if row.state in DECIDED and row.decision is not None:
            counts[row.decision.reviewer][row.state] += 1
    return dict(sorted(counts.items(), key=lambda item: (-item[1].total(), item[0])))
