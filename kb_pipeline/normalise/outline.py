"""The PDF's outline (bookmarks), placed on MinerU's items: the author's own structure.

Each bookmark (a heading's title, its page, its depth in the tree) is looked for, in order, among
the items of its page (then the pages either side): an item whose text is the title, an item that
starts with it and goes on (a run-in heading merged into its paragraph: cut after the title), or
an item the title starts with, continued by the next items (a wrapped heading split into lines).
The heading line is always the item's own text, verbatim; the bookmark only says where and how deep.
"""

from __future__ import annotations

import difflib
import unicodedata
from dataclasses import dataclass

from ..pdf_text import OutlineEntry
from .headings import CAPTION, has_words, numbered
from .item_text import ItemText

# Items a heading may hide in: body text and titles, and figures whose "content" is a boxed title.
_CANDIDATE_TYPES = {"text", "image", "chart", "header", "footer"}
_SIMILAR = 0.9
_MIN_SHARE_OF_WRAPPED_LINE = 0.3
_MAX_PLAIN_TITLE = 90  # characters: a plain line longer than this is a paragraph


@dataclass(frozen=True)
class OutlineHit:
    level: int
    # How many characters of the item's text are the heading (None: all of it); the rest is body.
    cut: int | None = None
    # Further items (indices) that continue a wrapped heading line.
    continued_by: tuple[int, ...] = ()


def squashed(text: str) -> tuple[str, list[int]]:
    """`text` casefolded with punctuation, symbols and white space removed, and for each kept
    character its index in `text` (so a match can be cut at the right place, verbatim)."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        for c in unicodedata.normalize("NFKC", ch).casefold():
            if unicodedata.category(c)[0] in "LN":
                out.append(c)
                where.append(i)
    return "".join(out), where


def squash(text: str) -> str:
    """`squashed` without the index map: for comparing and keying, which need no cut."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).casefold() if c.isalnum())


