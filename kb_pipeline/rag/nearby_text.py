"""Text of the paragraphs next to a block on the same page, for figure and formula chunks.

Lookup works on positions in the page's block list (the same list the packager iterates),
never on a global counter, so the text found is really adjacent. It collects paragraph and
list blocks in one direction until it has ``NEARBY_MIN_CHARS`` characters (a short label
such as "Water: Lewis structure" alone says little), stops at a title because text past it
belongs to another section, and looks at most ``NEARBY_SCAN_BLOCKS`` blocks away.

A numbered figure floated away from any paragraph (alone between the page top and a title)
instead gets the sentences that cite it ("Fig. 2a is a schematic ..."), from the nearest
page that has one: that is the text that discusses it.
"""

from __future__ import annotations

from typing import Literal

from .content_list import Block
from .figure_classification import citation_pattern
from .text_chunking import split_sentences
from .text_cleaning import truncate_at_word

NEARBY_SCAN_BLOCKS = 10
NEARBY_MIN_CHARS = 50
NEARBY_MAX_CHARS = 400
_CONTEXT_KINDS = frozenset({"paragraph", "list"})


def adjacent_text(page_blocks: list[Block], position: int, direction: Literal["after", "before"]) -> str:
    step = 1 if direction == "after" else -1
    collected: list[str] = []
    length = 0
    for distance in range(1, NEARBY_SCAN_BLOCKS + 1):
        neighbour = position + step * distance
        if not 0 <= neighbour < len(page_blocks):
            break
        block = page_blocks[neighbour]
        if block.kind == "title":
            break
        if block.kind in _CONTEXT_KINDS and block.text:
            collected.append(block.text)
            length += len(block.text)
            if length >= NEARBY_MIN_CHARS:
                break
    if direction == "after":
        return truncate_at_word(" ".join(collected), NEARBY_MAX_CHARS)
    # Text before a block matters most at its end, next to the block, so the tail is kept.
    text = " ".join(reversed(collected))
    if len(text) <= NEARBY_MAX_CHARS:
        return text
    tail = text[-NEARBY_MAX_CHARS:]
    space = tail.find(" ")
    # Start at a word boundary unless that would drop half the text (CJK has no spaces).
    if 0 <= space < NEARBY_MAX_CHARS // 2:
        tail = tail[space + 1 :]
    return "…" + tail.lstrip()


def figure_nearby_text(page_blocks: list[Block], position: int) -> str:
    """Text after the figure first (it usually discusses it), else the text before it."""
    return adjacent_text(page_blocks, position, "after") or adjacent_text(page_blocks, position, "before")


def citing_text(pages: list[list[Block]], page_position: int, number: str) -> str:
    """First sentence citing figure ``number`` and the one after it, nearest page first."""
    citation = citation_pattern(number)
    for position in sorted(range(len(pages)), key=lambda other: (abs(other - page_position), other)):
        for block in pages[position]:
            if block.kind not in _CONTEXT_KINDS or not citation.search(block.text):
                continue
            sentences = split_sentences(block.text)
            for index, sentence in enumerate(sentences):
                if citation.search(sentence):
                    return truncate_at_word(" ".join(sentences[index : index + 2]), NEARBY_MAX_CHARS)
    return ""
