"""The chunks being made: a draft per chunk (its items, text, pages, heading), a section per open
heading, and the builder's state and steps every kind of item shares — opening a body chunk,
adding to it within the size limit, a chunk of its own, opening and closing a section (one with
no body keeps a chunk of its heading line). What each kind of item makes is heading_steps.py's
and item_steps.py's; chunker.py takes the items in order."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..contracts import Chunk, ChunkKind, make_chunk_id
from ..parsing.raw_output import RawOutput
from ..pdf_text import PdfTextLayer
from .contents import contents_pages
from .furniture import running_furniture, running_key, running_words
from .headings import Heading, HeadingTracker, numbers_set_apart
from .item_text import ItemText
from .outline import place_outline

MAX_CHUNK_CHARS = 6000
ITEM_SEPARATOR = "\n\n"


@dataclass
class Draft:
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


@dataclass
class Section:
    heading: Heading
    items: list[int]
    pages: list[int]
    bbox: list[int] | None
    pieces: list[str]  # its items' text, each verbatim: the chunk of a section with no body
    used: bool = False


class DraftBuilder:
    """A document's chunks in the making, and the steps every kind of item shares."""

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
        self.sections: list[Section] = []  # open sections, aligned with the tracker's
        self.running_headers: dict[int, list[str]] = {}
        self.drafts: list[Draft] = []
        self.open_draft: Draft | None = None  # the body text chunk being filled
        # Caption-less images met before any section is open wait for the first chunk.
        self.waiting_images: list[int] = []
        # A bare number MinerU gave as its own title ("3.1", "PART 3") waits for the title after it.
        self.number_prefix: tuple[int, str] | None = None
        self.last_heading_item: int | None = None  # the item that opened the current section, while bodiless

    def _kind(self, index: int) -> str:
        return "text" if index in self.demoted else self.raw.items[index]["type"]

    def _new_draft(self, kind: ChunkKind) -> Draft:
        # Every open section now holds a chunk, so none needs a heading-only one.
        for section in self.sections:
            section.used = True
        return Draft(kind, self.headings.current, self.headings.path)

    def _close(self) -> None:
        if self.open_draft is not None and self.open_draft.items:
            self.drafts.append(self.open_draft)
        self.open_draft = None

    def _body(self) -> Draft:
        self.last_heading_item = None
        if self.open_draft is None:
            self.open_draft = self._new_draft("text")
            self._attach_waiting_images(self.open_draft)
        return self.open_draft

    def _attach_waiting_images(self, draft: Draft) -> None:
        for index in self.waiting_images:
            item = self.raw.items[index]
            draft.add(index, item, ItemText(), image_path(self.raw, item))
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
        draft.add(index, item, text, image_path(self.raw, item))
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
        self.sections.append(Section(heading, items, pages, bbox, [line] if pieces is None else pieces))
        self.last_heading_item = items[-1]

    def _close_section(self) -> None:
        # A section that never held a chunk keeps one, of its heading's items: no heading is lost.
        last = self.sections.pop()
        if not last.used:
            path = [*(s.heading.line for s in self.sections), last.heading.line]
            self.drafts.append(Draft("text", last.heading, path, last.pieces, last.items, last.pages, bbox=last.bbox))

    # Steps, one per kind of item.


def part_of(text: ItemText, start: int, end: int | None = None) -> ItemText:
    return ItemText(text=text.text[start:end].strip(), latex=text.latex if start == 0 else [])


def image_path(raw: RawOutput, item: dict) -> str | None:
    """The item's image, relative to the raw output dir, if the file is there."""
    path = item.get("img_path") or ""
    return path if path and not path.startswith("data:") and (raw.path / path).is_file() else None


def to_chunk(doc_id: str, seq: int, draft: Draft, running_headers: dict[int, list[str]]) -> Chunk:
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
