"""Running page furniture: what repeats in the top or bottom band of the pages.

MinerU types page headers and footers by position on the page alone, so a heading at the top of
a page or a table of contents can come out as a "header" (and be lost from the text), while a
running footer on the first page can come out as body text. A running header or footer is what
repeats: the same line, page numbers aside, in the same band of several pages (of every other
page, for the alternating heads of journals: authors on even pages, title on odd), at the same
place: a section title that repeats the running head's words under a number ("3 Data model"
below the head "Data model") is not it. A page's first or last line a little further in than
the band counts as in it (wide margins). Anything MinerU called furniture that does not repeat
is read as body text; body text that does repeat there is furniture, and so is a line MinerU
typed a title that repeats in the band itself (a part's short name set large at the top of the
pages opening its chapters), unless it is numbered: a numbered line at a page's top is the
page's heading, whose number the running head does not carry.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter

from .headings import numbered, numbers_set_apart
from .item_text import ItemText
from .outline import squash

# MinerU's item types for what is printed on every page, not read: running heads, feet, page numbers.
FURNITURE_TYPES = ("header", "footer", "page_number", "aside_text")

_BAND = 120  # the top and bottom 12 % of a page (MinerU boxes are 0–1000)
# A page's first or last line stands in its band this far in (a report set with wide margins
# has its running head at 10–20 % of the page, clear of the body but below the 12 % band).
_OUTER_BAND = 200
# A running line stands on each page within this (0–1000 of the page's height) of its place.
_PLACE = 15
_MAX_WORDS = 20
_DIGITS = re.compile(r"\d+")
_SECTION_NUMBER = re.compile(r"^\s*(\d{1,2}(?:\.\d{1,3})+)\.?\s")


def _outermost(items: list[dict]) -> dict[int, str]:
    """{item: "top" or "bottom"} for the first and the last line of each page (page numbers
    aside) that stand within `_OUTER_BAND` of the page's edge, unless a table follows the first:
    a table's header row read as a line of its own is no running head."""
    on_page: dict[int, list[int]] = {}
    for index, item in enumerate(items):
        if item.get("bbox") and item["type"] != "page_number":
            on_page.setdefault(item["page_idx"], []).append(index)
    outer: dict[int, str] = {}
    for indices in on_page.values():
        if len(indices) < 2:  # a page of one line has no body to stand apart from
            continue
        top = min(indices, key=lambda i: items[i]["bbox"][1])
        bottom = max(indices, key=lambda i: items[i]["bbox"][3])
        if items[top]["bbox"][3] <= _OUTER_BAND and not _next_is_table(items, indices, top):
            outer[top] = "top"
        if items[bottom]["bbox"][1] >= 1000 - _OUTER_BAND:
            outer[bottom] = "bottom"
    return outer


def _next_is_table(items: list[dict], indices: list[int], index: int) -> bool:
    """Whether the item after `index` in the page's reading order is a table."""
    at = indices.index(index) + 1
    return at < len(indices) and items[indices[at]]["type"] == "table"


def _band(item: dict, outer: str | None) -> str | None:
    if item["type"] == "aside_text":
        return "margin"  # a side note repeats wherever it stands in the margin
    bbox = item.get("bbox")
    if bbox and bbox[3] <= _BAND:
        return "top"
    if bbox and bbox[1] >= 1000 - _BAND:
        return "bottom"
    return outer


def running_words(text: str) -> str:
    """The line's words squashed, without their digits (page numbers move), except a leading
    dotted section number: no page number is written "3.1", and "2.1 LRS model" and "3.1 LRS
    model" are two sections, not one running line. One space between the words: whether a line
    opens another is told at a word's end ("Pump" does not open "Pumping stations")."""
    section = _SECTION_NUMBER.match(text)
    words = (_DIGITS.sub("", squash(word)) for word in text.split())
    return " ".join(word for word in (section[1] if section else "", *words) if word)


def running_key(text: str) -> str:
    """`running_words` run together: the key a repeated line is grouped by."""
    return running_words(text).replace(" ", "")


def opens(line_words: str, words: str) -> bool:
    """Whether a line's `running_words` open (or are) those of another line."""
    return f"{words} ".startswith(f"{line_words} ")


