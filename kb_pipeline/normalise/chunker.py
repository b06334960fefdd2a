"""MinerU content list → `Chunk[]`, following the contract's boundary rules.

What opens a new chunk, in priority order:
1. a section heading — the primary boundary. Headings come from the document's own signals
   (docs/QUALITY.md): the PDF outline placed on its items (`outline`); a title item that is
   not a caption, a contents line or a fragment (`headings.heading_rejection`); a short line
   that continues the document's numbering (flash misses some titles); a line of a paragraph
   set in a font of its own that continues it (a run-in heading: the paragraph is cut there);
   a boxed title. Adjacent title lines make one heading, and a section with no body keeps one
   chunk holding its heading line, so no heading is lost;
2. a table, a chart, or a figure with a caption — one item, one chunk;
3. the 6,000-character safety net — only at an item boundary, so `text` stays verbatim.
A page break never does.

Where things go:
- `text` is the items' verbatim text joined by blank lines; the heading line goes in `heading`.
- Running headers (what repeats in the top band, `furniture`) become `chapters`; running
  footers and page numbers go nowhere near `text`; a one-off "header" is body text.
- A contents page is one text chunk of the text layer's own lines; a "table" with no cells is
  a text chunk.
- A formula stays in the text chunk that introduces and explains it (`has_formula`). The flash
  tier gives no LaTeX, so its characters come from the PDF's text layer inside its box: the
  document's own words. Markup MinerU did give goes, untouched, in `latex`.
- A figure with no caption and no text has nothing to say on its own: its image joins the
  current chunk (`images`), and the quality checks flag it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from ..contracts import Chunk, ChunkKind, make_chunk_id
from ..parsing.raw_output import RawOutput
from ..pdf_text import PdfTextLayer
from .furniture import running_furniture
from .headings import DOT_LEADER, Heading, HeadingTracker, heading_rejection, looks_like_page_number, numbered
from .item_text import ItemText, has_cells, item_texts
from .outline import place_outline, squash, squashed, widen

MAX_CHUNK_CHARS = 6000
ITEM_SEPARATOR = "\n\n"
_STANDALONE_KIND: dict[str, ChunkKind] = {"table": "table", "chart": "chart", "image": "image"}


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

    @property
    def chars(self) -> int:
        return sum(len(t) for t in self.texts)

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
    if not item.get("bbox"):
        return ""
    return text_layer.text_in_box(item["page_idx"], item["bbox"]).strip("\r\n")


def table_text(text_layer: PdfTextLayer, item: dict) -> str:
    """A table MinerU gave no cells for (a boxed theorem, a diagram with text, a run-in block):
    its characters, read from the PDF's text layer inside its box, so its text is not lost."""
    if not item.get("bbox"):
        return ""
    return text_layer.text_in_box(item["page_idx"], item["bbox"]).strip()


_CONTENTS_MIN_LEADERS = 3


def contents_pages(items: list[dict], texts: list[ItemText]) -> set[int]:
    """Pages of a printed table of contents: several lines with dot leaders."""
    leaders = Counter(item["page_idx"] for item, text in zip(items, texts) if DOT_LEADER.search(text.text))
    return {page for page, n in leaders.items() if n >= _CONTENTS_MIN_LEADERS}


def contents_text(text_layer: PdfTextLayer, items: list[dict]) -> str:
    """A contents page's entries as the PDF's text layer has them, line by line (the page's own
    line breaks: a box read as one keeps the columns' lines apart only in part). MinerU cuts
    multi-column contents into numbers and titles far apart in reading order; the text layer
    keeps each entry on its line."""
    boxes = [item["bbox"] for item in items if item.get("bbox")]
    if not boxes:
        return ""
    union = [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)]
    return "\n".join(line.text for line in text_layer.lines_in_box(items[0]["page_idx"], union))


# A line that may carry a section number inside a paragraph: "(2) Title", "2.1 Title", "3. Title".
_NUMBER_INSIDE = re.compile(r"(?:^|\s)(?P<no>\(\d{1,2}\)|\d{1,2}(?:\.\d{1,2})+\.?|\d{1,2}\.)\s*[^\s\d]")
_BARE_NUMBER = re.compile(
    r"^\s*(?:(?:chapter|chapitre|kapitel|part|partie|teil|section|appendix|annex)\s+)?"
    r"(?:\d{1,2}(?:\.\d{1,3})*|[IVXL]{1,6}|[A-Z])\.?\s*$",
    re.I,
)
_ADJACENT_TITLE_GAP = 30  # 0–1000 of the page height: about two lines


