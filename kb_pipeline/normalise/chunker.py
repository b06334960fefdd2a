"""MinerU content list → `Chunk[]`, following the contract's boundary rules.

What opens a new chunk, in priority order:
1. a section heading, from the document's own signals (docs/QUALITY.md): the PDF outline
   (`outline`); a title item that is not a caption, a contents line or a fragment
   (`headings.heading_rejection`); a short line continuing the document's numbering (flash
   misses some titles); a paragraph line in a font of its own continuing it (a run-in heading:
   the paragraph is cut there); a standard section name ("Résultats") alone on its item or on a
   line of its own at a paragraph's start, MinerU having read it as body text; a boxed title; a
   section number and the title beside it that MinerU read as two items. Adjacent title lines
   make one heading, and so does a heading's line carried over a page break; a section
   with no body keeps a chunk of its heading line, so no heading is lost;
2. a table, a chart, or a figure with a caption — one item, one chunk;
3. the 6,000-character safety net — only at an item boundary, so `text` stays verbatim.
A page break never does.

Where things go:
- `text` is the items' verbatim text joined by blank lines; the heading line goes in `heading`.
- Running headers (`furniture`) become `chapters`; running footers and page numbers stay out of
  `text`; a one-off "header" is body text.
- A contents page is one text chunk of the text layer's lines; a cell-less "table" is text.
- A formula stays in the text chunk that explains it (`has_formula`), its characters read from the
  text layer inside its box (flash gives no LaTeX); markup MinerU did give goes in `latex`.
- A figure with no caption and no text joins the current chunk (`images`), or opens its
  section's chunk under a heading with no body yet; quality checks flag it.
- Items come in MinerU's reading order, but a "header" read as body text comes where it stands
  on its page (`reading_order`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from html import escape

from ..contracts import Chunk, ChunkKind, make_chunk_id
from ..parsing.raw_output import RawOutput
from ..pdf_text import PdfTextLayer, TextLine
from .furniture import opens, repeats_on, running_furniture, running_key, running_words
from .headings import (
    CAPTION,
    DOT_LEADER,
    SECTION_NAME_INSIDE,
    Heading,
    HeadingTracker,
    heading_rejection,
    is_section_name,
    looks_like_page_number,
    numbered,
    numbers_set_apart,
)
from .item_text import ItemText, has_cells, item_texts, span_lines
from .outline import OutlineHit, place_outline, squash, squashed, widen

MAX_CHUNK_CHARS = 6000
ITEM_SEPARATOR = "\n\n"
_STANDALONE_KIND: dict[str, ChunkKind] = {"table": "table", "chart": "chart", "image": "image"}
_CONTENTS_MIN_LEADERS = 3
_FURNITURE_TYPES = ("header", "footer", "page_number", "aside_text")
# What a page without text holds under its heading: a diagram drawn with boxes is read as tables.
_FIGURE_TYPES = ("image", "chart", "table")
_ADJACENT_TITLE_GAP = 30  # 0–1000 of the page height: about two lines
_SAME_LINE = 8  # 0–1000 of the page height
_MAX_JOINED_HEADING = 160  # a heading's characters, its line carried over a page break included
# A line that may carry a section number inside a paragraph: "(2) Title", "2.1 Title", "3. Title".
_NUMBER_INSIDE = re.compile(r"(?:^|\s)(?P<no>\(\d{1,2}\)|\d{1,2}(?:\.\d{1,2})+\.?|\d{1,2}\.)\s*[^\s\d]")
_BARE_NUMBER = re.compile(
    r"^\s*(?:(?:chapter|chapitre|kapitel|part|partie|teil|section|appendix|annex)\s+)?"
    r"(?:\d{1,2}(?:\.\d{1,3})*|[IVXL]{1,6}|[A-Z])\.?\s*$",
    re.I,
)


@dataclass
class _Draft:
    kind: ChunkKind
    heading: Heading | None
    heading_path: list[str]
    texts: list[str] = field(default_factory=list)
    items: list[int] = field(default_factory=list)
    pages: list[int] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    latex: list[str] = field(default_factory=list)
    descriptions: list[str] = field(default_factory=list)
    bbox: list[int] | None = None
    has_formula: bool = False
    table_html: str | None = None

    def add(self, index: int, item: dict, text: ItemText, image: str | None) -> None:
        self.items.append(index)
        if item["page_idx"] not in self.pages:
            self.pages.append(item["page_idx"])
        if self.bbox is None and item.get("bbox"):
            self.bbox = list(item["bbox"])
        if text.text:
            self.texts.append(text.text)
        self.latex += text.latex
        if text.generated:
            self.descriptions.append(text.generated)
        if image:
            self.images.append(image)


def formula_text(text_layer: PdfTextLayer, item: dict) -> str:
    """A display formula's characters, read from the PDF's text layer inside its box."""
    return text_layer.text_in_box(item["page_idx"], item["bbox"]).strip("\r\n") if item.get("bbox") else ""


def table_text(text_layer: PdfTextLayer, item: dict) -> str:
    """A cell-less table's characters (a boxed theorem, a diagram with text), from the text layer;
    of a table drawn turned (`sideways_lines`), its lines as they run."""
    if not item.get("bbox"):
        return ""
    turned = sideways_lines(text_layer, item)
    return "\n".join(line.text for line in turned) or text_layer.text_in_box(item["page_idx"], item["bbox"]).strip()


def sideways_lines(text_layer: PdfTextLayer, item: dict) -> list[TextLine]:
    """The text-layer lines of an item whose text runs across the page as MinerU saw it (most of
    its characters), or nothing. A page's text can run two ways: a table drawn turned again on a
    page otherwise upright. MinerU reads such text with its words split ("P ro gramme") and no
    cells; the text layer has each line whole, in its own direction. Upright lines crossing the
    box (the end of a note above it) are the page's other text, not the table's."""
    lines = text_layer.lines_in_box(item["page_idx"], item["bbox"]) if item.get("bbox") else []
    turned = [line for line in lines if line.sideways]
    return turned if 2 * sum(len(line.text) for line in turned) > sum(len(line.text) for line in lines) else []


def turned_table(text_layer: PdfTextLayer, item: dict, content: dict) -> tuple[ItemText, str | None] | None:
    """A cell-less table MinerU read from text drawn turned (`sideways_lines`): its text from the
    text layer between MinerU's caption and footnote lines (`content`, the item's v2 content:
    they stand apart from the turned body and are kept), and its html when most of its lines
    have cells (gutters between columns), else None; or None when its text runs upright."""
    turned = sideways_lines(text_layer, item)
    if not turned:
        return None
    before, after = span_lines(content, "table_caption"), span_lines(content, "table_footnote")
    rows = [line.cells for line in turned]
    if len(rows) < 2 or 2 * sum(len(row) >= 2 for row in rows) <= len(rows):
        lines = [*before, *(line.text for line in turned), *after]
        return ItemText(text="\n".join(lines), pieces=lines), None
    html = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    body = "\n".join(" | ".join(row) for row in rows)
    text = ItemText(
        text="\n".join([*before, body, *after]), pieces=[*before, *(cell for row in rows for cell in row), *after]
    )
    return text, f"<table>{html}</table>"


def contents_pages(items: list[dict], texts: list[ItemText]) -> set[int]:
    """Pages of a printed table of contents: several lines with dot leaders."""
    leaders = Counter(item["page_idx"] for item, text in zip(items, texts) if DOT_LEADER.search(text.text))
    return {page for page, n in leaders.items() if n >= _CONTENTS_MIN_LEADERS}


def contents_text(text_layer: PdfTextLayer, items: list[dict]) -> str:
    """A contents page's entries, line by line from the text layer: MinerU cuts multi-column
    contents into numbers and titles far apart in reading order."""
    boxes = [item["bbox"] for item in items if item.get("bbox")]
    if not boxes:
        return ""
    union = [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)]
    return "\n".join(line.text for line in text_layer.lines_in_box(items[0]["page_idx"], union))


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


def reading_order(items: list[dict], demoted: set[int] | None = None) -> list[int]:
    """MinerU's order, except that of two text blocks side by side on one line (a term and its
    definition) the left one comes first: MinerU sometimes reads the wider right one first; and
    that a "header" read as body text (`demoted`) comes where it stands: MinerU lists a page's
    headers first, so one standing under the page's first title came before it ("5.1 …" before
    "Chapter 5", then read as the end of chapter 4)."""
    order = _demoted_in_place(list(range(len(items))), items, demoted or set())
    k = 0
    while k + 1 < len(order):
        a, b = items[order[k]], items[order[k + 1]]
        box_a, box_b = a.get("bbox"), b.get("bbox")
        if (
            a["type"] == b["type"] == "text"
            and not (a.get("text_level") or b.get("text_level"))
            and box_a
            and box_b
            and a["page_idx"] == b["page_idx"]
            and box_b[2] <= box_a[0]
            and abs(box_b[1] - box_a[1]) <= _SAME_LINE
        ):
            order[k], order[k + 1] = order[k + 1], order[k]
            k += 1  # a swapped pair is not looked at again
        k += 1
    return order


def _demoted_in_place(order: list[int], items: list[dict], demoted: set[int]) -> list[int]:
    """`order` with each demoted header moved after the last body item of its page that MinerU
    listed after it but that stands above it. Page by page: a long document stays linear."""
    pages: list[list[int]] = []
    for index in order:
        if not pages or items[pages[-1][0]]["page_idx"] != items[index]["page_idx"]:
            pages.append([])
        pages[-1].append(index)
    for page in pages:
        for index in [i for i in page if i in demoted and items[i].get("bbox")]:
            at = page.index(index)
            above = [
                k
                for k in range(at + 1, len(page))
                if items[page[k]]["type"] not in _FURNITURE_TYPES
                and items[page[k]].get("bbox")
                and items[page[k]]["bbox"][1] < items[index]["bbox"][1]
            ]
            if above:
                page.insert(above[-1], page.pop(at))  # after the pop, that item is at above[-1] - 1
    return [index for page in pages for index in page]


@dataclass
class _Section:
    heading: Heading
    items: list[int]
    pages: list[int]
    bbox: list[int] | None
    pieces: list[str]  # its items' text, each verbatim: the chunk of a section with no body
    used: bool = False


def build_chunks(
    doc_id: str, raw: RawOutput, text_layer: PdfTextLayer, texts: list[ItemText] | None = None
) -> list[Chunk]:
    """The document's chunks. `texts` are `item_texts(raw)` when the caller has them already."""
    builder = _ChunkBuilder(raw, text_layer, item_texts(raw) if texts is None else texts)
    for index in reading_order(raw.items, builder.demoted):
        builder.take(index)
    return [_to_chunk(doc_id, seq, draft, builder.running_headers) for seq, draft in enumerate(builder.finish())]


