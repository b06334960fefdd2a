"""A two-column list read as the page lays it out: abbreviations down the left column, each
row's expansion to its right, wrapping onto further lines of the right column.

MinerU may give such a list as separate items per cell, or merge several rows' expansions into
one item (their line breaks gone), so the chunk's text alone cannot tell the rows apart; the
text layer's lines can: a right-column line belongs to the row whose abbreviation stands
level with it or, for a wrapped line, nearest above it.
"""

from __future__ import annotations

from collections.abc import Callable

from ...contracts import Chunk
from ...layout_contract import LayoutLine
from .layout import DocumentLayout
from .text import squash

# In MinerU's 0–1000 page units: how far a cell's left edge may stray from its column's.
_COLUMN_SLACK = 12


def list_rows(chunk: Chunk, layout: DocumentLayout, is_term: Callable[[str], bool]) -> list[tuple[str, str]]:
    """(left cell, expansion) per row, as the text layer writes them; [] when the chunk is not
    laid out as two columns (at least two rows whose left cell `is_term`, each with an
    expansion). A left cell that is no term but has lines beside it ("TA Luft", a header row) is
    a row too, so its lines are not taken for the row above's: the caller judges it."""
    heading = squash(chunk.heading or "")
    segments = [s for s in layout.chunk_segments(chunk) if squash(s.text) != heading]
    terms = [s for s in segments if is_term(s.text)]
    if len(terms) < 2:
        return []
    left = min(s.box[0] for s in terms)
    anchors = sorted((s for s in segments if abs(s.box[0] - left) <= _COLUMN_SLACK), key=lambda s: s.box[1])
    rest = [s for s in segments if s.box[0] - left > _COLUMN_SLACK]
    if sum(is_term(a.text) for a in anchors) < 2 or not rest:
        return []
    rows: dict[int, list[LayoutLine]] = {k: [] for k in range(len(anchors))}
    for line in sorted(rest, key=lambda s: s.box[1]):
        level = [k for k, a in enumerate(anchors) if a.box[1] <= line.box[1] + (a.box[3] - a.box[1]) / 2]
        if level:
            rows[level[-1]].append(line)
    if not all(rows[k] for k, a in enumerate(anchors) if is_term(a.text)):
        return []
    # A left-column line with nothing beside it that is no term (a lead-in, a note) is no row.
    return [(a.text, " ".join(s.text for s in rows[k])) for k, a in enumerate(anchors) if rows[k]]
