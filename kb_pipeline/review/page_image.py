"""A source page as a PNG with a quoted span highlighted: the reviewer checks the quote against
the page itself. The page is rendered from the exact PDF MinerU parsed (the parse cache's copy,
`ParsedDocument.raw_output_dir`), and the span is found in that page's own text layer."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from ..knowledge.document.text import squash
from ..pdf_text import PDFIUM_LOCK

SCALE = 1.5  # 108 dpi: body text legible on a laptop screen, a page ~100 KB
_HIGHLIGHT = (255, 214, 0, 110)
_OUTLINE = (214, 120, 0, 255)
# A span whose whole text is not on the page (a quote across a page break, a ligature the text
# layer spells differently) is highlighted by its longest leading part found, down to this many
# squashed characters; shorter matches would light up unrelated words.
_MIN_MATCH = 12

Box = tuple[float, float, float, float]  # left, top, right, bottom in image pixels


@dataclass(frozen=True)
class PageImage:
    png: bytes
    highlights: list[Box]  # empty when the span was not found on the page
    whole_span: bool  # False: only the span's beginning was found (or nothing)


def _char_positions(textpage) -> tuple[str, list[int]]:
    """The page's text squashed as `squash` does, and each squashed character's char index."""
    import pypdfium2.raw as pdfium_c

    text, index = [], []
    for i in range(textpage.count_chars()):
        for ch in squash(chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i))):
            text.append(ch)
            index.append(i)
    return "".join(text), index


def _match(page_text: str, span: str) -> tuple[int, int] | None:
    """Squashed offsets [start, end) of the span, or of its longest findable beginning."""
    wanted = squash(span)
    length = len(wanted)
    while length >= min(_MIN_MATCH, len(wanted)) and length > 0:
        at = page_text.find(wanted[:length])
        if at >= 0:
            return at, at + length
        length = length * 3 // 4 if length > 40 else length - 4
    return None


def _line_boxes(boxes: list[Box]) -> list[Box]:
    """Character boxes merged into one box per line (a new line where the next character's
    vertical centre leaves the current box)."""
    merged: list[list[float]] = []
    for left, top, right, bottom in boxes:
        centre = (top + bottom) / 2
        if merged and merged[-1][1] <= centre <= merged[-1][3]:
            line = merged[-1]
            line[0], line[1], line[2], line[3] = (
                min(line[0], left),
                min(line[1], top),
                max(line[2], right),
                max(line[3], bottom),
            )
        else:
            merged.append([left, top, right, bottom])
    return [(a, b, c, d) for a, b, c, d in merged]


def render_page(pdf: Path, page_index: int, span: str | None) -> PageImage:
    """Page `page_index` (0-based) of `pdf` as PNG, `span` highlighted where found. Raises
    IndexError for a page the PDF does not have."""
    import pypdfium2
    from PIL import Image, ImageDraw

    with PDFIUM_LOCK:
        document = pypdfium2.PdfDocument(str(pdf))
        try:
            if not 0 <= page_index < len(document):
                raise IndexError(f"{pdf.name} has {len(document)} pages, not a page {page_index + 1}")
            page = document[page_index]
            height = page.get_height()
            image = page.render(scale=SCALE).to_pil().convert("RGBA")
            boxes: list[Box] = []
            whole = False
            if span:
                textpage = page.get_textpage()
                page_text, index = _char_positions(textpage)
                found = _match(page_text, span)
                if found:
                    whole = found[1] - found[0] == len(squash(span))
                    for i in sorted({index[k] for k in range(*found)}):
                        left, bottom, right, top = textpage.get_charbox(i)
                        boxes.append((left * SCALE, (height - top) * SCALE, right * SCALE, (height - bottom) * SCALE))
                textpage.close()
            page.close()
        finally:
            document.close()
    highlights = _line_boxes(boxes)
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    for left, top, right, bottom in highlights:
        draw.rectangle((left - 2, top - 2, right + 2, bottom + 2), fill=_HIGHLIGHT, outline=_OUTLINE, width=2)
    out = io.BytesIO()
    Image.alpha_composite(image, overlay).convert("RGB").save(out, format="PNG", optimize=False)
    return PageImage(out.getvalue(), highlights, whole and bool(highlights))
