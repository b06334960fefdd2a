"""Packing the text blocks of one section into chunks of 300–700 tokens (hard cap 900).

Blocks are packed greedily in reading order: a block joins the current chunk while the
chunk stays within the 700-token target, or within the 900-token cap while the chunk is
still under 300 tokens. A block over 700 tokens is first split at sentence boundaries into
pieces of at most 700 tokens, cut from the block as it stands (verbatim); a sentence over the
cap is split between words, then between characters.
There is no sentence overlap between chunks: every split point is a sentence boundary
already, and overlap would make identical text retrievable twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .token_estimate import HARD_CAP_TOKENS, TARGET_MAX_TOKENS, TARGET_MIN_TOKENS, estimate_tokens

# After Latin terminal punctuation followed by whitespace, or right after CJK terminal
# punctuation; not after abbreviations that are usually followed by more of the sentence.
_SENTENCE_END = re.compile(
    r"(?<!\bFig\.)(?<!\bFigs\.)(?<!\bEq\.)(?<!\bEqs\.)(?<!\bRef\.)(?<!\bNo\.)(?<!\bvs\.)"
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bal\.)(?<=[.!?])\s+|(?<=[。！？；])"
)


@dataclass(frozen=True)
class TextBlock:
    """A text block to pack, or a packed chunk (page and order of its first block)."""

    page_no: int
    order: tuple[int, int]  # (page position, block index): where the chunk sorts in output
    text: str


def split_sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in _sentence_spans(text)]


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of `text` starts and ends, its surrounding whitespace left out."""
    spans, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(text)))
    return [_trimmed(text, a, b) for a, b in spans if text[a:b].strip()]


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while text[start].isspace():
        start += 1
    while text[end - 1].isspace():
        end -= 1
    return start, end


def _split_oversized(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """One sentence over the hard cap, split between words, or between characters where a
    word alone is over it."""
    pieces: list[tuple[int, int]] = []
    piece: tuple[int, int] | None = None
    for word in re.finditer(r"\S+", text[start:end]):
        word_start, word_end = start + word.start(), start + word.end()
        if piece is not None and estimate_tokens(text[piece[0] : word_end]) > HARD_CAP_TOKENS:
            pieces.append(piece)
            piece = None
        piece = (piece[0] if piece else word_start, word_end)
    pieces.append(piece or (start, end))
    result: list[tuple[int, int]] = []
    for a, b in pieces:
        while estimate_tokens(text[a:b]) > HARD_CAP_TOKENS:
            # The cap in characters is safe for any mix: wide characters count one token each.
            result.append((a, a + HARD_CAP_TOKENS))
            a += HARD_CAP_TOKENS
        result.append((a, b))
    return result


def _pieces(text: str) -> list[str]:
    """The block itself, or runs of whole sentences of at most TARGET_MAX_TOKENS each, cut from
    the block as they stand in it (its line breaks and spaces kept: the artifact's text is
    verbatim, and so is the package's)."""
    if estimate_tokens(text) <= TARGET_MAX_TOKENS:
        return [text]
    spans: list[tuple[int, int]] = []
    for start, end in _sentence_spans(text):
        oversized = estimate_tokens(text[start:end]) > HARD_CAP_TOKENS
        spans.extend(_split_oversized(text, start, end) if oversized else [(start, end)])
    groups: list[tuple[int, int]] = []
    for start, end in spans:
        if groups and estimate_tokens(text[groups[-1][0] : end]) <= TARGET_MAX_TOKENS:
            groups[-1] = (groups[-1][0], end)
        else:
            groups.append((start, end))
    return [text[start:end] for start, end in groups]


def pack_text_blocks(blocks: list[TextBlock]) -> list[TextBlock]:
    drafts: list[TextBlock] = []
    current: list[str] = []
    first: TextBlock | None = None

    def flush() -> None:
        nonlocal current, first
        if current and first is not None:
            drafts.append(TextBlock(first.page_no, first.order, "\n\n".join(current)))
        current, first = [], None

    for block in blocks:
        for piece in _pieces(block.text):
            if current:
                size = estimate_tokens("\n\n".join(current))
                combined = estimate_tokens("\n\n".join([*current, piece]))
                fits_target = combined <= TARGET_MAX_TOKENS
                fills_small = size < TARGET_MIN_TOKENS and combined <= HARD_CAP_TOKENS
                if not (fits_target or fills_small):
                    flush()
            if first is None:
                first = block
            current.append(piece)
    flush()
    return drafts
