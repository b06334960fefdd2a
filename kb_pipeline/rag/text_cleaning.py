"""Section-title cleaning and word-boundary truncation (chunk text itself is the artifact's, verbatim)."""

from __future__ import annotations

import re

_ANY_WHITESPACE = re.compile(r"\s+")


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