def widen(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a span found on squashed text over the punctuation glued to it ("(1", "개정」")."""
    while start > 0 and not text[start - 1].isspace() and not text[start - 1].isalnum():
        start -= 1
    while end < len(text) and not text[end].isspace() and not text[end].isalnum():
        end += 1
    return start, end


def _without_number(text: str) -> str:
    parsed = numbered(text)
    return squash(parsed[2] if parsed else text)


def _same_title(title: str, text: str) -> bool:
    a, b = squash(title), squash(text)
    if not a or not b:
        return False
    if a == b:
        return True
    a_nonum, b_nonum = _without_number(title), _without_number(text)
    if len(a_nonum) >= 3 and a_nonum == b_nonum:
        return True
    return min(len(a), len(b)) >= 10 and difflib.SequenceMatcher(None, a, b).ratio() >= _SIMILAR


def _run_in_cut(title: str, text: str) -> int | None:
    """Where in `text` the title ends, when `text` starts with it and goes on."""
    body, where = squashed(text)
    for form in (squashed(title)[0], _without_number(title)):
        if len(form) >= 3 and body.startswith(form) and len(body) > len(form):
            return widen(text, 0, where[len(form) - 1] + 1)[1]
    return None


def place_outline(
    entries: list[OutlineEntry], items: list[dict], texts: list[ItemText], excluded: set[int]
) -> dict[int, OutlineHit]:
    """For each item that is a bookmarked heading (or starts with one), how it is one. Excluded
    items (running furniture repeating the chapter title, contents pages) are never the heading."""
    by_page: dict[int, list[int]] = {}
    for index, item in enumerate(items):
        if item["type"] in _CANDIDATE_TYPES and texts[index].text.strip() and index not in excluded:
            by_page.setdefault(item["page_idx"], []).append(index)
    hits: dict[int, OutlineHit] = {}
    used: set[int] = set()
    last = -1
    for entry in entries:
        if CAPTION.match(entry.title) or not has_words(entry.title):
            continue  # a table or figure title is a caption, not a section
        hit = None
        for page in (entry.page_idx, entry.page_idx + 1, entry.page_idx - 1):
            candidates = [i for i in by_page.get(page, []) if i not in used]
            # Reading order first: a bookmark is normally after the previous one; titles first.
            candidates.sort(key=lambda i: (i <= last, not items[i].get("text_level"), i))
            for index in candidates:
                hit = _match(entry, index, items, texts, used)
                if hit is not None:
                    break
            if hit is not None:
                break
        if hit is None:
            continue
        hits[index] = hit
        used.update((index, *hit.continued_by))
        last = max(last, index, *hit.continued_by)
    return hits


def _lines_on(index: int, items: list[dict], used: set[int]) -> list[int]:
    """The (up to two) text items after `index` on its page, not taken by another bookmark."""
    found = []
    for nxt in range(index + 1, min(index + 3, len(items))):
        if nxt in used or items[nxt]["page_idx"] != items[index]["page_idx"] or items[nxt]["type"] != "text":
            break
        found.append(nxt)
    return found


def _same_number_and_word(title: str, text: str) -> bool:
    """Both start with the same section number and the same first word after it: the printed
    "2.1 Corrosion of CWR joints" for the bookmark "2.1 Corrosion of continuous welded rail …"."""
    a, b = numbered(title), numbered(text)
    if a is None or b is None or a[0] != "arabic" or a[1] != b[1]:
        return False
    first_a, first_b = a[2].split()[:1], b[2].split()[:1]
    return bool(first_a) and squash(first_a[0]) == squash(first_b[0]) != ""


def _match(
    entry: OutlineEntry, index: int, items: list[dict], texts: list[ItemText], used: set[int]
) -> OutlineHit | None:
    text = texts[index].text.strip()
    if _same_title(entry.title, text):
        return OutlineHit(entry.level)
    title = squash(entry.title)
    line = squash(text)
    # A line MinerU did not call a title may still be the bookmarked one when it is a heading's
    # length and carries its number and first word ("2.1 Epidemiology of HCV …" for the bookmark
    # "2.1 Epidemiology of hepatitis C virus …").
    heading_like = len(text) <= _MAX_PLAIN_TITLE and text[-1] not in ".:;,"
    if (items[index].get("text_level") or heading_like) and (
        _same_number_and_word(entry.title, text)
        or (
            items[index].get("text_level")
            and title.startswith(line)
            and len(line) >= _MIN_SHARE_OF_WRAPPED_LINE * len(title)
        )
    ):
        # A title the bookmark words differently, or shortens; its wrapped lines join it: the
        # next line when it ends the bookmark, or the next lines when together they complete it
        # (a chapter title set on three lines: the second alone would open a heading of its own).
        following = _lines_on(index, items, used)
        if (
            following
            and 3 <= len(squash(texts[following[0]].text))
            and title.endswith(squash(texts[following[0]].text))
        ):
            return OutlineHit(entry.level, continued_by=(following[0],))
        joined, taken = line, []
        for nxt in following:
            piece = squash(texts[nxt].text)
            if len(piece) < 3 or not title.startswith(joined + piece):
                break
            joined += piece
            taken.append(nxt)
            if joined == title:
                return OutlineHit(entry.level, continued_by=tuple(taken))
        return OutlineHit(entry.level)
    cut = _run_in_cut(entry.title, texts[index].text) if items[index]["type"] == "text" else None
    if cut is not None:
        return OutlineHit(entry.level, cut=cut)
    # A wrapped heading: this item is its first line, the next item(s) on the page the rest.
    if len(line) < _MIN_SHARE_OF_WRAPPED_LINE * len(title) or not title.startswith(line):
        return None
    joined, following = text, []
    for nxt in _lines_on(index, items, used):
        joined += " " + texts[nxt].text.strip()
        following.append(nxt)
        if _same_title(entry.title, joined):
            return OutlineHit(entry.level, continued_by=tuple(following))
    return None
