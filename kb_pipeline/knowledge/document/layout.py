"""Where a document's text stands on its pages: the text layer's lines with their type size and
box, and the boxes of the MinerU items each chunk was made from. Readers that need the layout
(a two-column list's rows, the first page's title) read it here; the values they propose are
still quoted from the chunks and span-checked.

Read from the layout artifact the parse wrote beside the document (`layout_contract`), which
`extract_document` is given; a document without one has no layout (None), and its readers read
the chunks' text alone.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ...contracts import Chunk, ParsedDocument
from ...layout_contract import LayoutLine, ParsedLayout
from .document_scope import DocumentScoped


class DocumentLayout:
    def __init__(self, layout: ParsedLayout):
        self._lines = {page.page_idx: page.lines for page in layout.pages}
        self._item_boxes = {
            item.item: (page.page_idx, item.box) for page in layout.pages for item in page.items if item.box
        }

    @property
    def n_pages(self) -> int:
        return len(self._lines)

    def segments(self, page_idx: int) -> list[LayoutLine]:
        return self._lines.get(page_idx, [])

    def chunk_segments(self, chunk: Chunk) -> list[LayoutLine]:
        """The text layer's lines inside the boxes of the chunk's source items (its heading's
        item too, if that is one of them), top to bottom."""
        found: list[LayoutLine] = []
        for index in chunk.source_items:
            if index not in self._item_boxes:
                continue
            page_idx, (x0, y0, x1, y1) = self._item_boxes[index]
            for segment in self.segments(page_idx):
                cx, cy = (segment.box[0] + segment.box[2]) / 2, (segment.box[1] + segment.box[3]) / 2
                if x0 - 2 <= cx <= x1 + 2 and y0 - 2 <= cy <= y1 + 2 and segment not in found:
                    found.append(segment)
        return found


@contextmanager
def _no_layout(_document: ParsedDocument) -> Iterator[DocumentLayout | None]:
    yield None


# What the readers of the layout do without it, for `usage.json` to say.
WITHOUT_LAYOUT = (
    "glossary: an abbreviation list laid out in two columns was read from its chunks' text alone, so rows "
    "the parser merged into one item were not told apart",
    "brief: the title is the parse's source_title where the first page's chunks hold it, not the lines the "
    "first page sets in its largest type",
)

# Given once by the extraction for all its readers (`DocumentScoped.given`); a reader run on its
# own, outside an extraction, reads without one.
document_layout = DocumentScoped("document_layout", _no_layout)