class _ChunkBuilder:
    """A document's items, taken in reading order: `take` hands each to the step for its kind."""

    def __init__(self, raw: RawOutput, text_layer: PdfTextLayer, texts: list[ItemText]) -> None:
        self.raw, self.text_layer, self.texts = raw, text_layer, texts
        # A heading's number set apart from its title, both ways: number -> title, title -> number.
        apart = numbers_set_apart(raw.items, texts)
        self.set_apart = apart | {title: number for number, title in apart.items()}
        self.furniture, self.demoted = running_furniture(raw.items, texts, raw.n_pages, apart)
        self.running_keys = {running_key(texts[i].text) for i in self.furniture}
        self.demoted_words = [(running_words(texts[i].text), raw.items[i]["page_idx"]) for i in self.demoted]
        self.on_page: dict[int, list[int]] | None = None  # page -> its items, made on first need
        self.contents = contents_pages(raw.items, texts)
        # A contents page names every heading but holds none of them.
        not_headings = self.furniture | {i for i, item in enumerate(raw.items) if item["page_idx"] in self.contents}
        self.outline = place_outline(text_layer.outline(), raw.items, texts, not_headings)
        # Items taken with an earlier one (a wrapped outline heading's lines, a contents page's).
        self.continuations = {i for hit in self.outline.values() for i in hit.continued_by}
        self.headings = HeadingTracker()
        self.sections: list[_Section] = []  # open sections, aligned with the tracker's
        self.running_headers: dict[int, list[str]] = {}
        self.drafts: list[_Draft] = []
        self.open_draft: _Draft | None = None  # the body text chunk being filled
        # Caption-less images met before any section is open wait for the first chunk.
        self.waiting_images: list[int] = []
        # A bare number MinerU gave as its own title ("3.1", "PART 3") waits for the title after it.
        self.number_prefix: tuple[int, str] | None = None
        self.last_heading_item: int | None = None  # the item that opened the current section, while bodiless

    def take(self, index: int) -> None:
        item, text = self.raw.items[index], self.texts[index]
        if index in self.continuations:
            return
        kind = self._kind(index)
        if index in self.furniture:
            if self._heading_over_figure(index):
                return
            if kind == "header" and text.text:
                self.running_headers.setdefault(item["page_idx"], []).append(text.text)
            return
        if kind == "text" and looks_like_page_number(text.text, item.get("bbox")):
            return
        if item["page_idx"] in self.contents and index not in self.outline and kind in ("text", "index"):
            self._take_contents_page(index)
            return
        if (hit := self.outline.get(index)) is not None:
            self._take_outline_heading(index, hit)
            return
        if index in self.set_apart and self._number_apart_as_heading(index):
            return
        if kind == "text" and text.text.strip() and self._text_as_heading(index):
            return
        if kind in ("image", "chart") and self._box_as_heading(index):
            return
        if kind == "table":
            self._take_table(index)
        elif kind == "image" and not text.text:
            self._take_bare_image(index)
        elif kind in _STANDALONE_KIND:
            self._add_standalone(_STANDALONE_KIND[kind], index, text)
        elif kind == "equation":
            self._take_formula(index)
        else:
            self._add_body(index, text)

    def finish(self) -> list[_Draft]:
        if self.number_prefix is not None:
            self._add_body(self.number_prefix[0], self.texts[self.number_prefix[0]])
        self._close()
        while self.sections:
            self._close_section()
        if self.waiting_images:
            # Nothing but caption-less images (a scanned PDF read as text): one chunk keeps them traceable.
            draft = self._new_draft("image")
            self._attach_waiting_images(draft)
            self.drafts.append(draft)
        # Bodiless sections are closed (and their chunks made) after later drafts opened: reading order.
        self.drafts.sort(key=lambda d: min(d.items))
        return self.drafts

    def _kind(self, index: int) -> str:
        return "text" if index in self.demoted else self.raw.items[index]["type"]

    def _new_draft(self, kind: ChunkKind) -> _Draft:
        # Every open section now holds a chunk, so none needs a heading-only one.
        for section in self.sections:
            section.used = True
        return _Draft(kind, self.headings.current, self.headings.path)

    def _close(self) -> None:
        if self.open_draft is not None and self.open_draft.items:
            self.drafts.append(self.open_draft)
        self.open_draft = None

    def _body(self) -> _Draft:
        self.last_heading_item = None
        if self.open_draft is None:
            self.open_draft = self._new_draft("text")
            self._attach_waiting_images(self.open_draft)
        return self.open_draft

    def _attach_waiting_images(self, draft: _Draft) -> None:
        for index in self.waiting_images:
            item = self.raw.items[index]
            draft.add(index, item, ItemText(), _image_path(self.raw, item))
        self.waiting_images.clear()

    def _add_body(self, index: int, text: ItemText) -> None:
        if not text.text:
            return
        draft = self._body()
        if draft.texts and sum(len(t) for t in draft.texts) + len(text.text) > MAX_CHUNK_CHARS:
            self._close()
            draft = self._body()
        draft.add(index, self.raw.items[index], text, None)

    def _add_standalone(self, kind: ChunkKind, index: int, text: ItemText, table_html: str | None = None) -> None:
        self._close()
        draft = self._new_draft(kind)
        draft.table_html = table_html
        item = self.raw.items[index]
        draft.add(index, item, text, _image_path(self.raw, item))
        self.drafts.append(draft)

    def _open_heading(
        self, line: str, items: list[int], *, outline_level: int | None = None, pieces: list[str] | None = None
    ) -> None:
        """Open the section `line` heads. `pieces` are its items' own text when the line joins
        several ("4.1" and "Pipe network"): a chunk's text is its items' text, never the line
        made of them."""
        self._close()
        heading = self.headings.make(line, outline_level=outline_level)
        while self.sections and self.sections[-1].heading.depth >= heading.depth:
            self._close_section()
        self.headings.push(heading)
        pages = sorted({self.raw.items[i]["page_idx"] for i in items})
        bbox = self.raw.items[items[0]].get("bbox")
        self.sections.append(_Section(heading, items, pages, bbox, [line] if pieces is None else pieces))
        self.last_heading_item = items[-1]

    def _close_section(self) -> None:
        # A section that never held a chunk keeps one, of its heading's items: no heading is lost.
        last = self.sections.pop()
        if not last.used:
            path = [*(s.heading.line for s in self.sections), last.heading.line]
            self.drafts.append(_Draft("text", last.heading, path, last.pieces, last.items, last.pages, bbox=last.bbox))

    # Steps, one per kind of item.

    def _take_contents_page(self, index: int) -> None:
        items, page = self.raw.items, self.raw.items[index]["page_idx"]
        on_page = [i for i in range(index, len(items)) if items[i]["page_idx"] == page]
        taken = self.furniture | self.outline.keys()
        page_items = [i for i in on_page if i not in taken and self._kind(i) in ("text", "index")]
        # Its leader-line pictures (MinerU reads dotted rules as images) stay with it.
        pictures = [i for i in on_page if items[i]["type"] == "image" and not self.texts[i].text]
        self._close()
        draft = self._new_draft("text")
        for i in sorted(page_items + pictures):
            draft.add(i, items[i], ItemText(), _image_path(self.raw, items[i]) if i in pictures else None)
        draft.texts.append(contents_text(self.text_layer, [items[i] for i in page_items]))
        self.drafts.append(draft)
        self.continuations.update(page_items + pictures)

    def _take_outline_heading(self, index: int, hit: OutlineHit) -> None:
        """The item's head (the rest is body), or the item and the items continuing its line."""
        text = self.texts[index]
        if hit.cut is not None:
            self._open_heading(text.text[: hit.cut].strip(), [index], outline_level=hit.level)
            self._add_body(index, _part(text, hit.cut))
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
            if i != index and i not in self.furniture and self.raw.items[i]["type"] not in _FURNITURE_TYPES
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
                self._add_body(index, _part(text, position, where[0]))
            self._open_heading(text.text[where[0] : where[1]], [index])
            position = where[1]
        if position == 0:
            return False
        if text.text[position:].strip():
            self._add_body(index, _part(text, position))
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

    def _take_table(self, index: int) -> None:
        item, text = self.raw.items[index], self.texts[index]
        content = self.raw.items_v2[index].get("content") or {}
        html = content.get("html") or ""
        if has_cells(html):
            self._add_standalone("table", index, text, html)
            return
        # A table drawn turned: the text layer's rows and cells (MinerU's split words are no text).
        if html.strip() and (turned := turned_table(self.text_layer, item, content)) is not None:
            text, turned_html = turned
            if turned_html is not None:
                self._add_standalone("table", index, text, turned_html)
                return
        # No cells (a boxed theorem, code, a diagram): a text chunk, plus the text layer's text if no html.
        elif not html.strip():
            text = ItemText(text="\n".join(p for p in (text.text, table_text(self.text_layer, item)) if p))
        self._add_standalone("text", index, text)

    def _take_bare_image(self, index: int) -> None:
        """A figure with no caption joins the chunk being filled; under a heading with no body yet
        it opens the section's chunk (waiting for the next text carried it into a later section,
        a page of diagrams under headings of their own away from theirs); before any section, it
        waits for the first chunk."""
        if self.open_draft is None and not self.sections:
            self.waiting_images.append(index)
            return
        item = self.raw.items[index]
        self._body().add(index, item, self.texts[index], _image_path(self.raw, item))

    def _take_formula(self, index: int) -> None:
        item, text = self.raw.items[index], self.texts[index]
        text.text = formula_text(self.text_layer, item)  # in place: the caller's `texts` see it too
        draft = self._body()
        draft.has_formula = True
        draft.add(index, item, text, _image_path(self.raw, item))


