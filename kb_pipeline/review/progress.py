"""How far the review of each document is (issue 27, item 4): decided / total per kind."""

from __future__ import annotations

from collections import defaultdict

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
