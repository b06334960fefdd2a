"""The document's title as printed on its first page: its largest-type lines, with the lines
set tight against them (a kicker above, a second title line below), in reading order.

A page whose largest type is body text (an excerpt, a page of running text) prints no title:
no lines, and the brief's title is null rather than a guess. Each line is proposed as a quote
of the first-page chunk that holds it (matched on its letters, as the text layer and MinerU
may space a line differently); a line no chunk holds is not proposed.
"""

from __future__ import annotations

import re
from collections import Counter

from ....contracts import ParsedDocument
from ....layout_contract import LayoutLine
from ...document.layout import DocumentLayout
from ...document.text import find_squashed
from ...language.lexicon import VERSION_LABELS
from ..findings import Quote

# A title's type is clearly larger than the document's body text ...
_TITLE_OVER_BODY = 1.15
# ... its lines are those near the largest type on the page ...
_SAME_TYPE = 0.8
_LARGEST_ONLY = 0.95
_TOP_HALF = 500
# ... and, joined to them, lines larger than body text standing this close (a fraction of the
# larger type size) above or below; further away is a subtitle, an author or a date.
_TIGHT_GAP = 0.35
_MAX_LINES = 6
# A numbered section heading ("1. Introduction", "II. SCOPE") set in the title's type is no title line.
_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.|[IVXLC]+\.)\s")
_WORD = re.compile(r"[^\W\d_]{3,}")
# A revision or version line under the title is no part of it: its label and a code ("Revision
# C", "Version 3.2 – May 2024", "Ausgabe 2"; a letter code is one capital, no word after it: not
# "Revisions", "Release A Guide …"), or a numbered edition ("2nd edition", "3e édition").
_VERSION_LINE = re.compile(
    rf"^\s*(?:(?:{VERSION_LABELS})\b\.?\s*[:\-–]?\s*(?:\d[\w.\-/]*|(?-i:[A-Z]|[IVX]+)(?![^\W\d_])(?!\s+[^\W\d_]))"
    rf"(?:\s+\S+){{0,3}}"
    rf"|\d+\w{{0,2}}\.?\s+(?:{VERSION_LABELS}))\s*$",
    re.IGNORECASE,
)
# A label over the title: one word and a number, numeral or letter ("Item 265", "CHAPTER 4",
# "SECTION 2", "Part II", "Annex A"). Left out when the page prints other title lines ("Windows 11"
# alone may be a title).
_LABEL_LINE = re.compile(r"^\s*[^\W\d_]+\.?\s+(?:\d+[a-z]?|[IVXLC]+|[A-Z])\.?\s*$")
# Pages read for the body text's size.
_BODY_PAGES = 6


def _body_size(layout: DocumentLayout) -> float:
    """The type size most characters of the first pages are set in."""
    sizes: Counter[float] = Counter()
    for page_idx in range(min(layout.n_pages, _BODY_PAGES)):
        for segment in layout.segments(page_idx):
            sizes[segment.size] += len(segment.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def _horizontal(segment: LayoutLine) -> bool:
    """Set along the line, not up a margin (an arXiv stamp)."""
    x0, y0, x1, y1 = segment.box
    return x1 - x0 >= y1 - y0


def title_lines(first_page: list[LayoutLine], body: float) -> list[LayoutLine]:
    unlabelled = [s for s in first_page if not _LABEL_LINE.match(s.text)]
    return _title_lines(unlabelled, body) or _title_lines(first_page, body)


def _title_lines(first_page: list[LayoutLine], body: float) -> list[LayoutLine]:
    # A line with a word in it (not a figure's axis label "wn"), set along the page, not numbered,
    # not a revision line.
    lines = [
        s
        for s in first_page
        if _WORD.search(s.text)
        and _horizontal(s)
        and not _SECTION_NUMBER.match(s.text)
        and not _VERSION_LINE.match(s.text)
    ]
    if not lines:
        return []
    # The title starts in the top half; a larger word further down is a logo or a label.
    top = [s for s in lines if s.box[1] < _TOP_HALF]
    largest = max((s.size for s in top), default=0.0)
    if largest < _TITLE_OVER_BODY * body:
        return []
    # The title's lines may differ a little in size; when that band holds more lines than a
    # title has (a masthead, a column's heading set nearly as large), the largest type alone is.
    for same_type in (_SAME_TYPE, _LARGEST_ONLY):
        floor = max(same_type * largest, _TITLE_OVER_BODY * body)
        chosen = _grown([s for s in lines if floor <= s.size <= largest / _SAME_TYPE], lines, body)
        if len(chosen) <= _MAX_LINES:
            return sorted(chosen, key=lambda s: (s.box[1], s.box[0]))
    # More lines than a title has: a page set in large type, whose title is not decidable.
    return []


def _grown(chosen: list[LayoutLine], lines: list[LayoutLine], body: float) -> list[LayoutLine]:
    """The chosen lines with the larger-than-body lines set tight against them, transitively."""
    grown = True
    while grown:
        grown = False
        for line in lines:
            if line in chosen or line.size <= _TITLE_OVER_BODY * body:
                continue
            for near in chosen:
                gap = max(line.box[1] - near.box[3], near.box[1] - line.box[3])
                overlap = min(line.box[2], near.box[2]) - max(line.box[0], near.box[0])
                if overlap > 0 and gap <= _TIGHT_GAP * max(line.size, near.size):
                    chosen.append(line)
                    grown = True
                    break
    return chosen


def read_title(document: ParsedDocument, layout: DocumentLayout | None) -> list[Quote]:
    """The title's lines as quotes, top to bottom; [] when the first page prints none (or a
    line of it is in no first-page chunk). Without a text layer to measure, the parse's own
    title (`source_title`) where the first page prints it."""
    first_page = [c for c in document.chunks if c.page_idx == 0]
    if layout is None or layout.n_pages == 0 or not layout.segments(0):
        printed = [document.source_title] if document.source_title else []
    else:
        printed = [line.text for line in title_lines(layout.segments(0), _body_size(layout))]
    quotes = []
    for line in printed:
        quote = next(
            (
                Quote(found, chunk)
                for chunk in first_page
                # A chapter line may stand only in the heading path ("Chapter 4" over the heading).
                for source in (chunk.heading or "", *chunk.heading_path, chunk.text)
                if (found := find_squashed(line, source))
            ),
            None,
        )
        if quote is None:
            return []
        quotes.append(quote)
    return quotes
