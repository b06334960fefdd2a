"""Running page furniture: what repeats in the top or bottom band of the pages.

MinerU types page headers and footers by position on the page alone, so a heading at the top of
a page or a table of contents can come out as a "header" (and be lost from the text), while a
running footer on the first page can come out as body text. A running header or footer is what
repeats: the same line, page numbers aside, in the same band of several pages (of every other
page, for the alternating heads of journals: authors on even pages, title on odd). Anything MinerU
called furniture that does not repeat is read as body text; body text that does repeat there is
furniture.
"""

from __future__ import annotations

import re

from .item_text import ItemText
from .outline import squash

_BAND = 120  # the top and bottom 12 % of a page (MinerU boxes are 0–1000)
_MAX_WORDS = 20
_DIGITS = re.compile(r"\d+")
_SECTION_NUMBER = re.compile(r"^\s*(\d{1,2}(?:\.\d{1,3})+)\.?\s")


def _band(item: dict) -> str | None:
    if item["type"] == "aside_text":
        return "margin"  # a side note repeats wherever it stands in the margin
    bbox = item.get("bbox")
    if bbox and bbox[3] <= _BAND:
        return "top"
    return "bottom" if bbox and bbox[1] >= 1000 - _BAND else None


def _key(text: str) -> str:
    """The line without its digits (page numbers move), except a leading dotted section number:
    no page number is written "3.1", and "2.1 LRS model" and "3.1 LRS model" are two sections,
    not one running line."""
    section = _SECTION_NUMBER.match(text)
    return (section[1] if section else "") + _DIGITS.sub("", squash(text))


def _repeats(pages: set[int], n_pages: int, typed_furniture: bool) -> bool:
    """Whether a line seen in one band on these pages recurs there. Repetition is only a signal
    in a document with pages to repeat on (a short one keeps MinerU's reading). A line MinerU
    typed a header or footer that stands on pages of one parity only is counted among the pages
    of that parity, since an alternating running head can stand on no more than every other
    page; body text is not (two "Source: … survey" lines on pages 2 and 4 are text)."""
    one_parity = len({page % 2 for page in pages}) == 1
    candidates = (n_pages + 1) // 2 if typed_furniture and one_parity else n_pages
    return len(pages) >= (2 if candidates < 6 else 3)


def running_furniture(items: list[dict], texts: list[ItemText], n_pages: int) -> tuple[set[int], set[int]]:
    """(furniture, demoted): the items that are running furniture, and the header, footer and
    margin items that are not (they are read as body text: a margin note seen once, such as an
    archive stamp, is the document's text). Page numbers stay furniture."""
    pages_of: dict[tuple[str, str], set[int]] = {}
    for index, item in enumerate(items):
        band = _band(item)
        if band and item["type"] in ("header", "footer", "aside_text", "text"):
            pages_of.setdefault((band, _key(texts[index].text)), set()).add(item["page_idx"])
    # A running header that names the chapter changes with it, so it need not repeat: it is
    # still furniture when it repeats a title of the document.
    titles = {_key(texts[i].text) for i, item in enumerate(items) if item.get("text_level")}
    furniture: set[int] = set()
    demoted: set[int] = set()
    for index, item in enumerate(items):
        kind = item["type"]
        band = _band(item)
        key = _key(texts[index].text)
        typed = kind in ("header", "footer", "aside_text")
        repeats = band is not None and _repeats(pages_of.get((band, key), set()), n_pages, typed)
        if typed:
            if n_pages < 3 or not key or repeats or key in titles:
                furniture.add(index)
            else:
                demoted.add(index)
        elif kind == "page_number":
            furniture.add(index)
        elif (
            kind == "text"
            and repeats
            and key
            and not item.get("text_level")
            and len(texts[index].text.split()) <= _MAX_WORDS
        ):
            furniture.add(index)
    return furniture, demoted
