"""The source PDF's own text layer: the ground truth formulas and numbers are checked against.

The flash tier gives equations as images only, so a formula's characters for `Chunk.text` are
read here, inside the equation's box — they are the document's own words. The quality checks
read whole pages here to catch a parser that invents digits (`5600` → `55600`).
"""

from __future__ import annotations

import ctypes
import math
import threading
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

# pdfium is not thread-safe, and pypdfium2 does not lock: two threads in it at once crash the
# process. Every use of it in this process holds this lock (`kb-pipeline run` normalises in
# threads while warm workers parse in other processes).
PDFIUM_LOCK = threading.RLock()

# MinerU boxes are integers truncated from 3-decimal floats; a glyph on the edge would be cut.
_BOX_MARGIN_PT = 1.5


@dataclass(frozen=True)
class OutlineEntry:
    """One bookmark of the PDF's outline: the author's own table of contents."""

    title: str
    level: int  # 1 = top level
    page_idx: int
    top: int | None  # where on the page it points, 0–1000 from the top like MinerU's boxes


@dataclass(frozen=True)
class TextLine:
    """One line of the text layer inside a box, with the font most of its characters use."""

    text: str
    font: str
    # Most of its characters run across the page as displayed (a table drawn turned on a page
    # whose other text is upright).
    sideways: bool = False
    # The line cut at gaps wider than its type size (the gutters between a table's columns).
    cells: tuple[str, ...] = ()


@dataclass(frozen=True)
class TextSegment:
    """A run of one line of the text layer, split off at a wide gap (a column gutter): its text,
    its type size (the height of its characters' font boxes, in points), its box in MinerU's
    0–1000 page coordinates, as displayed, and the font weight most of its characters have
    (declared, else `_named_weight`; None when none of them has a font)."""

    text: str
    size: float
    box: tuple[float, float, float, float]
    weight: int | None


