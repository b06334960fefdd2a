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
    """Read-only access to one PDF's text layer. Each page and its text page are loaded once and
    kept until `close()`: a page full of formulas is read box by box, and reloading the page for
    every box was half of the normaliser's time."""

    def __init__(self, pdf: Path):
        import pypdfium2

        self._document = pypdfium2.PdfDocument(str(pdf))
        self._pages: dict[int, tuple] = {}
        self.page_text = lru_cache(maxsize=None)(self._page_text)

    def close(self) -> None:
        for page, textpage in self._pages.values():
            textpage.close()
            page.close()
        self._pages.clear()
        self._document.close()

    def __enter__(self) -> PdfTextLayer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __len__(self) -> int:
        return len(self._document)

    def _page(self, page_idx: int) -> tuple:
        if page_idx not in self._pages:
            page = self._document[page_idx]
            self._pages[page_idx] = (page, page.get_textpage())
        return self._pages[page_idx]

    def _page_text(self, page_idx: int) -> str:
        return self._page(page_idx)[1].get_text_range()

    def text_in_box(self, page_idx: int, bbox: list[int]) -> str:
        """Text inside a MinerU bbox (0–1000 of page width/height, origin top left)."""
        page, textpage = self._page(page_idx)
        width, height = page.get_size()
        x0, y0, x1, y1 = bbox
        return textpage.get_text_bounded(
            left=x0 / 1000 * width - _BOX_MARGIN_PT,
            bottom=height - y1 / 1000 * height - _BOX_MARGIN_PT,
            right=x1 / 1000 * width + _BOX_MARGIN_PT,
            top=height - y0 / 1000 * height + _BOX_MARGIN_PT,
        )