def _part(text: ItemText, start: int, end: int | None = None) -> ItemText:
    return ItemText(text=text.text[start:end].strip(), latex=text.latex if start == 0 else [])


def _image_path(raw: RawOutput, item: dict) -> str | None:
    """The item's image, relative to the raw output dir, if the file is there."""
    path = item.get("img_path") or ""
    return path if path and not path.startswith("data:") and (raw.path / path).is_file() else None


def _to_chunk(doc_id: str, seq: int, draft: _Draft, running_headers: dict[int, list[str]]) -> Chunk:
    pages = sorted(draft.pages)
    if draft.kind == "text" and not draft.texts and draft.images:
        draft.kind = "image"  # only pictures (a formula with no text layer, a bare figure)
    chapters = list(dict.fromkeys(header for page in pages for header in running_headers.get(page, [])))
    return Chunk(
        chunk_id=make_chunk_id(doc_id, seq),
        doc_id=doc_id,
        kind=draft.kind,
        text=ITEM_SEPARATOR.join(draft.texts),
        page_idx=pages[0],
        page_idxs=pages,
        section_no=draft.heading.section_no if draft.heading else None,
        heading=draft.heading.title if draft.heading else None,
        chapters=chapters,
        heading_path=draft.heading_path,
        has_formula=draft.has_formula,
        is_tabular=draft.kind == "table",
        source_items=draft.items,
        bbox=draft.bbox,
        images=draft.images,
        latex=draft.latex,
        table_html=draft.table_html,
        generated_description="\n\n".join(draft.descriptions) or None,
    )
