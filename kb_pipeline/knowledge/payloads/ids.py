"""The contract's ids (§1): deterministic, content-derived, never positional, never a model's.

An approval hangs on an id, so it must survive a re-run: each is a hash of what identifies the
entity within its document (the same term in two documents gets two ids, by design).
"""

from __future__ import annotations

from hashlib import sha256


def _digest(prefix: str, *parts: str) -> str:
    return prefix + sha256("|".join(parts).encode("utf-8")).hexdigest()[:10]


def term_id(doc_id: str, canonical: str) -> str:
    """Keyed on the cluster's canonical form, not on the wording a reader (or model) chose."""
    return _digest("t_", doc_id, canonical)


def formula_id(doc_id: str, name: str | None, latex: str | None, chunk_id: str) -> str:
    """Name, else the formula, else its chunk: without the fallback unnamed formulas collide."""
    return _digest("f_", doc_id, name or latex or chunk_id)


def rule_id(doc_id: str, chunk_id: str, char_start: int) -> str:
    """`char_start`: where the rule's span starts in its chunk's text."""
    return _digest("r_", doc_id, chunk_id, str(char_start))


def brief_id(doc_id: str) -> str:
    return _digest("b_", doc_id)
