"""The steps that open sections: a heading from the document's own signals (its outline, a title
item, a line continuing the numbering, a run-in heading cut out of its paragraph, a standard
section name, a boxed title, a number and its title MinerU read as two items, a heading's line
carried over a page break). chunker.py says in which order they are tried."""

from __future__ import annotations

import re
from collections import Counter

from .drafts import DraftBuilder, part_of
from .furniture import FURNITURE_TYPES, opens, repeats_on, running_key, running_words
from .headings import CAPTION, SECTION_NAME_INSIDE, heading_rejection, is_section_name, numbered
from .outline import OutlineHit, squash, squashed, widen

_ADJACENT_TITLE_GAP = 30  # 0–1000 of the page height: about two lines
_MAX_JOINED_HEADING = 160  # a heading's characters, its line carried over a page break included
# What a page without text holds under its heading: a diagram drawn with boxes is read as tables.
_FIGURE_TYPES = ("image", "chart", "table")
# A line that may carry a section number inside a paragraph: "(2) Title", "2.1 Title", "3. Title".
_NUMBER_INSIDE = re.compile(r"(?:^|\s)(?P<no>\(\d{1,2}\)|\d{1,2}(?:\.\d{1,2})+\.?|\d{1,2}\.)\s*[^\s\d]")
_BARE_NUMBER = re.compile(
    r"^\s*(?:(?:chapter|chapitre|kapitel|part|partie|teil|section|appendix|annex)\s+)?"
    r"(?:\d{1,2}(?:\.\d{1,3})*|[IVXL]{1,6}|[A-Z])\.?\s*$",
    re.I,
)


def _adjacent(upper: dict, lower: dict) -> bool:
    """Two boxes on one page, the second right under the first, overlapping horizontally."""
    a, b = upper.get("bbox"), lower.get("bbox")
    if not a or not b or upper["page_idx"] != lower["page_idx"]:
        return False
    return -5 <= b[1] - a[3] <= _ADJACENT_TITLE_GAP and min(a[2], b[2]) > max(a[0], b[0])


def _cut_at_line(text: str, line: str, start: int) -> tuple[int, int] | None:
    """(start, end) of a text-layer line in `text`, at or after `start`, ignoring spacing and punctuation."""
    body, where = squashed(text)
    wanted = squashed(line)[0]
    if not wanted:
        return None
    offset = next((k for k, i in enumerate(where) if i >= start), len(where))
    found = body.find(wanted, offset)
    return widen(text, where[found], where[found + len(wanted) - 1] + 1) if found >= 0 else None


