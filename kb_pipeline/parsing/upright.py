"""Pages whose text runs sideways as the page is displayed, turned upright for MinerU.

A wide table is often printed rotated on a portrait page (no `/Rotate`: the reader turns the
paper), or set on a landscape page whose content is drawn rotated and shown upright by
`/Rotate 90`, or a page was given a `/Rotate` that shows its text sideways. MinerU's flash tier
reads the text of such a page, but: in its displayed frame (unruled cells on a sideways page
come out one paragraph each, a row read from its last column to its first), and with the words
of rotated text split ("201 9 actual", "3, 1 37" in a table's cells). Drawn upright, the same
page is read as any other page. So in the copy MinerU parses such a page's content is drawn
turned upright, on a page of the turned size with no `/Rotate`: the same characters, in the
same order (the text layer is unchanged), only their placement on the page turns.

A page's text direction is the one most of its characters run in (pdfium's character angle);
a page with a few sideways characters (a rotated margin stamp, a vertical axis label) keeps its
rotation.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from pathlib import Path

from ..pdf_text import PDFIUM_LOCK

_log = logging.getLogger(__name__)

# Characters sampled per page: the direction of most of them is the page's.
_SAMPLE = 200
# A page's text runs in a direction when this share of its sampled characters does.
_SIDEWAYS_SHARE = 0.6
# ... and it has at least this many characters (a page of a few labels is left as it is).
_MIN_CHARS = 40


def _text_direction(page) -> int | None:
    """The `/Rotate` (0, 90, 180, 270) that shows most of the page's characters upright, or None
    when no direction holds most of them."""
    import pypdfium2.raw as pdfium_c

    textpage = page.get_textpage()
    try:
        n = textpage.count_chars()
        directions: Counter[int] = Counter()
        for i in range(0, n, max(1, n // _SAMPLE)):
            if chr(pdfium_c.FPDFText_GetUnicode(textpage.raw, i)).isspace():
                continue
            angle = pdfium_c.FPDFText_GetCharAngle(textpage.raw, i)  # radians, clockwise in user space
            if angle >= 0:
                directions[(360 - round(math.degrees(angle) / 90) * 90) % 360] += 1
    finally:
        textpage.close()
    total = sum(directions.values())
    if total < _MIN_CHARS:
        return None
    direction, count = directions.most_common(1)[0]
    return direction if count >= _SIDEWAYS_SHARE * total else None


def upright_copy(source: Path, out: Path) -> dict[int, int]:
    """{page: the clockwise turn that shows it upright} for the pages of `source` whose text is
    not drawn upright with no `/Rotate`; when there are any, `out` is written: `source` with
    those pages' content so turned, on pages with no `/Rotate`. A file pypdf cannot rewrite
    gets no copy: {}, and a warning."""
    import pypdf
    import pypdfium2

    turns: dict[int, int] = {}
    with PDFIUM_LOCK:  # pdfium is not thread-safe (see pdf_text)
        document = pypdfium2.PdfDocument(str(source))
        try:
            for index in range(len(document)):
                page = document[index]
                try:
                    direction = _text_direction(page)
                    if direction is not None and (direction or page.get_rotation()):
                        turns[index] = direction
                finally:
                    page.close()
        finally:
            document.close()
    if not turns:
        return turns
    try:
        writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(str(source)))
        for index, direction in turns.items():
            _turn(writer.pages[index], direction)
        with out.open("wb") as f:
            writer.write(f)
    # pypdf cannot rewrite every file pdfium reads (encrypted, malformed): turning is an
    # improvement, so such a file is parsed as it is rather than not at all.
    except Exception as error:
        _log.warning(
            "%s: pages %s not turned upright, pypdf cannot rewrite the file: %s", source.name, sorted(turns), error
        )
        out.unlink(missing_ok=True)
        return {}
    return turns


def _turn(page, rotation: int) -> None:
    """Draw `page` as it looks turned clockwise by `rotation`, in a page of its own with no
    `/Rotate`. The matrix is exact (0 and ±1, not a sine's rounding), so the page's rotated
    text ends up at exactly 0°: MinerU splits the words of text drawn at any other angle
    ("201 9 actual", "3, 1 37")."""
    from pypdf import Transformation
    from pypdf.generic import NameObject, NumberObject, RectangleObject

    left, bottom, right, top = (float(v) for v in page.mediabox)
    matrix = {
        0: (1, 0, 0, 1, 0, 0),
        90: (0, -1, 1, 0, -bottom, right),
        180: (-1, 0, 0, -1, right, top),
        270: (0, 1, -1, 0, top, -left),
    }[rotation]
    turn = Transformation(matrix)
    page.add_transformation(turn, expand=False)
    # The media and crop boxes as they apply (inherited from the page tree or defaulted), the
    # others where the page has them: all turned, and set on the page itself.
    boxes = {"/MediaBox": page.mediabox, "/CropBox": page.cropbox}
    boxes |= {name: RectangleObject(page[name]) for name in ("/BleedBox", "/TrimBox", "/ArtBox") if name in page}
    for name, box in boxes.items():
        (x0, y0), (x1, y1) = turn.apply_on(box.lower_left), turn.apply_on(box.upper_right)
        page[NameObject(name)] = RectangleObject((min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)))
    page[NameObject("/Rotate")] = NumberObject(0)
