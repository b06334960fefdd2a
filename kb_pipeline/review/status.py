"""Where an entry stands against the reviewers' decisions: computed whenever the desk, the exports
or `kb-pipeline status` read the payloads, never written into them — the payloads are a function
of the document and the code alone, and a decision counts at the next read, whoever reads.

`entry_status` is the one function, for every kind; an entry's text is the one a decision is
made on (a term's definition, a rule's statement, a formula's LaTeX, a brief's purpose):

- `state`: its current decision — approved, edited, rejected — when that was made on the text
  the entry says now (as extracted then, or as edited: an edited entry whose source has not
  changed is no new question); else `pending`: no decision, or one made on a text the document
  no longer says (`source_changed`: the queue shows it pending again with its decision, the
  exports keep the approval and flag it so);
- `diff_status`, against the approved entries (the active knowledge):
  - `duplicate`: its id is approved, on this text;
  - `conflicting`: its id is approved with another text, or an entry of its kind with the same
    name (canonically, in any document): a term's, when the entry has a definition (a document
    that only mentions a term approved elsewhere contradicts nothing; an entry that lost its own
    approved definition conflicts with it), or a formula's (rules and briefs have no name).
    `conflict_variants` holds the competing texts (a term's own competing definitions first):
    it flags, it never merges nor picks a winner, and the queue puts the entry first with the
    contract's conflict reason;
  - `new`: neither.

Ids are per document (contract §1), but a definition that contradicts one approved elsewhere is
exactly the decision an expert is asked first. Layout (line breaks, doubled spaces) is no other text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from ..knowledge.document.text import canonical
from ..knowledge.payloads.contracts import DiffStatus
from .store import Decision, Kind

State = Literal["pending", "approved", "edited", "rejected", "orphaned"]
STATES: tuple[State, ...] = ("pending", "approved", "edited", "rejected", "orphaned")
_STATE_OF: dict[str, State] = {"approve": "approved", "edit": "edited", "reject": "rejected"}
# The kinds an entry is matched by name as well as by id.
_NAMED: tuple[Kind, ...] = ("term", "formula")
# Every read compares each named entry by its name: the same names, read after read.
_canonical = lru_cache(maxsize=1 << 15)(canonical)


def same_definition(a: str | None, b: str | None) -> bool:
    # Layout (line breaks, doubled spaces) is not a different definition.
    return " ".join((a or "").split()) == " ".join((b or "").split())


def decided_on(decision: Decision, text: str | None) -> bool:
    """Whether the decision was made on this text (as extracted then, or as edited): one made on
    what the document said before a re-extraction changed it is a question again."""
    return same_definition(text, decision.extracted_definition) or (
        decision.edited_definition is not None and same_definition(text, decision.edited_definition)
    )


class Decided:
    """Every entry's current decision by its id, and the approved ones of the named kinds by kind
    and canonical name: what `entry_status` compares an entry with, indexed once for a read."""

    def __init__(self, decisions: Mapping[str, Decision]) -> None:
        self.decisions = decisions
        self.by_name: dict[tuple[Kind, str], list[Decision]] = {}
        for decision in decisions.values():
            if decision.approved and decision.kind in _NAMED:
                self.by_name.setdefault((decision.kind, _canonical(decision.term)), []).append(decision)


@dataclass(frozen=True)
class EntryStatus:
    """Where one entry stands (the module's docstring says what each field means)."""

    state: State
    diff_status: DiffStatus
    conflict_variants: tuple[str, ...] = ()
    source_changed: bool = False  # decided, on a text the entry no longer says


def _variants(*texts: str | None) -> tuple[str, ...]:
    seen: list[str] = []
    for text in texts:
        if text and not any(same_definition(text, known) for known in seen):
            seen.append(text)
    return tuple(seen)


def entry_status(
    kind: Kind, entry_id: str, name: str | None, text: str | None, decided: Decided, variants: Sequence[str] = ()
) -> EntryStatus:
    """Where the entry of this kind, id, name (a term's term, a formula's name) and text stands
    against `decided`; `variants`: the competing definitions its document gives (a term's)."""
    decision = decided.decisions.get(entry_id)
    on_text = decision is not None and decided_on(decision, text)
    state: State = _STATE_OF[decision.decision] if decision is not None and on_text else "pending"
    source_changed = decision is not None and not on_text
    own = decision if decision is not None and decision.approved else None
    if own is not None and on_text:
        return EntryStatus(state, "duplicate", tuple(variants), source_changed)
    rivals = [own] if own is not None else []
    # A term without a definition is compared with its own approval only.
    if name and kind in _NAMED and (kind == "formula" or text is not None):
        rivals += [d for d in decided.by_name.get((kind, _canonical(name)), []) if d.entry_id != entry_id]
    differing = [d for d in rivals if not decided_on(d, text)]
    if not differing:
        return EntryStatus(state, "new", tuple(variants), source_changed)
    competing = _variants(*variants, text, *(d.definition for d in differing))
    return EntryStatus(state, "conflicting", competing, source_changed)