def _adjacent(upper: dict, lower: dict) -> bool:
    """Two boxes on one page, the second right under the first, overlapping horizontally."""
    a, b = upper.get("bbox"), lower.get("bbox")
    if not a or not b or upper["page_idx"] != lower["page_idx"]:
        return False
    return -5 <= b[1] - a[3] <= _ADJACENT_TITLE_GAP and min(a[2], b[2]) > max(a[0], b[0])


def _cut_at_line(text: str, line: str, start: int) -> tuple[int, int] | None:
    """Where a text-layer line sits in an item's text, at or after `start`, ignoring white
    space and punctuation differences: (first char, end) in `text`."""
    body, where = squashed(text)
    wanted = squashed(line)[0]
    if not wanted:
        return None
    offset = next((k for k, i in enumerate(where) if i >= start), len(where))
    found = body.find(wanted, offset)
    if found < 0:
        return None
    return widen(text, where[found], where[found + len(wanted) - 1] + 1)


_SAME_LINE = 8  # 0–1000 of the page height


def reading_order(items: list[dict]) -> list[int]:
    """MinerU's order, except that of two blocks side by side on one line (a term and its
    definition, a label and its value) the left one comes first: MinerU sometimes reads the
    wider right-hand block first."""
    order = list(range(len(items)))
    k = 0
    while k + 1 < len(order):
        a, b = items[order[k]], items[order[k + 1]]
        box_a, box_b = a.get("bbox"), b.get("bbox")
        if (
            a["type"] == b["type"] == "text"
            and not a.get("text_level")
            and not b.get("text_level")
            and box_a
            and box_b
            and a["page_idx"] == b["page_idx"]
            and box_b[2] <= box_a[0]
            and abs(box_b[1] - box_a[1]) <= _SAME_LINE
        ):
            order[k], order[k + 1] = order[k + 1], order[k]
            k += 2
        else:
            k += 1
    return order


@dataclass
class _Section:
    heading: Heading
    items: list[int]
    pages: list[int]
    bbox: list[int] | None
    used: bool = False