def _repeats(n_at_place: int, one_parity: bool, n_pages: int, typed_furniture: bool) -> bool:
    """Whether a line seen in one band on `n_at_place` pages recurs there. Repetition is only a
    signal in a document with pages to repeat on (a short one keeps MinerU's reading). A line
    MinerU typed a header or footer that stands on pages of one parity only is counted among the
    pages of that parity, since an alternating running head can stand on no more than every
    other page; body text is not (two "Source: … survey" lines on pages 2 and 4 are text)."""
    candidates = (n_pages + 1) // 2 if typed_furniture and one_parity else n_pages
    return n_at_place >= (2 if candidates < 6 else 3)


def repeats_on(n_pages_seen: int, n_pages: int) -> bool:
    """Whether a line seen in one band on `n_pages_seen` pages recurs there (body text's count)."""
    return _repeats(n_pages_seen, False, n_pages, False)


def _pages_at_place(group: list[int], items: list[dict], margin: bool) -> dict[int, tuple[int, bool]]:
    """{item: (pages, one parity)} for one line's items in one band: on how many pages the line
    stands within `_PLACE` of the item's place (anywhere, in a margin), and whether those pages
    are all even or all odd. One pass over the items sorted by place, with a window that only
    moves forward: a running head on every page of a long document is linear, not quadratic."""
    if margin:
        anywhere = {items[j]["page_idx"] for j in group}
        whole = (len(anywhere), len({page % 2 for page in anywhere}) == 1)
        return dict.fromkeys(group, whole)
    ordered = sorted(group, key=lambda j: items[j]["bbox"][1])
    tops = [items[j]["bbox"][1] for j in ordered]
    pages: Counter[int] = Counter()
    parities: Counter[int] = Counter()
    found: dict[int, tuple[int, bool]] = {}
    low = high = 0

    def enter(j: int) -> None:
        page = items[j]["page_idx"]
        pages[page] += 1
        if pages[page] == 1:
            parities[page % 2] += 1

    def leave(j: int) -> None:
        page = items[j]["page_idx"]
        pages[page] -= 1
        if pages[page] == 0:
            del pages[page]
            parities[page % 2] -= 1

    for at, index in enumerate(ordered):
        while high < len(ordered) and tops[high] <= tops[at] + _PLACE:
            enter(ordered[high])
            high += 1
        while tops[low] < tops[at] - _PLACE:
            leave(ordered[low])
            low += 1
        found[index] = (len(pages), sum(1 for n in parities.values() if n > 0) == 1)
    return found


def _running_title(widened: bool, text: str) -> bool:
    """Whether a line MinerU typed a title, repeating in a band, is a running head: a part's
    short name or a trademark name set large at the top of pages is one; a numbered heading at
    the top of a page is not (its number is the document's outline, the head has none), nor a
    title that is only its page's first line below the band."""
    return not widened and numbered(text) is None


def _opening_running_lines(
    items: list[dict],
    texts: list[ItemText],
    keys: list[str],
    bands: dict[int, str],
    repeats: dict[int, bool],
    n_pages: int,
) -> set[int]:
    """The header and footer items that do not repeat as items but whose line opens, at their
    place, the items of pages enough: MinerU merged the running line with what stands under it
    on the other pages ("Findings" over each page's heading, one item "Findings 4 Results …")."""
    candidates = [
        i
        for i, band in bands.items()
        if band != "margin" and items[i]["type"] in ("header", "footer") and not repeats[i]
    ]
    if not candidates:
        return set()
    words = {i: running_words(texts[i].text) for i in bands if bands[i] != "margin"}
    by_words = sorted((line, i) for i, line in words.items())
    ordered = [line for line, _ in by_words]
    found: set[int] = set()
    for index in candidates:
        line, top = words[index], items[index]["bbox"][1]
        if len(keys[index]) < 4:
            continue
        # Only lines longer than it count (the same line again is the ordinary repetition's
        # case), and only those it opens up to a word's end.
        pages = {items[index]["page_idx"]} | {
            items[j]["page_idx"]
            for _, j in by_words[bisect_left(ordered, line + " ") : bisect_left(ordered, line + " \uffff")]
            if bands[j] == bands[index] and abs(items[j]["bbox"][1] - top) <= _PLACE
        }
        if _repeats(len(pages), False, n_pages, True):
            found.add(index)
    return found