class PdfTextLayer:
    """Read-only access to one PDF's text layer. Each page and its text page are loaded once and
    kept until `close()`: a page full of formulas is read box by box, and reloading the page for
    every box was half of the normaliser's time."""

    def __init__(self, pdf: Path):
        import pypdfium2

        self._document = pypdfium2.PdfDocument(str(pdf))
        self._pages: dict[int, tuple] = {}
        self.page_text = lru_cache(maxsize=None)(self._page_text)
        self._chars = lru_cache(maxsize=None)(self._page_chars)

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

    def outline(self) -> list[OutlineEntry]:
        """The PDF's bookmarks that point at a page of this document, in outline order."""
        entries = []
        for bookmark in self._document.get_toc():
            dest = bookmark.get_dest()
            page_idx = dest.get_index() if dest is not None else None
            title = (bookmark.get_title() or "").strip()
            if page_idx is None or not title or not 0 <= page_idx < len(self._document):
                continue
            top = None
            _mode, view = dest.get_view()
            if len(view) >= 2 and view[1]:
                height = self._page(page_idx)[0].get_size()[1]
                top = round((height - view[1]) / height * 1000)
            entries.append(OutlineEntry(title, bookmark.level + 1, page_idx, top))
        return entries

    def _page_chars(self, page_idx: int) -> list[tuple[str, str, tuple[float, float, float, float], bool]]:
        """(character, font name, box, sideways) for every character of a page, line breaks
        included; sideways: it does not stand upright as the page is displayed."""
        import pypdfium2.raw as pdfium_c

        page, textpage = self._page(page_idx)
        rotation = page.get_rotation() % 360
        buffer = ctypes.create_string_buffer(128)
        flags = ctypes.c_int()
        chars = []
        for i in range(textpage.count_chars()):
            code = pdfium_c.FPDFText_GetUnicode(textpage.raw, i)
            pdfium_c.FPDFText_GetFontInfo(textpage.raw, i, buffer, len(buffer), ctypes.byref(flags))
            angle = pdfium_c.FPDFText_GetCharAngle(textpage.raw, i)  # radians, clockwise in user space
            # The /Rotate that would show the character upright, against the page's own.
            upright_at = (360 - round(math.degrees(angle) / 90) * 90) % 360 if angle >= 0 else rotation
            chars.append((chr(code), buffer.value.decode("latin-1"), textpage.get_charbox(i), upright_at != rotation))
        return chars

    def lines_in_box(self, page_idx: int, bbox: list[int]) -> list[TextLine]:
        """The text layer's lines inside a MinerU bbox, each with its dominant font."""
        left, bottom, right, top = self._page_space(page_idx, bbox)
        lines: list[TextLine] = []
        current: list[tuple[str, str, bool, tuple[float, float, float, float]]] = []

        def flush() -> None:
            text = "".join(c[0] for c in current).strip()
            if text:
                inked = [c for c in current if not c[0].isspace()]
                fonts = Counter(c[1] for c in inked)
                sideways = 2 * sum(c[2] for c in inked) > len(inked)
                cells = _cells(current)
                lines.append(TextLine(text, fonts.most_common(1)[0][0] if fonts else "", sideways, cells))
            current.clear()

        for char, font, box, sideways in self._chars(page_idx):
            if char in "\r\n":
                flush()
                continue
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            if left <= cx <= right and bottom <= cy <= top:
                current.append((char, font, sideways, box))
        flush()
        return lines

    def segments(self, page_idx: int) -> list[TextSegment]:
        """The page's text as segments, in the text layer's order."""
        import pypdfium2
        import pypdfium2.raw as pdfium_c

        page, textpage = self._page(page_idx)
        width, height = page.get_size()
        rotation = page.get_rotation()
        segments: list[TextSegment] = []
        run: list[tuple[str, tuple[float, float, float, float], int]] = []
        last_inked: tuple[float, float, float, float] | None = None  # the run's last inked box

        def flush() -> None:
            nonlocal last_inked
            inked = [box for char, box, _ in run if not char.isspace()]
            text = _utf16_pairs_joined("".join(char for char, _, _ in run)).strip()
            if text and inked:
                size = Counter(round(y1 - y0, 1) for _, y0, _, y1 in inked).most_common(1)[0][0]
                x0, y0 = min(b[0] for b in inked), min(b[1] for b in inked)
                x1, y1 = max(b[2] for b in inked), max(b[3] for b in inked)
                box = (x0 / width * 1000, y0 / height * 1000, x1 / width * 1000, y1 / height * 1000)
                weights = Counter(w for char, _, w in run if not char.isspace() and w > 0)
                weight = weights.most_common(1)[0][0] if weights else None
                segments.append(TextSegment(text, size, box, weight))
            run.clear()
            last_inked = None

        # pdfium's own calls, one rectangle reused: every page of a document is read here, and a
        # wrapper object per character would cost more than the reading.
        raw, rect, font = textpage.raw, pdfium_c.FS_RECTF(), ctypes.create_string_buffer(128)
        for i in range(textpage.count_chars()):
            char = chr(pdfium_c.FPDFText_GetUnicode(raw, i))
            if char in "\r\n":
                flush()
                continue
            if not pdfium_c.FPDFText_GetLooseCharBox(raw, i, rect):
                raise pypdfium2.PdfiumError(f"no box for character {i} of page {page_idx}")
            box = _displayed((rect.left, rect.bottom, rect.right, rect.top), rotation, width, height)
            inked = not char.isspace()
            # A gap wider than the type size is a gutter between columns, not a word space; so is
            # a jump back left past the line (the text layer going on in the column beside it).
            if last_inked is not None and inked:
                size = last_inked[3] - last_inked[1]
                if box[0] - last_inked[2] > size or last_inked[0] - box[2] > size:
                    flush()
            weight = pdfium_c.FPDFText_GetFontWeight(raw, i) if inked else 0
            if inked and weight <= 0:
                weight = _named_weight(raw, i, font)
            run.append((char, box, weight))
            if inked:
                last_inked = box
        flush()
        return segments

    def _page_space(self, page_idx: int, bbox: list[int]) -> tuple[float, float, float, float]:
        """A MinerU bbox (0–1000 of the page as displayed, origin top left) as (left, bottom,
        right, top) in the page's own unrotated space, where the text layer's characters are,
        with a margin for MinerU's truncated coordinates."""
        page = self._page(page_idx)[0]
        width, height = page.get_size()  # as displayed, i.e. after /Rotate
        x0, x1 = bbox[0] / 1000 * width, bbox[2] / 1000 * width
        y0, y1 = bbox[1] / 1000 * height, bbox[3] / 1000 * height
        rotation = page.get_rotation()
        if rotation == 90:
            box = (y0, x0, y1, x1)
        elif rotation == 180:
            box = (width - x1, y0, width - x0, y1)
        elif rotation == 270:
            box = (height - y1, width - x1, height - y0, width - x0)
        else:
            box = (x0, height - y1, x1, height - y0)
        m = _BOX_MARGIN_PT
        return box[0] - m, box[1] - m, box[2] + m, box[3] + m

    def text_in_box(self, page_idx: int, bbox: list[int]) -> str:
        """Text inside a MinerU bbox (0–1000 of page width/height, origin top left)."""
        left, bottom, right, top = self._page_space(page_idx, bbox)
        return self._page(page_idx)[1].get_text_bounded(left=left, bottom=bottom, right=right, top=top)


