"""Where a document's text stands on its pages: the PDF's text layer as segments with their type
size and box, and the boxes of the MinerU items each chunk was made from. Readers that need the
layout (a two-column list's rows, the first page's title lines) read it here; the values they
propose are still quoted from the chunks and span-checked.

Read from the parse's raw output (`ParsedDocument.raw_output_dir`: the PDF MinerU parsed and its
content list), else the source PDF; a document whose files are gone has no layout (None).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ...contracts import Chunk, ParsedDocument
from ...pdf_text import PDFIUM_LOCK, PdfTextLayer, TextSegment
from .document_scope import DocumentScoped

Box = tuple[float, float, float, float]


class DocumentLayout:
    def __init__(self, layer: PdfTextLayer, item_boxes: dict[int, tuple[int, Box]]):
        self._layer = layer
        self._item_boxes = item_boxes
        self._segments: dict[int, list[TextSegment]] = {}

    @property
    def n_pages(self) -> int:
        return len(self._layer)

    def segments(self, page_idx: int) -> list[TextSegment]:
        if page_idx not in self._segments:
            with PDFIUM_LOCK:
                self._segments[page_idx] = self._layer.segments(page_idx)
        return self._segments[page_idx]

    def chunk_segments(self, chunk: Chunk) -> list[TextSegment]:
        """The text layer's segments inside the boxes of the chunk's source items (its heading's
        item too, if that is one of them), top to bottom."""
        found: list[TextSegment] = []
        for index in chunk.source_items:
            if index not in self._item_boxes:
                continue
            page_idx, (x0, y0, x1, y1) = self._item_boxes[index]
            for segment in self.segments(page_idx):
                cx, cy = (segment.box[0] + segment.box[2]) / 2, (segment.box[1] + segment.box[3]) / 2
                if x0 - 2 <= cx <= x1 + 2 and y0 - 2 <= cy <= y1 + 2 and segment not in found:
                    found.append(segment)
        return found


def _item_boxes(raw: Path) -> dict[int, tuple[int, Box]]:
    try:
        items = json.loads((raw / "content_list.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {
        k: (item["page_idx"], tuple(item["bbox"]))
        for k, item in enumerate(items)
        if isinstance(item, dict) and isinstance(item.get("bbox"), list) and len(item["bbox"]) == 4
    }


@contextmanager
def _open_layout(document: ParsedDocument) -> Iterator[DocumentLayout | None]:
    raw = Path(document.raw_output_dir) if document.raw_output_dir else None
    candidates = [raw / "origin.pdf"] if raw else []
    candidates.append(Path(document.source_path))
    pdf = next((p for p in candidates if p.is_file()), None)
    if pdf is None:
        yield None
        return
    with PDFIUM_LOCK:
        try:
            layer = PdfTextLayer(pdf)
        except Exception:  # an unreadable PDF: no layout, the readers fall back to the text
            layer = None
    if layer is None:
        yield None
        return
    try:
        yield DocumentLayout(layer, _item_boxes(raw) if raw else {})
    finally:
        with PDFIUM_LOCK:
            layer.close()


# Opened once however deeply nested: the extraction opens the PDF once for all its readers.
document_layout = DocumentScoped("document_layout", _open_layout)
