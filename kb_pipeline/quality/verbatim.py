"""Is a chunk's text made only of verbatim pieces of its source items?

`Chunk.text` must be the items' own text joined by separators, with nothing reflowed, cleaned
or invented — extraction's span check depends on it. The pieces of each item are what
`normalise.item_text` reads from MinerU's raw spans, and a formula's piece is the PDF text layer
inside its box; this check walks them in order through the text and allows only separators
between them.
"""

from __future__ import annotations

from ..contracts import Chunk
from ..normalise.chunker import formula_text
from ..normalise.item_text import PIECE_SEPARATORS, item_text
from ..parsing.raw_output import RawOutput
from ..pdf_text import PdfTextLayer


def source_pieces(chunk: Chunk, raw: RawOutput, text_layer: PdfTextLayer) -> list[str]:
    pieces: list[str] = []
    for index in chunk.source_items:
        item = raw.items[index]
        if item["type"] == "equation":
            piece = formula_text(text_layer, item)
            pieces += [piece] if piece else []
        else:
            pieces += item_text(raw.items_v2[index], figure_content_is_generated=raw.figure_content_is_generated).pieces
    return pieces


def verbatim_violations(chunk: Chunk, pieces: list[str]) -> list[str]:
    """What in `chunk.text` is not a verbatim piece in order (empty when the text is sound)."""
    problems = []
    position = 0
    for piece in pieces:
        found = chunk.text.find(piece, position)
        if found < 0:
            problems.append(f"piece not found verbatim after offset {position}: {piece[:80]!r}")
            continue
        gap = chunk.text[position:found]
        if gap.strip(PIECE_SEPARATORS):
            problems.append(f"text not from any source item at offset {position}: {gap[:80]!r}")
        position = found + len(piece)
    tail = chunk.text[position:]
    if tail.strip(PIECE_SEPARATORS):
        problems.append(f"text not from any source item at offset {position}: {tail[:80]!r}")
    return problems
