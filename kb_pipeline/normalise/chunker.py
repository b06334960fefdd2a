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

from ..contracts import Chunk, ChunkKind
from ..parsing.raw_output import RawOutput
from ..pdf_text import PdfTextLayer
from .drafts import Draft, to_chunk
from .heading_steps import HeadingSteps
from .headings import looks_like_page_number
from .item_steps import ItemSteps
from .item_text import ItemText, item_texts
from .reading_order import reading_order

_STANDALONE_KIND: dict[str, ChunkKind] = {"table": "table", "chart": "chart", "image": "image"}


def build_chunks(
    doc_id: str, raw: RawOutput, text_layer: PdfTextLayer, texts: list[ItemText] | None = None
) -> list[Chunk]:
    """The document's chunks. `texts` are `item_texts(raw)` when the caller has them already."""
    builder = ChunkBuilder(raw, text_layer, item_texts(raw) if texts is None else texts)
    for index in reading_order(raw.items, builder.demoted):
        builder.take(index)
    return [to_chunk(doc_id, seq, draft, builder.running_headers) for seq, draft in enumerate(builder.finish())]


class ChunkBuilder(HeadingSteps, ItemSteps):
    """A document's items, taken in reading order: `take` hands each to the step for its kind."""

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

    def finish(self) -> list[Draft]:
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
