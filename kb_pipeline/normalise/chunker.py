"""MinerU content list → `Chunk[]`, following the contract's boundary rules.

What opens a new chunk, in priority order:
1. a section heading — a title item, or a short text item that continues the document's own
   numbering (flash misses some titles) — the primary boundary;
2. a table, a chart, or a figure with a caption — one item, one chunk;
3. the 6,000-character safety net — only at an item boundary, so `text` stays verbatim.
A page break never does.

Where things go:
- `text` is the items' verbatim text joined by blank lines; the heading line goes in `heading`.
- Page headers become `chapters`; footers, page numbers and margin text go nowhere near `text`.
- A formula stays in the text chunk that introduces and explains it (`has_formula`). The flash
  tier gives no LaTeX, so its characters come from the PDF's text layer inside its box: the
  document's own words. Markup MinerU did give goes, untouched, in `latex`.
- A figure with no caption and no text has nothing to say on its own: its image joins the
  current chunk (`images`), and the quality checks flag it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..contracts import Chunk, ChunkKind, make_chunk_id
from ..parsing.raw_output import RawOutput
from ..pdf_text import PdfTextLayer
from .headings import Heading, HeadingTracker, looks_like_page_number
from .item_text import ItemText, item_text

MAX_CHUNK_CHARS = 6000
ITEM_SEPARATOR = "\n\n"
_FURNITURE = {"header", "footer", "page_number", "aside_text"}
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


def build_chunks(doc_id: str, raw: RawOutput, text_layer: PdfTextLayer) -> list[Chunk]:
    headings = HeadingTracker()
    running_headers: dict[int, list[str]] = {}
    drafts: list[_Draft] = []
    open_draft: _Draft | None = None
    # Caption-less images met before any chunk is open wait for the next one.
    waiting_images: list[tuple[int, dict]] = []

    def new_draft(kind: ChunkKind) -> _Draft:
        current = headings.current
        return _Draft(kind, current, headings.path)

    def close() -> None:
        nonlocal open_draft
        if open_draft is not None and open_draft.items:
            drafts.append(open_draft)
        open_draft = None

    def body() -> _Draft:
        nonlocal open_draft
        if open_draft is None:
            open_draft = new_draft("text")
            for index, item in waiting_images:
                open_draft.add(index, item, ItemText(), _image_path(raw, item))
            waiting_images.clear()
        return open_draft

    for index, (item, v2) in enumerate(zip(raw.items, raw.items_v2)):
        kind = item["type"]
        text = item_text(v2, figure_content_is_generated=raw.figure_content_is_generated)
        if kind in _FURNITURE:
            if kind == "header" and text.text:
                running_headers.setdefault(item["page_idx"], []).append(text.text)
            continue
        if kind == "text" and looks_like_page_number(text.text, item.get("bbox")):
            continue
        if kind == "text" and text.text.strip() and (
                item.get("text_level") or headings.continues_numbering(text.text)):
            close()
            headings.enter(text.text)
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
            draft.add(index, item, text, _image_path(raw, item))
            if kind == "table":
                draft.table_html = (v2.get("content") or {}).get("html") or None
            drafts.append(draft)
            continue
        if kind == "equation":
            text.text = formula_text(text_layer, item)
            draft = body()
            draft.has_formula = True
            draft.add(index, item, text, _image_path(raw, item))
            continue
        if not text.text:
            continue
        draft = body()
        if draft.texts and draft.chars + len(text.text) > MAX_CHUNK_CHARS:
            close()
            draft = body()
        draft.add(index, item, text, None)
    close()
    if waiting_images:
        # A document of nothing but caption-less images (a scanned PDF read as text): keep the
        # images traceable in one chunk rather than dropping them.
        draft = new_draft("image")
        for index, item in waiting_images:
            draft.add(index, item, ItemText(), _image_path(raw, item))
        drafts.append(draft)
    return [_to_chunk(doc_id, seq, d, running_headers) for seq, d in enumerate(drafts)]


def _image_path(raw: RawOutput, item: dict) -> str | None:
    """The item's image, relative to the raw output dir, if the file is there."""
    path = item.get("img_path") or ""
    if not path or path.startswith("data:") or not (raw.path / path).is_file():
        return None
    return path


def _to_chunk(doc_id: str, seq: int, draft: _Draft, running_headers: dict[int, list[str]]) -> Chunk:
    pages = sorted(draft.pages)
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
