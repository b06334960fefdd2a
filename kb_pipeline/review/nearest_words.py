"""The words of a chunk nearest to a value it does not say: what the add form
offers in place of a field the span check refused, so a typo is fixed by picking the chunk's own
words rather than by selecting them again."""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher

_WORD = re.compile(r"\S+")


def _punctuation(char: str) -> bool:
    return unicodedata.category(char).startswith("P")


def nearest_words(typed: str, text: str, limit: int = 3, cutoff: float = 0.6) -> list[str]:
    """Up to `limit` runs of `text`'s words closest to `typed`, best first: difflib's ratio, case
    and layout aside, of `cutoff` or more, over every run of one word fewer to one word more than
    `typed` has. Each is `text`'s own words (whitespace runs as one space), without the punctuation
    at an edge where `typed` has none; runs that overlap a better one are left out, so the offers
    are distinct places of the text."""
    wanted = " ".join(typed.split())
    if not wanted:
        return []
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    length = len(wanted.split())
    matcher = SequenceMatcher(autojunk=False)
    matcher.set_seq2(wanted.casefold())
    scored: list[tuple[float, int, int]] = []
    for size in {max(1, length - 1), length, length + 1}:
        for first in range(len(words) - size + 1):
            start, end = words[first][0], words[first + size - 1][1]
            # A trailing comma or a parenthesis is no part of what was typed without one.
            while start < end and _punctuation(text[start]) and not _punctuation(wanted[0]):
                start += 1
            while end > start and _punctuation(text[end - 1]) and not _punctuation(wanted[-1]):
                end -= 1
            matcher.set_seq1(" ".join(text[start:end].split()).casefold())
            if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff:
                ratio = matcher.ratio()
                if ratio >= cutoff:
                    scored.append((ratio, start, end))
    chosen: list[tuple[int, int]] = []
    for _, start, end in sorted(scored, key=lambda s: (-s[0], s[1], s[2] - s[1])):
        if len(chosen) == limit:
            break
        if all(end <= s or start >= e for s, e in chosen):
            chosen.append((start, end))
    return [" ".join(text[s:e].split()) for s, e in chosen]