def running_furniture(
    items: list[dict], texts: list[ItemText], n_pages: int, apart: dict[int, int] | None = None
) -> tuple[set[int], set[int]]:
    """(furniture, demoted): the items that are running furniture, and the header, footer and
    margin items that are not (they are read as body text: a margin note seen once, such as an
    archive stamp, is the document's text). Page numbers stay furniture. `apart` is
    `numbers_set_apart(items, texts)` when the caller has it already."""
    outer = _outermost(items)
    keys = [running_key(item_text.text) for item_text in texts]
    bands: dict[int, str] = {}
    lines: dict[tuple[str, str], list[int]] = {}  # (band, key) -> the items
    for index, item in enumerate(items):
        band = _band(item, outer.get(index))
        if band and item["type"] in ("header", "footer", "aside_text", "text"):
            bands[index] = band
            lines.setdefault((band, keys[index]), []).append(index)

    typed_kinds = ("header", "footer", "aside_text")
    # A running head stands where it stood on the other pages, and a section title that repeats
    # it under a number ("3 Data model" under the head "Data model") stands lower.
    at_place: dict[int, tuple[int, bool]] = {}
    for (band, _), group in lines.items():
        at_place.update(_pages_at_place(group, items, band == "margin"))
    # Where the same line stands on the same page at a place where it recurs more often, there
    # is the page's running line, and the others repeat it (a title under the head).
    most_on_page: dict[tuple[str, str, int], int] = {}
    for index in bands:
        slot = (bands[index], keys[index], items[index]["page_idx"])
        most_on_page[slot] = max(most_on_page.get(slot, 0), at_place[index][0])

    def outdone(index: int) -> bool:
        return most_on_page[(bands[index], keys[index], items[index]["page_idx"])] > at_place[index][0]

    # A line in a band only by being a page's first or last one is a running line when it is
    # short and on three pages at least: two pages opening alike may be the same content twice.
    widened = {i for i, band in bands.items() if band != "margin" and _band(items[i], None) is None}

    def may_run(index: int) -> bool:
        if index not in widened:
            return True
        return len(texts[index].text.split()) <= _MAX_WORDS and at_place[index][0] >= 3

    repeats = {
        i: _repeats(*at_place[i], n_pages, items[i]["type"] in typed_kinds) and not outdone(i) and may_run(i)
        for i in bands
    }
    # Where running lines stand: in a band with none, any place may be one (a short document).
    places: dict[str, list[int]] = {}
    for index, band in bands.items():
        if repeats[index] and band != "margin":
            places.setdefault(band, []).append(items[index]["bbox"][1])
    for tops in places.values():
        tops.sort()

    def at_running_place(index: int) -> bool:
        band = bands.get(index)
        if band is None:
            return False
        if band not in places:
            return True
        top = items[index]["bbox"][1]
        nearest = bisect_left(places[band], top - _PLACE)  # the first place not above the window
        return nearest < len(places[band]) and places[band][nearest] <= top + _PLACE

    opening = _opening_running_lines(items, texts, keys, bands, repeats, n_pages)
    # A running header that names the chapter changes with it, so it need not repeat: it is
    # still furniture when it repeats a title of the document where running heads stand.
    titles = {keys[i] for i, item in enumerate(items) if item.get("text_level")}
    furniture: set[int] = set()
    demoted: set[int] = set()
    for index, item in enumerate(items):
        kind = item["type"]
        key = keys[index]
        repeated = repeats.get(index, False)
        if kind in typed_kinds:
            if n_pages < 3 or not key or repeated or index in opening or (key in titles and at_running_place(index)):
                furniture.add(index)
            else:
                demoted.add(index)
        elif kind == "page_number":
            furniture.add(index)
        elif (
            kind == "text"
            and repeated
            and key
            and len(texts[index].text.split()) <= _MAX_WORDS
            and (not item.get("text_level") or _running_title(index in widened, texts[index].text))
        ):
            furniture.add(index)
    # A heading's dotted number set apart from its title: the title may repeat the running
    # head's words, but the number says it is the page's heading, which a running head is not,
    # unless the number repeats at its place too (a running head "4.1 <tab> Pipe network").
    for number, title in (numbers_set_apart(items, texts) if apart is None else apart).items():
        rescued = (number in furniture or title in furniture) and not repeats.get(number)
        for index in (number, title) if rescued else ():
            furniture.discard(index)
            if items[index]["type"] in typed_kinds:
                demoted.add(index)
    return furniture, demoted