class HeadingSteps(DraftBuilder):
    """What opens a section, as steps of the chunk builder."""

    def _take_outline_heading(self, index: int, hit: OutlineHit) -> None:
        """The item's head (the rest is body), or the item and the items continuing its line."""
        text = self.texts[index]
        if hit.cut is not None:
            self._open_heading(text.text[: hit.cut].strip(), [index], outline_level=hit.level)
            self._add_body(index, part_of(text, hit.cut))
        else:
            pieces = [text.text.strip(), *(self.texts[i].text.strip() for i in hit.continued_by)]
            self._open_heading(" ".join(pieces), [index, *hit.continued_by], outline_level=hit.level, pieces=pieces)

    def _text_as_heading(self, index: int) -> bool:
        """Open the heading a text item is or holds; False when it is body text."""
        line = self.texts[index].text.strip()
        if self._join_number_prefix(index, line):
            return True
        if self._continues_over_page(index, line):
            return True
        if self.raw.items[index].get("text_level"):
            return self._title_as_heading(index, line)
        if self._split_run_in(index):
            return True
        if self.headings.continues_numbering(line) and not self.headings.goes_backwards(line):
            self._open_heading(line, [index])
            return True
        if is_section_name(line):
            self._open_heading(line, [index])
            return True
        return False

    def _heading_over_figure(self, index: int) -> bool:
        """A line the furniture rule took for the running head that is the only line above the
        page's figures, numbered so as to continue the outline: the page's heading ("5 Pipe
        network" where the head "Pipe network" stands on the other pages, a diagram under it).
        Its number tells it from the head, which carries none, or a page number."""
        item, line = self.raw.items[index], self.texts[index].text.strip()
        if item["type"] not in ("header", "text") or not item.get("bbox") or "\n" in line:
            return False
        if numbered(line) is None or not self.headings.continues_numbering(line) or self.headings.goes_backwards(line):
            return False
        if self.on_page is None:
            self.on_page = {}
            for i, other in enumerate(self.raw.items):
                self.on_page.setdefault(other["page_idx"], []).append(i)
        body = [
            i
            for i in self.on_page[item["page_idx"]]
            if i != index and i not in self.furniture and self.raw.items[i]["type"] not in FURNITURE_TYPES
        ]
        # Below it, figures and their captions only, and a figure at least.
        figures = [i for i in body if self.raw.items[i]["type"] in _FIGURE_TYPES]
        if not figures or any(
            not (i in figures or CAPTION.match(self.texts[i].text))
            or not self.raw.items[i].get("bbox")
            or self.raw.items[i]["bbox"][1] < item["bbox"][3]
            for i in body
        ):
            return False
        self._open_heading(line, [index])
        return True

    def _number_apart_as_heading(self, index: int) -> bool:
        """A section number and the title beside it on its line, MinerU's two items: one heading
        when the line continues the numbering (the other item is taken with this one)."""
        number, title = sorted((index, self.set_apart[index]), key=lambda i: self.raw.items[i]["bbox"][0])
        line = f"{self.texts[number].text.strip()} {self.texts[title].text.strip()}"
        if not self.headings.continues_numbering(line) or self.headings.goes_backwards(line):
            return False
        items = sorted((number, title))
        self._open_heading(line, items, pieces=[self.texts[i].text.strip() for i in items])
        self.continuations.add(self.set_apart[index])
        return True

    def _join_number_prefix(self, index: int, line: str) -> bool:
        """A waiting bare number and the title after it make one heading; before anything else, body."""
        if self.number_prefix is None:
            return False
        prefix_index, prefix = self.number_prefix
        self.number_prefix = None
        if self.raw.items[index].get("text_level") and heading_rejection(line) is None:
            self._open_heading(f"{prefix} {line}", [prefix_index, index], pieces=[prefix, line])
            return True
        self._add_body(prefix_index, self.texts[prefix_index])
        return False

    def _title_as_heading(self, index: int, line: str) -> bool:
        """A title item: a heading, unless it is a caption-like label or out of sequence."""
        if any(squash(line) == squash(s.heading.line) for s in self.sections):
            return True  # the open section's title again (a running title at the top of a page)
        items = self.raw.items
        nxt = items[index + 1] if index + 1 < len(items) else {}
        if _BARE_NUMBER.match(line) and nxt.get("text_level") and nxt["page_idx"] == items[index]["page_idx"]:
            self.number_prefix = (index, line)
            return True
        parsed = numbered(line)
        if (
            heading_rejection(line) is not None
            or self.headings.goes_backwards(line)
            # "(a) Original image" under a figure: a label, unless it continues a run.
            or (parsed is not None and parsed[0] == "paren" and not self.headings.continues_numbering(line))
        ):
            return False
        if self._continues_title(index, parsed is not None):
            # One heading MinerU cut into two title lines ("PART 3" / "SAFETY REQUIREMENTS"): reopen with both.
            self._reopen_heading_with(index, line)
        else:
            self._open_heading(line, [index])
        return True

    def _continues_over_page(self, index: int, line: str) -> bool:
        """A heading whose last line a page break carried over ("2.1 Measures for the upkeep of
        the network and its" / "valves and hydrants" at the next page's top): under the bodiless
        heading that ended the page before, a line of the heading's font that starts in
        lowercase, as no title does. The heading is reopened whole."""
        current = self.sections[-1] if self.sections else None
        if (
            current is None
            or self.last_heading_item is None
            or current.heading.from_outline
            or current.heading.line[-1] in ".:;!?"
            or "\n" in line
            or not line[:1].islower()
            or len(current.heading.line) + len(line) > _MAX_JOINED_HEADING
        ):
            return False
        above, item = self.raw.items[self.last_heading_item], self.raw.items[index]
        if item["page_idx"] != above["page_idx"] + 1 or not (above.get("bbox") and item.get("bbox")):
            return False
        ending = self.text_layer.lines_in_box(above["page_idx"], above["bbox"])
        carried = self.text_layer.lines_in_box(item["page_idx"], item["bbox"])
        if len(carried) != 1 or not ending or ending[-1].font != carried[0].font:
            return False
        self._reopen_heading_with(index, line)
        return True

    def _reopen_heading_with(self, index: int, line: str) -> None:
        """The bodiless section just opened, reopened with the item's line ending its heading."""
        current = self.sections.pop()
        self.headings.pop_current()
        self._open_heading(f"{current.heading.line} {line}", [*current.items, index], pieces=[*current.pieces, line])

    def _continues_title(self, index: int, is_numbered: bool) -> bool:
        """A title line right under the bodiless heading just opened, unnumbered, not after a sentence end."""
        current = self.sections[-1] if self.sections else None
        return (
            current is not None
            and self.last_heading_item is not None
            and not current.heading.from_outline
            and not is_numbered
            and _adjacent(self.raw.items[self.last_heading_item], self.raw.items[index])
            and current.heading.line[-1] not in ".:;!?"
        )

    def _split_run_in(self, index: int) -> bool:
        """Headings MinerU merged into a paragraph: lines in a font of their own (or of a demoted
        header) carrying the next section number, with the lines wrapping it in the same font, and standard section names on a line of their own ("Résultats") opening
        the paragraph or following a sentence's end, with text after them. The paragraph is cut
        there, between its own characters (verbatim)."""
        item, text = self.raw.items[index], self.texts[index]
        # Reading the page's fonts costs time: only when the paragraph holds the number expected
        # next, or a section name where a heading could stand, or is a demoted header (a few a
        # document: a chapter's "1" before its "1.1", a running name over the page's heading).
        if not item.get("bbox") or not (
            any(self.headings.continues_numbering(f"{m.group('no')} Title") for m in _NUMBER_INSIDE.finditer(text.text))
            or SECTION_NAME_INSIDE.search(text.text)
            or index in self.demoted
        ):
            return False
        lines = self.text_layer.lines_in_box(item["page_idx"], item["bbox"])
        if len(lines) < 2:
            return False
        fonts = Counter(line.font for line in lines)
        # A "header" MinerU read as body text is no paragraph: lines of it carrying the next
        # numbers are headings it merged ("Chapter 5. …" over "5.1 …" under a page's top band).
        heading_block = index in self.demoted
        position = 0
        after = 0  # the lines before this one were taken with a heading
        for k, line in enumerate(lines):
            if k < after:
                continue
            # Its font is its own: the line, and the lines after it in the same font (a heading
            # wrapped in a narrow column), are all the lines in that font, and a line in another
            # font stands after them (or before).
            end = k + 1
            while not heading_block and end < len(lines) and lines[end].font == line.font:
                end += 1
            own_font = heading_block or (fonts[line.font] == end - k and (end < len(lines) or k > 0))
            heading = " ".join(wrapped.text.strip() for wrapped in lines[k:end])
            named = (
                is_section_name(line.text)
                and k + 1 < len(lines)
                and (k == 0 or lines[k - 1].text.rstrip()[-1:] in ".!?:")
            )
            if named:
                end = k + 1
            elif not (own_font and self.headings.continues_numbering(heading)):
                continue
            where = _cut_at_line(text.text, line.text, position)
            if where is not None and end > k + 1:
                last = _cut_at_line(text.text, lines[end - 1].text, where[1])
                where = (where[0], last[1]) if last else None
            if where is None:
                continue
            after = end
            before = text.text[position : where[0]].strip()
            if heading_block and position == 0 and self._running_line(before):
                # The running head MinerU merged with the heading under it: furniture, as elsewhere.
                self.running_headers.setdefault(item["page_idx"], []).append(before)
            elif before:
                self._add_body(index, part_of(text, position, where[0]))
            self._open_heading(text.text[where[0] : where[1]], [index])
            position = where[1]
        if position == 0:
            return False
        if text.text[position:].strip():
            self._add_body(index, part_of(text, position))
        return True

    def _running_line(self, line: str) -> bool:
        """Whether a line opening a demoted header is a running head: furniture elsewhere, or
        opening the demoted headers of pages enough to run (a section's name set over each
        page's heading, merged with it by MinerU on every page)."""
        key = running_key(line)
        if not key or key in self.running_keys:
            return bool(key)
        words = running_words(line)
        pages = {page for opening, page in self.demoted_words if opens(words, opening)}
        return repeats_on(len(pages), self.raw.n_pages)

    def _box_as_heading(self, index: int) -> bool:
        """A section title set in a box or a picture ("2 | Scope" in a coloured band)."""
        line = self.texts[index].text.strip()
        if not line or "\n" in line or not self.headings.continues_numbering(line):
            return False
        self._open_heading(line, [index])
        return True
