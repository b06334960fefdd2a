"""Section headings: numbering, depth, and the breadcrumb of enclosing headings.

MinerU's flash tier gives nearly every title the same `text_level`, so depth comes from the
numbering the document prints: `2.` → 1, `2.1.` → 2, `2.1.1` → 3; `III.` → 1 and `A.` one level
below the current section. A "title" whose text after the number is not words (`1. 7`, a page
number caught as a heading — the contract's known gap) is not a heading at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ARABIC = re.compile(r"^(?P<no>\d{1,2}(?:\.\d{1,3})*)\.?\s+(?P<title>\S.*)$", re.S)
_ROMAN = re.compile(r"^(?P<no>[IVXL]{1,6})\.\s+(?P<title>\S.*)$", re.S)
_LETTER = re.compile(r"^(?P<no>[A-Z])\.\s+(?P<title>\S.*)$", re.S)
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+|hal(?:aman)?\.?\s+)?\d{1,4}\s*$", re.I)
# Unnumbered headings that open a top-level section even inside a numbered document.
_TOP_LEVEL_NAMES = re.compile(
    r"^\s*(abstract|abstrak|acknowledge?ments?|references|bibliography|daftar pustaka|appendix|"
    r"appendices|lampiran|ethical considerations|conclusions?|kesimpulan|glossary|index)\b",
    re.I,
)


@dataclass(frozen=True)
class Heading:
    line: str  # the whole title item, verbatim: a breadcrumb entry
    title: str  # the title after its number, verbatim: `Chunk.heading`
    section_no: str | None
    depth: int
    scheme: str | None = None  # "arabic" | "roman" | "letter"; None when unnumbered


def looks_like_page_number(text: str, bbox: list[int] | None) -> bool:
    """A bare number in the top or bottom band of the page: a page number MinerU typed as text."""
    if not _PAGE_NUMBER.match(text):
        return False
    return bbox is None or bbox[1] >= 850 or bbox[3] <= 150


def _words_follow(title: str) -> bool:
    return bool(re.match(r"[^\W\d_]", title))


def numbered(line: str) -> tuple[str, str, str] | None:
    """(scheme, number, title) when `line` starts with a section number followed by words."""
    for scheme, pattern in (("arabic", _ARABIC), ("roman", _ROMAN), ("letter", _LETTER)):
        m = pattern.match(line.strip())
        if m and _words_follow(m["title"]):
            return scheme, m["no"].rstrip("."), m["title"]
    return None


_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50}
_PLAIN_HEADING_MAX_CHARS = 80


def _roman_value(numeral: str) -> int:
    total = 0
    for i, ch in enumerate(numeral):
        value = _ROMAN_VALUES[ch]
        total += -value if i + 1 < len(numeral) and _ROMAN_VALUES[numeral[i + 1]] > value else value
    return total


def _arabic_successors(current: list[int]) -> list[list[int]]:
    """Numbers that may follow section `current`: its first child, or the next sibling at any
    enclosing level (2.1.3 → 2.1.3.1, 2.1.4, 2.2, 3)."""
    return [current + [1]] + [current[:k] + [current[k] + 1] for k in range(len(current))]


class HeadingTracker:
    """Walks the titles of one document in reading order and keeps the open sections."""

    def __init__(self) -> None:
        self._open: list[Heading] = []

    @property
    def current(self) -> Heading | None:
        return self._open[-1] if self._open else None

    @property
    def path(self) -> list[str]:
        return [h.line for h in self._open]

    def enter(self, line: str) -> Heading:
        parsed = numbered(line)
        if parsed is None:
            heading = Heading(line, line, None, self._unnumbered_depth(line))
        else:
            scheme, number, title = parsed
            if scheme == "arabic":
                depth = number.count(".") + 1
            elif scheme == "roman":
                depth = 1
            else:
                depth = self._child_depth()
            heading = Heading(line, title, number, depth, scheme)
        while self._open and self._open[-1].depth >= heading.depth:
            self._open.pop()
        self._open.append(heading)
        return heading

    def continues_numbering(self, line: str) -> bool:
        """Whether a plain text item is really a heading MinerU did not mark as a title: a
        short line that carries the next number in the document's own sequence (after 2.1.2
        comes 2.1.3, 2.2 or 3; after II comes III; after A comes B). Numbered list items rarely
        fit that sequence, and a sentence does not fit the length and punctuation."""
        parsed = numbered(line)
        if parsed is None or len(line) > _PLAIN_HEADING_MAX_CHARS or line.rstrip()[-1] in ".:;,":
            return False
        scheme, number, _title = parsed
        last = next((h for h in reversed(self._open) if h.scheme == scheme), None)
        if scheme == "arabic":
            current = [int(n) for n in last.section_no.split(".")] if last else []
            return [int(n) for n in number.split(".")] in (_arabic_successors(current) if current else [[1]])
        if scheme == "roman":
            return _roman_value(number) == (_roman_value(last.section_no) + 1 if last else 1)
        if not any(h.scheme in ("arabic", "roman") for h in self._open):
            return False
        return ord(number) == (ord(last.section_no) + 1 if last else ord("A"))

    def _child_depth(self) -> int:
        """One below the innermost open section numbered by digits or roman numerals, so
        lettered siblings (`A.`, `B.`) stay siblings."""
        numbered_open = [h for h in self._open if h.scheme in ("arabic", "roman")]
        return numbered_open[-1].depth + 1 if numbered_open else 1

    def _unnumbered_depth(self, line: str) -> int:
        if _TOP_LEVEL_NAMES.match(line) or not any(h.section_no for h in self._open):
            return 1
        return self._child_depth()
