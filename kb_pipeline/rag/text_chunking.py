"""Packing the text blocks of one section into chunks of 300–700 tokens (hard cap 900).

Blocks are packed greedily in reading order: a block joins the current chunk while the
chunk stays within the 700-token target, or within the 900-token cap while the chunk is
still under 300 tokens. A block over 700 tokens is first split at sentence boundaries into
pieces of at most 700 tokens; a sentence over the cap is split at spaces, then at characters.
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
    return [sentence.strip() for sentence in _SENTENCE_END.split(text) if sentence.strip()]


def _split_oversized(sentence: str) -> list[str]:
    """Split one sentence over the hard cap at spaces, or at characters if it has none."""
    pieces: list[str] = []
    current = ""
    for word in sentence.split(" "):
        candidate = f"{current} {word}" if current else word
        if current and estimate_tokens(candidate) > HARD_CAP_TOKENS:
            pieces.append(current)
            candidate = word
        current = candidate
    pieces.append(current)
    result: list[str] = []
    for piece in pieces:
        while estimate_tokens(piece) > HARD_CAP_TOKENS:
            # The cap in characters is safe for any mix: wide characters count one token each.
            result.append(piece[:HARD_CAP_TOKENS])
            piece = piece[HARD_CAP_TOKENS:]
        result.append(piece)
    return result


def _pieces(text: str) -> list[str]:
    """The block itself, or sentence groups of at most TARGET_MAX_TOKENS each."""
    if estimate_tokens(text) <= TARGET_MAX_TOKENS:
        return [text]
    sentences: list[str] = []
    for sentence in split_sentences(text):
        sentences.extend(_split_oversized(sentence) if estimate_tokens(sentence) > HARD_CAP_TOKENS else [sentence])
    groups: list[str] = []
    for sentence in sentences:
        if groups and estimate_tokens(f"{groups[-1]} {sentence}") <= TARGET_MAX_TOKENS:
            groups[-1] = f"{groups[-1]} {sentence}"
        else:
            groups.append(sentence)
    return groups


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
