"""The span check: a value is kept only if it is the source's own characters, in the chunk it
claims to come from. Anything else is set to null and logged as a `RejectedField` — never
repaired. This is the anti-hallucination control every later proposer (a model) goes through.
"""

from __future__ import annotations

import unicodedata

from ..contracts import Chunk
from .contracts import RejectedBranch, RejectedField
from .findings import Quote
from .text import squash


def _squashed_with_origin(text: str) -> tuple[str, list[int]]:
    """`squash(text)` and, for each of its characters, the index in `text` it came from."""
    chars, origin = [], []
    for index, ch in enumerate(text):
        for piece in squash(unicodedata.normalize("NFKC", ch)):
            chars.append(piece)
            origin.append(index)
    return "".join(chars), origin


def locate(value: str, chunk: Chunk) -> str | None:
    """`value` as the chunk writes it (text, own heading or an enclosing heading), matched
    layout aside (line breaks, hyphens, curly quotes); None when the chunk does not say it."""
    wanted = squash(value)
    if not wanted:
        return None
    for source in (chunk.text, chunk.heading or "", *chunk.heading_path):
        if value in source:
            return value
        squashed, origin = _squashed_with_origin(source)
        at = squashed.find(wanted)
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
