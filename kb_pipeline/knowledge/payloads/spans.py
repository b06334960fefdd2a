"""The span check: a value is kept only if it is the source's own characters, in the chunk it
claims to come from. Anything else is set to null and logged as a `RejectedField` — never
repaired. This is the anti-hallucination control every later proposer (a model) goes through.
"""

from __future__ import annotations

import re

from ...contracts import Chunk
from ..readers.findings import Quote
from .contracts import RejectedBranch, RejectedField

_LINE_END_HYPHEN = re.compile(r"(?<=\w)[-\u00ad][^\S\n]*\n\s*(?=\w)")
_WHITESPACE = re.compile(r"\s+")


def layout_free(text: str, *, join_hyphenated: bool) -> tuple[str, list[int]]:
    """`text` with each whitespace run as one space and soft hyphens dropped; a hyphen ending a
    line kept (its line break dropped) or, `join_hyphenated`, dropped with it. And, for each
    character, the index in `text` it came from."""
    chars, origin, index = [], [], 0
    while index < len(text):
        hyphen = _LINE_END_HYPHEN.match(text, index)
        if hyphen:
            if not join_hyphenated and text[index] == "-":
                chars.append("-")
                origin.append(index)
            index = hyphen.end()
            continue
        space = _WHITESPACE.match(text, index)
        if space:
            chars.append(" ")
            origin.append(index)
            index = space.end()
            continue
        if text[index] != "\u00ad":
            chars.append(text[index])
            origin.append(index)
        index += 1
    return "".join(chars), origin


def locate(value: str, chunk: Chunk) -> str | None:
    """`value` as the chunk writes it (text, own heading or an enclosing heading), or None.
    The only differences allowed are MinerU's layout: a whitespace run for a space or a line
    break, and a word hyphenated at a line end — never a space removed or added inside a word
    ("the rapist" is not "therapist"). What is returned is the chunk's own characters."""
    wanted = " ".join(value.replace("\u00ad", "").split())
    if not wanted:
        return None
    sources = (chunk.text, chunk.heading or "", *chunk.heading_path)
    for source in sources:
        if value in source:
            return value
    for source in sources:
        for join in (False, True):
            free, origin = layout_free(source, join_hyphenated=join)
            at = free.find(wanted)
            if at >= 0:
                return source[origin[at] : origin[at + len(wanted) - 1] + 1]
    return None


class SpanCheck:
    """Keeps verbatim values, records the rest (rejected.json)."""

    def __init__(self) -> None:
        self.rejected: list[RejectedField] = []

    def keep(self, quote: Quote | None, *, entry: str, field: str, branch: RejectedBranch) -> str | None:
        if quote is None:
            return None
        found = locate(quote.text, quote.chunk)
        if found is None:
            self.rejected.append(
                RejectedField(
                    entry_term=entry,
                    field=field,
                    offending_value=quote.text,
                    reason=f"{field} is not a verbatim transcription of the source ({quote.chunk.chunk_id})",
                    branch=branch,
                )
            )
        return found
