"""Is a chunk's text made only of verbatim pieces of its source items?

`Chunk.text` must be the items' own text joined by separators, with nothing reflowed, cleaned
or invented — extraction's span check depends on it. The pieces of each item are what
`normalise.item_text` reads from MinerU's raw spans, and a formula's piece is the PDF text layer
inside its box; this check walks them in order through the text and allows only separators
between them.
"""

from __future__ import annotations

from pathlib import Path

from ..contracts import Chunk
from ..normalise.contents import contents_pages, contents_text
from ..normalise.item_text import PIECE_SEPARATORS, has_cells, item_text, item_texts
from ..normalise.layer_text import formula_text, table_text, turned_table
from ..normalise.recovery import recovered_chunk_lines
from ..parsing.raw_output import RawOutput
from ..pdf_text import PdfTextLayer


def source_pieces(chunk: Chunk, raw: RawOutput, text_layer: PdfTextLayer) -> list[str]:
    if not chunk.source_items:
        # Lines MinerU lost, put back from the text layer (`normalise.recovery`).
        return recovered_chunk_lines(chunk, text_layer)
    items = [raw.items[i] for i in chunk.source_items]
    pieces: list[str] = []
    if len({item["page_idx"] for item in items}) == 1 and items[0]["page_idx"] in _contents_pages(raw):
        # A contents page is read from the text layer as a whole (`contents_text`).
        pieces.append(contents_text(text_layer, [item for item in items if item["type"] != "image"]))
    else:
        for index, item in zip(chunk.source_items, items):
            if item["type"] == "equation":
                pieces.append(formula_text(text_layer, item))
                continue
            content = raw.items_v2[index].get("content") or {}
            html = content.get("html") or ""
            turned = (
                turned_table(text_layer, item, content)
                if item["type"] == "table" and html.strip() and not has_cells(html)
                else None
            )
            if turned is not None:
                pieces += turned[0].pieces  # a table drawn turned: its text-layer rows and cells
                continue
            pieces += item_text(raw.items_v2[index], figure_content_is_generated=raw.figure_content_is_generated).pieces
            if item["type"] == "table" and not html:
                pieces.append(table_text(text_layer, item))
    return [piece for piece in pieces if piece]


# Contents pages per raw output dir, found once, not once per chunk (a complete cache entry
# never changes).
_CONTENTS_PAGES: dict[Path, frozenset[int]] = {}


def _contents_pages(raw: RawOutput) -> frozenset[int]:
    if raw.path not in _CONTENTS_PAGES:
        if len(_CONTENTS_PAGES) > 16:
            _CONTENTS_PAGES.clear()
        _CONTENTS_PAGES[raw.path] = frozenset(contents_pages(raw.items, item_texts(raw)))
    return _CONTENTS_PAGES[raw.path]


def _cut_piece(text: str, piece: str, position: int, *, first: bool, last: bool) -> int | None:
    """Where a cut piece ends in `text`, or None. A paragraph cut at a heading MinerU had merged
    into it leaves its tail to open one chunk (first piece) and its head to end another (last
    piece); a paragraph between two such headings leaves a middle part (first and last)."""
    start = len(text) - len(text[position:].lstrip(PIECE_SEPARATORS))
    rest = text[start:].rstrip(PIECE_SEPARATORS)
    if first and last:
        return start + len(rest) if rest and rest in piece else None
    if first:
        for j in range(1, len(piece)):
            if piece[j] == text[start : start + 1] and text.startswith(piece[j:], start):
                return start + len(piece) - j
        return None
    if last:
        return start + len(rest) if rest and piece.startswith(rest) else None
    return None


def verbatim_violations(chunk: Chunk, pieces: list[str]) -> list[str]:
    """What in `chunk.text` is not a verbatim piece in order (empty when the text is sound).
    The first and last piece may be cut (see `_cut_piece`), never changed."""
    problems = []
    position = 0
    for n, piece in enumerate(pieces):
        found = chunk.text.find(piece, position)
        if found < 0:
            end = _cut_piece(chunk.text, piece, position, first=n == 0, last=n == len(pieces) - 1)
            if end is not None:
                position = end
                continue
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
