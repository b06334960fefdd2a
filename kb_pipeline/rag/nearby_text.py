"""Text next to a figure or formula, from the artifact's text chunks on the same page.

Lookup walks the artifact's chunks (reading order) from the figure's own chunk, one direction at
a time: it collects text chunks until it has ``NEARBY_MIN_CHARS`` characters (a short label such
as "Water: Lewis structure" alone says little), stops at a chunk of another section or another
page, since text past it belongs elsewhere, and looks at most ``NEARBY_SCAN_CHUNKS`` chunks away.

A numbered figure floated away from any paragraph (alone between the page top and a heading)
instead gets the sentences that cite it ("Fig. 2a is a schematic ..."), from the nearest
page that has one: that is the text that discusses it.
"""

from __future__ import annotations

from typing import Literal

from ..contracts import Chunk
from .figure_classification import citation_pattern
from .text_chunking import split_sentences
from .text_cleaning import truncate_at_word

NEARBY_SCAN_CHUNKS = 10
NEARBY_MIN_CHARS = 50
NEARBY_MAX_CHARS = 400


def head(text: str) -> str:
    """The start of text that follows a block, at most NEARBY_MAX_CHARS."""
    return truncate_at_word(text, NEARBY_MAX_CHARS)


def tail(text: str) -> str:
    """The end of text that precedes a block (it matters most next to the block)."""
    if len(text) <= NEARBY_MAX_CHARS:
        return text
    end = text[-NEARBY_MAX_CHARS:]
    space = end.find(" ")
    # Start at a word boundary unless that would drop half the text (CJK has no spaces).
    if 0 <= space < NEARBY_MAX_CHARS // 2:
        end = end[space + 1 :]
    return "…" + end.lstrip()


def _pages(chunk: Chunk) -> list[int]:
    return chunk.page_idxs or [chunk.page_idx]


def adjacent_text(chunks: list[Chunk], position: int, direction: Literal["after", "before"]) -> str:
    here = chunks[position]
    step = 1 if direction == "after" else -1
    collected: list[str] = []
    length = 0
    for distance in range(1, NEARBY_SCAN_CHUNKS + 1):
        neighbour = position + step * distance
        if not 0 <= neighbour < len(chunks):
            break
        other = chunks[neighbour]
        if other.heading_path != here.heading_path or here.page_idx not in _pages(other):
            break
        if other.kind == "text" and other.text.strip():
            collected.append(other.text)
            length += len(other.text)
            if length >= NEARBY_MIN_CHARS:
                break
    if direction == "after":
        return head(" ".join(collected))
    return tail(" ".join(reversed(collected)))


def figure_nearby_text(chunks: list[Chunk], position: int) -> str:
    """Text after the figure first (it usually discusses it), else the text before it."""
    return adjacent_text(chunks, position, "after") or adjacent_text(chunks, position, "before")


def citing_text(chunks: list[Chunk], page_idx: int, number: str) -> str:
    """First sentence citing figure ``number`` and the one after it, nearest page first."""
    citation = citation_pattern(number)
    texts = [chunk for chunk in chunks if chunk.kind == "text" and citation.search(chunk.text)]
    for chunk in sorted(texts, key=lambda chunk: (abs(chunk.page_idx - page_idx), chunk.page_idx)):
        sentences = split_sentences(chunk.text)
        for index, sentence in enumerate(sentences):
            if citation.search(sentence):
                return truncate_at_word(" ".join(sentences[index : index + 2]), NEARBY_MAX_CHARS)
    return ""
