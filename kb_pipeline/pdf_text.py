"""The source PDF's own text layer: the ground truth formulas and numbers are checked against.

The flash tier gives equations as images only, so a formula's characters for `Chunk.text` are
read here, inside the equation's box — they are the document's own words. The quality checks
read whole pages here to catch a parser that invents digits (`5600` → `55600`).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

# MinerU boxes are integers truncated from 3-decimal floats; a glyph on the edge would be cut.
_BOX_MARGIN_PT = 1.5


class PdfTextLayer:
    """Read-only access to one PDF's text layer, page texts cached."""

    def __init__(self, pdf: Path):
        import pypdfium2

        self._document = pypdfium2.PdfDocument(str(pdf))
        self.page_text = lru_cache(maxsize=None)(self._page_text)

    def close(self) -> None:
        self._document.close()

    def __enter__(self) -> PdfTextLayer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __len__(self) -> int:
        return len(self._document)

    def _page_text(self, page_idx: int) -> str:
        page = self._document[page_idx]
        textpage = page.get_textpage()
        try:
            return textpage.get_text_range()
        finally:
            textpage.close()
            page.close()

    def text_in_box(self, page_idx: int, bbox: list[int]) -> str:
        """Text inside a MinerU bbox (0–1000 of page width/height, origin top left)."""
        page = self._document[page_idx]
        textpage = page.get_textpage()
        try:
            width, height = page.get_size()
            x0, y0, x1, y1 = bbox
            return textpage.get_text_bounded(
                left=x0 / 1000 * width - _BOX_MARGIN_PT,
                bottom=height - y1 / 1000 * height - _BOX_MARGIN_PT,
                right=x1 / 1000 * width + _BOX_MARGIN_PT,
                top=height - y0 / 1000 * height + _BOX_MARGIN_PT,
            )
        finally:
            textpage.close()
            page.close()