def build_chunks(
    doc_id: str, raw: RawOutput, text_layer: PdfTextLayer, texts: list[ItemText] | None = None
) -> list[Chunk]:
    """The document's chunks. `texts` are `item_texts(raw)` when the caller has them already."""
    texts = item_texts(raw) if texts is None else texts
    furniture, demoted = running_furniture(raw.items, texts, raw.n_pages)
    contents = contents_pages(raw.items, texts)
    # A contents page names every heading but holds none of them.
    outline = place_outline(
        text_layer.outline(),
        raw.items,
        texts,
        furniture | {i for i, item in enumerate(raw.items) if item["page_idx"] in contents},
    )
    continuations = {i for hit in outline.values() for i in hit.continued_by}
    headings = HeadingTracker()
    sections: list[_Section] = []  # open sections, aligned with the tracker's
    running_headers: dict[int, list[str]] = {}
    drafts: list[_Draft] = []
    open_draft: _Draft | None = None
    # Caption-less images met before any chunk is open wait for the next one.
    waiting_images: list[tuple[int, dict]] = []
    # A bare number MinerU gave as its own title ("3.1", "PART 3") waits for the title after it.
    number_prefix: tuple[int, str] | None = None
    last_heading_item: int | None = None  # the item that opened the current section, while bodiless

    def new_draft(kind: ChunkKind) -> _Draft:
        for section in sections:
            section.used = True
        return _Draft(kind, headings.current, headings.path)

    def close() -> None:
        nonlocal open_draft
        if open_draft is not None and open_draft.items:
            drafts.append(open_draft)
        open_draft = None

    def body() -> _Draft:
        nonlocal open_draft, last_heading_item
        last_heading_item = None
        if open_draft is None:
            open_draft = new_draft("text")
            for index, item in waiting_images:
                open_draft.add(index, item, ItemText(), _image_path(raw, item))
            waiting_images.clear()
        return open_draft

    def open_heading(line: str, items: list[int], *, outline_level: int | None = None) -> None:
        nonlocal last_heading_item
        close()
        heading = headings.make(line, outline_level=outline_level)
        # A section that closes without ever holding a chunk keeps one: its own heading line,
        # so no heading is lost from the artifact.
        while sections and sections[-1].heading.depth >= heading.depth:
            closing = sections.pop()
            if not closing.used:
                drafts.append(_heading_only(closing, [s.heading.line for s in sections]))
        headings.push(heading)
        sections.append(
            _Section(heading, items, sorted({raw.items[i]["page_idx"] for i in items}), raw.items[items[0]].get("bbox"))
        )
        last_heading_item = items[-1]

    def add_body(index: int, item: dict, text: ItemText) -> None:
        nonlocal open_draft
        if not text.text:
            return
        draft = body()
        if draft.texts and draft.chars + len(text.text) > MAX_CHUNK_CHARS:
            close()
            draft = body()
        draft.add(index, item, text, None)

    def part(text: ItemText, start: int, end: int | None = None) -> ItemText:
        """The item's text from `start` to `end`: a paragraph cut where a run-in heading sits."""
        return ItemText(text=text.text[start:end].strip(), latex=text.latex if start == 0 else [])

    def split_run_in(index: int, item: dict, text: ItemText) -> bool:
        """Headings MinerU merged into a paragraph: a line of the paragraph, set in a font of
        its own, that carries the document's next section number. The paragraph is cut at
        those lines (verbatim: the cuts fall between the item's own characters)."""
        # Reading the page's fonts costs time: only when a number the document expects next
        # stands at the start of a line-like run of the paragraph.
        if not item.get("bbox") or not any(
            headings.continues_numbering(f"{m.group('no')} Title") for m in _NUMBER_INSIDE.finditer(text.text)
        ):
            return False
        lines = text_layer.lines_in_box(item["page_idx"], item["bbox"])
        if len(lines) < 2:
            return False
        fonts = Counter(line.font for line in lines)
        position = 0
        for k, line in enumerate(lines):
            # Its font is its own: used by no other line, unlike the line after it (or before).
            neighbour = lines[k + 1] if k + 1 < len(lines) else lines[k - 1]
            if fonts[line.font] > 1 or line.font == neighbour.font or not headings.continues_numbering(line.text):
                continue
            where = _cut_at_line(text.text, line.text, position)
            if where is None:
                continue
            if text.text[position : where[0]].strip():
                add_body(index, item, part(text, position, where[0]))
            open_heading(text.text[where[0] : where[1]], [index])
            position = where[1]
        if position == 0:
            return False
        if text.text[position:].strip():
            add_body(index, item, part(text, position))
        return True

    for index in reading_order(raw.items):
        item, text = raw.items[index], texts[index]
        if index in continuations:
            continue
        kind = "text" if index in demoted else item["type"]
        if index in furniture:
            if kind == "header" and text.text:
                running_headers.setdefault(item["page_idx"], []).append(text.text)
            continue
        if kind == "text" and looks_like_page_number(text.text, item.get("bbox")):
            continue
        if item["page_idx"] in contents and index not in outline and kind in ("text", "index"):
            # The whole contents page as one text chunk, from the text layer.
            page_items = [
                i
                for i in range(index, len(raw.items))
                if raw.items[i]["page_idx"] == item["page_idx"]
                and i not in furniture
                and i not in outline
                and ("text" if i in demoted else raw.items[i]["type"]) in ("text", "index")
            ]
            # Its leader-line pictures (MinerU reads dotted rules as images) stay with it.
            pictures = [
                i
                for i in range(index, len(raw.items))
                if raw.items[i]["page_idx"] == item["page_idx"]
                and raw.items[i]["type"] == "image"
                and not texts[i].text
            ]
            close()
            draft = new_draft("text")
            for i in sorted(page_items + pictures):
                draft.add(i, raw.items[i], ItemText(), _image_path(raw, raw.items[i]) if i in pictures else None)
            draft.texts.append(contents_text(text_layer, [raw.items[i] for i in page_items]))
            drafts.append(draft)
            continuations.update(page_items + pictures)
            continue
        hit = outline.get(index)
        if hit is not None:
            if hit.cut is not None:
                open_heading(text.text[: hit.cut].strip(), [index], outline_level=hit.level)
                add_body(index, item, part(text, hit.cut))
            else:
                line = " ".join([text.text.strip(), *(texts[i].text.strip() for i in hit.continued_by)])
                open_heading(line, [index, *hit.continued_by], outline_level=hit.level)
            continue
        if kind == "text" and text.text.strip():
            line = text.text.strip()
            if number_prefix is not None:
                prefix_index, prefix = number_prefix
                number_prefix = None
                if item.get("text_level") and heading_rejection(line) is None:
                    open_heading(f"{prefix} {line}", [prefix_index, index])
                    continue
                add_body(prefix_index, raw.items[prefix_index], texts[prefix_index])
            if item.get("text_level") and any(squash(line) == squash(s.heading.line) for s in sections):
                continue  # the open section's title again (a running title at the top of a page)
            if item.get("text_level"):
                nxt = index + 1
                if (
                    _BARE_NUMBER.match(line)
                    and nxt < len(raw.items)
                    and raw.items[nxt].get("text_level")
                    and raw.items[nxt]["page_idx"] == item["page_idx"]
                ):
                    number_prefix = (index, line)
                    continue
                parsed = numbered(line)
                if (
                    heading_rejection(line) is None
                    and not headings.goes_backwards(line)
                    # "(a) Original image" under a figure: a label, unless it continues a run.
                    and (parsed is None or parsed[0] != "paren" or headings.continues_numbering(line))
                ):
                    current = sections[-1] if sections else None
                    if (
                        current is not None
                        and last_heading_item is not None
                        and not current.heading.from_outline
                        and parsed is None
                        and _adjacent(raw.items[last_heading_item], item)
                        and current.heading.line[-1] not in ".:;!?"
                    ):
                        # One heading MinerU cut into two title lines ("PART 3" / "SAFETY
                        # REQUIREMENTS", a wrapped title): one heading.
                        sections.pop()
                        headings.pop_current()
                        open_heading(f"{current.heading.line} {line}", [*current.items, index])
                        continue
                    open_heading(line, [index])
                    continue
            elif split_run_in(index, item, text):
                continue
            elif headings.continues_numbering(line) and not headings.goes_backwards(line):
                open_heading(line, [index])
                continue
        if (
            kind in ("image", "chart")
            and text.text.strip()
            and "\n" not in text.text.strip()
            and headings.continues_numbering(text.text.strip())
        ):
            # A section title set in a box or a picture ("2 | Scope" in a coloured band).
            open_heading(text.text.strip(), [index])
            continue
        if kind in _STANDALONE_KIND:
            if kind == "image" and not text.text:
                if open_draft is not None:
                    open_draft.add(index, item, text, _image_path(raw, item))
                else:
                    waiting_images.append((index, item))
                continue
            close()
            draft = new_draft(_STANDALONE_KIND[kind])
            if kind == "table":
                html = (raw.items_v2[index].get("content") or {}).get("html") or ""
                if has_cells(html):
                    draft.table_html = html
                else:
                    # No cells (a boxed theorem, code, a diagram with text): a text chunk with
                    # MinerU's text of the box, else the text layer's inside it.
                    draft.kind = "text"
                    if not html.strip():
                        text = ItemText(text="\n".join(p for p in (text.text, table_text(text_layer, item)) if p))
            draft.add(index, item, text, _image_path(raw, item))
            drafts.append(draft)
            continue
        if kind == "equation":
            text.text = formula_text(text_layer, item)
            draft = body()
            draft.has_formula = True
            draft.add(index, item, text, _image_path(raw, item))
            continue
        add_body(index, item, text)
    if number_prefix is not None:
        add_body(number_prefix[0], raw.items[number_prefix[0]], texts[number_prefix[0]])
    close()
    for depth, section in reversed(list(enumerate(sections))):
        if not section.used:
            drafts.append(_heading_only(section, [s.heading.line for s in sections[:depth]]))
    if waiting_images:
        # A document of nothing but caption-less images (a scanned PDF read as text): keep the
        # images traceable in one chunk rather than dropping them.
        draft = _Draft("image", headings.current, headings.path)
        for index, item in waiting_images:
            draft.add(index, item, ItemText(), _image_path(raw, item))
        drafts.append(draft)
    # Bodiless sections are closed (and their chunks made) after later drafts opened: reading order.
    drafts.sort(key=lambda d: min(d.items))
    return [_to_chunk(doc_id, seq, d, running_headers) for seq, d in enumerate(drafts)]


def _heading_only(section: _Section, parents: list[str]) -> _Draft:
    draft = _Draft("text", section.heading, [*parents, section.heading.line])
    draft.texts.append(section.heading.line)
    draft.items.extend(section.items)
    draft.pages.extend(section.pages)
    draft.bbox = section.bbox
    return draft


def _image_path(raw: RawOutput, item: dict) -> str | None:
    """The item's image, relative to the raw output dir, if the file is there."""
    path = item.get("img_path") or ""
    if not path or path.startswith("data:") or not (raw.path / path).is_file():
        return None
    return path


def _to_chunk(doc_id: str, seq: int, draft: _Draft, running_headers: dict[int, list[str]]) -> Chunk:
    pages = sorted(draft.pages)
    if draft.kind == "text" and not draft.texts and draft.images:
        draft.kind = "image"  # only pictures (a formula with no text layer, a bare figure)
    chapters: list[str] = []
    for page in pages:
        for header in running_headers.get(page, []):
            if header not in chapters:
                chapters.append(header)
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