def _cells(chars: list[tuple[str, str, bool, tuple[float, float, float, float]]]) -> tuple[str, ...]:
    """A line's text cut where the gap between two inked characters, along the line (whichever
    way it runs on the page), is wider than the line's type size: the line's cells, verbatim."""
    inked = [box for char, _f, _s, box in chars if not char.isspace()]
    if len(inked) < 2:
        return ()
    along_x = max(b[2] for b in inked) - min(b[0] for b in inked) >= max(b[3] for b in inked) - min(b[1] for b in inked)
    size = max((b[3] - b[1]) if along_x else (b[2] - b[0]) for b in inked)
    cells, cell, previous = [], "", None
    for char, _font, _sideways, box in chars:
        if not char.isspace():
            if previous is not None:
                gap = (
                    max(box[0] - previous[2], previous[0] - box[2])
                    if along_x
                    else max(box[1] - previous[3], previous[1] - box[3])
                )
                if gap > size and cell.strip():
                    cells.append(cell.strip())
                    cell = ""
            previous = box
        cell += char
    if cell.strip():
        cells.append(cell.strip())
    return tuple(cells)


def _named_weight(textpage, index: int, font: ctypes.Array[ctypes.c_char]) -> int:
    """The weight of a character whose font declares none (pdfium reads a weight from a font's
    stem width; a standard font such as Helvetica-Bold has none), as its name says: 700 for a
    bold one, 400 for another; -1 without a font."""
    import pypdfium2.raw as pdfium_c

    length = pdfium_c.FPDFText_GetFontInfo(textpage, index, font, len(font), None)
    if not length:
        return -1
    # pdfium writes a name only when the buffer holds it whole.
    return 700 if length <= len(font) and b"bold" in font.value.lower() else 400


def _utf16_pairs_joined(text: str) -> str:
    """pdfium gives a character beyond the Basic Multilingual Plane as its two UTF-16 halves, one
    character each: joined back into one (a half alone, invalid in any encoding, as U+FFFD)."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def _displayed(
    box: tuple[float, float, float, float], rotation: int, width: float, height: float
) -> tuple[float, float, float, float]:
    """A character box (left, bottom, right, top) of the page's own space as (x0, y0, x1, y1)
    of the page as displayed, origin top left: `_page_space` the other way round."""
    left, bottom, right, top = box
    if rotation == 90:
        return bottom, left, top, right
    if rotation == 180:
        return width - right, bottom, width - left, top
    if rotation == 270:
        return width - top, height - right, width - bottom, height - left
    return left, height - top, right, height - bottom
