"""Whitespace cleaning shared by every chunk type."""

from __future__ import annotations

import re

_INLINE_SPACE = re.compile(r"[ \t\f\v\u00a0\u3000]+")
_EXTRA_BLANK_LINES = re.compile(r"\n{3,}")
_ANY_WHITESPACE = re.compile(r"\s+")


def clean_text(text: str) -> str:
    """Collapse runs of spaces, strip lines, keep at most one blank line in a row."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = [_INLINE_SPACE.sub(" ", line).strip() for line in text.split("\n")]
    return _EXTRA_BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def clean_section_title(title: str) -> str:
    """Strip and collapse all whitespace, so "DESCRIPTION " and "DESCRIPTION" group together."""
    return _ANY_WHITESPACE.sub(" ", title).strip()


def truncate_at_word(text: str, max_chars: int) -> str:
    """Shorten to at most ``max_chars`` (plus an ellipsis), cutting at a space when there is one."""
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars]
    space = cut.rfind(" ")
    # Text without spaces (CJK) or with a very late space is cut at the character limit.
    if space > max_chars // 2:
        cut = cut[:space]
    return cut.rstrip() + "…"
