"""Items MinerU read across the gutter of a two-column page, interleaving the columns line by
line (left, right, left, …). Found by reading the item's box in two halves from the PDF's text
layer and placing each half's lines in the item's own text: their order alternates, and no text
crosses the gutter (a full-width paragraph read in halves alternates too). The text is kept
verbatim (it is what MinerU read); the warning says where.
"""

from __future__ import annotations

from ..normalise.outline import squash
from ..parsing.raw_output import RawOutput
from ..pdf_text import PdfTextLayer

_NARROW = 480  # 0–1000 of the page width: a column's block is at most this wide
_MIDDLE = 500
_MIN_KEY = 8  # characters a line needs to be placed with confidence
_MIN_LINES_PER_COLUMN = 2
_MIN_SWITCHES = 3
_GUTTER = 15  # half-width of the strip between the columns, 0–1000 of the page width
_GUTTER_MAX_CHARS = 3


def _two_column_pages(raw: RawOutput) -> set[int]:
    sides: dict[int, set[str]] = {}
    for item in raw.items:
        box = item.get("bbox")
        if item["type"] == "text" and box and box[2] - box[0] <= _NARROW:
            side = "left" if box[2] <= _MIDDLE + 20 else "right" if box[0] >= _MIDDLE - 20 else None
            if side:
                sides.setdefault(item["page_idx"], set()).add(side)
    return {page for page, found in sides.items() if found == {"left", "right"}}


def _switches(text: str, columns: dict[str, str]) -> int:
    body = squash(text)
    placed: list[tuple[int, str]] = []
    for side, column_text in columns.items():
        for line in column_text.splitlines():
            key = squash(line)
            where = body.find(key) if len(key) >= _MIN_KEY else -1
            if where >= 0:
                placed.append((where, side))
    sides = [side for _where, side in sorted(placed)]
    if min(sides.count("left"), sides.count("right")) < _MIN_LINES_PER_COLUMN:
        return 0
    return sum(a != b for a, b in zip(sides, sides[1:]))


def interleaved_items(raw: RawOutput, texts: list[str], text_layer: PdfTextLayer) -> list[int]:
    pages = _two_column_pages(raw)
    found = []
    for index, item in enumerate(raw.items):
        box = item.get("bbox")
        if item["type"] != "text" or item["page_idx"] not in pages or not box or not box[0] < _MIDDLE < box[2]:
            continue
        gutter = text_layer.text_in_box(item["page_idx"], [_MIDDLE - _GUTTER, box[1], _MIDDLE + _GUTTER, box[3]])
        if len(squash(gutter)) > _GUTTER_MAX_CHARS:
            continue  # text runs across the middle: one full-width block, not two columns
        columns = {
            "left": text_layer.text_in_box(item["page_idx"], [box[0], box[1], _MIDDLE, box[3]]),
            "right": text_layer.text_in_box(item["page_idx"], [_MIDDLE, box[1], box[2], box[3]]),
        }
        if _switches(texts[index], columns) >= _MIN_SWITCHES:
            found.append(index)
    return found
