"""The warning checks of one chunk, in the order their warnings are listed for it.

The check that matters most cross-checks every number in a formula or table against the PDF's
own text layer: a CPU parse once wrote `5600` as `55600` with no error and a valid-looking
formula.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ..contracts import Chunk
from .flags import Flag, WarnedDocument, first_ten, preview

_DIGIT = re.compile(r"\d")
# A number as printed: digits with inner separators ("5,600", "0.98740"), not a lone digit
# inside a word (subscripts like "Q50" are kept: they are digits the document prints too).
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_CID = re.compile(r"\(cid:\d+\)")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffd]")
# Private-use code points: a font's own glyph numbers (symbol fonts, icon fonts, ligatures
# without a Unicode map). They mean nothing outside that font; search and extraction miss them.
_PRIVATE_USE = re.compile(r"[\ue000-\uf8ff\U000f0000-\U0010ffff]")

ChunkCheck = Callable[[Chunk, WarnedDocument], Iterator[Flag]]


def latex_without_digits(chunk: Chunk, document: WarnedDocument) -> Iterator[Flag]:
    for latex in chunk.latex:
        if not _DIGIT.search(latex):
            yield Flag("latex_tanpa_angka", f"formula markup has no digits to cross-check: {preview(latex)}", chunk)


def empty_table(chunk: Chunk, document: WarnedDocument) -> Iterator[Flag]:
    if chunk.kind == "table" and not chunk.text.strip() and not (chunk.table_html or "").strip():
        yield Flag("tabel_kosong", "a table was detected but has no content", chunk)


def undecodable_glyphs(chunk: Chunk, document: WarnedDocument) -> Iterator[Flag]:
    if undecodable := _CID.search(chunk.text) or _CONTROL.search(chunk.text):
        yield Flag(
            "teks_rusak",
            f"text holds undecodable glyphs ({undecodable.group()!r}); the PDF's font has no "
            f"usable Unicode map here: {preview(chunk.text)}",
            chunk,
        )


def private_use_glyphs(chunk: Chunk, document: WarnedDocument) -> Iterator[Flag]:
    if private := _PRIVATE_USE.findall(chunk.text):
        yield Flag(
            "glif_pribadi",
            f"{len(private)} private-use character(s) "
            f"({first_ten([f'U+{ord(c):04X}' for c in dict.fromkeys(private)])}): "
            f"glyphs of the PDF's font with no standard meaning: {preview(chunk.text)}",
            chunk,
        )


def numbers_not_in_text_layer(chunk: Chunk, document: WarnedDocument) -> Iterator[Flag]:
    """Numbers in formulas and tables, against the text layer of the pages they come from; that
    is compared without whitespace, since a text layer may break a number or space its digits."""
    checked_text = "\n".join(chunk.latex) + ("\n" + chunk.text if chunk.kind == "table" else "")
    if numbers := dict.fromkeys(_NUMBER.findall(checked_text)):
        squeezed = "".join(document.squeezed_page(p) for p in chunk.page_idxs)
        if missing := [n for n in numbers if n not in squeezed]:
            yield Flag(
                "angka_tidak_cocok",
                f"{len(missing)} number(s) not in the PDF's text layer: {', '.join(missing[:10])}",
                chunk,
            )


def tables_without_cells(chunk: Chunk, document: WarnedDocument) -> Iterator[Flag]:
    if chunk.kind == "table":
        return
    if cellless := [i for i in chunk.source_items if document.raw.items[i]["type"] == "table"]:
        yield Flag(
            "tabel_kosong" if not chunk.text.strip() else "tabel_tanpa_sel",
            f"MinerU read content_list item(s) {first_ten(cellless)} as a table but gave no cells; "
            "its text is kept as text, without table structure",
            chunk,
        )


CHUNK_CHECKS: tuple[ChunkCheck, ...] = (
    latex_without_digits,
    empty_table,
    undecodable_glyphs,
    private_use_glyphs,
    numbers_not_in_text_layer,
    tables_without_cells,
)
