"""What changed in an entry's text since it was decided on: a
word-level diff of the text decided on against the text now, as runs the page marks up."""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import Literal

Op = Literal["same", "del", "ins"]


def word_diff(before: str | None, after: str | None) -> list[tuple[Op, str]]:
    """Runs of words kept, removed and added, in order; layout (whitespace) aside."""
    old, new = (before or "").split(), (after or "").split()
    runs: list[tuple[Op, str]] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            runs.append(("same", " ".join(old[i1:i2])))
            continue
        if i2 > i1:
            runs.append(("del", " ".join(old[i1:i2])))
        if j2 > j1:
            runs.append(("ins", " ".join(new[j1:j2])))
    return runs
