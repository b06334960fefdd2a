"""Quality warnings for one parsed document. A warning never fails the document: it is recorded
so that quality cannot drop silently across hundreds of documents.

The check that matters most cross-checks every number in a formula or table against the PDF's
own text layer: a CPU parse once wrote `5600` as `55600` with no error and a valid-looking
formula.
"""

from __future__ import annotations

import re
from collections import defaultdict
from functools import cache

from ..contracts import Chunk, QualityWarning
from ..normalise.item_text import ItemText, item_texts
from ..parsing.raw_output import RawOutput
from ..pdf_text import PdfTextLayer
from .layout import interleaved_items
from .text_coverage import TextCoverage, coverage_warnings, measure_text_coverage

_DIGIT = re.compile(r"\d")
# A number as printed: digits with inner separators ("5,600", "0.98740"), not a lone digit
# inside a word (subscripts like "Q50" are kept: they are digits the document prints too).
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_CID = re.compile(r"\(cid:\d+\)")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffd]")
# Private-use code points: a font's own glyph numbers (symbol fonts, icon fonts, ligatures
# without a Unicode map). They mean nothing outside that font; search and extraction miss them.
_PRIVATE_USE = re.compile(r"[\ue000-\uf8ff\U000f0000-\U0010ffff]")
_WHITESPACE = re.compile(r"\s+")
_DUPLICATE_MIN_CHARS = 40
_PREVIEW = 120


def _preview(text: str) -> str:
    text = _WHITESPACE.sub(" ", text).strip()
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…"


def _first_ten(values: list) -> str:
    return f"{', '.join(map(str, values[:10]))}{', …' if len(values) > 10 else ''}"


def quality_warnings(
    doc_id: str,
    chunks: list[Chunk],
    raw: RawOutput,
    text_layer: PdfTextLayer,
    coverage: TextCoverage | None = None,
    texts: list[ItemText] | None = None,
) -> list[QualityWarning]:
    """Every warning for one document. `coverage` is the text-layer coverage of these chunks and
    `texts` the items' texts (`item_texts(raw)`) when the caller has them already (the artifact
    check uses the same coverage, the chunker the same texts)."""
    warnings: list[QualityWarning] = []

    @cache  # once per page, not once per chunk
    def squeezed_page(page_idx: int) -> str:
        return _WHITESPACE.sub("", text_layer.page_text(page_idx))

    def warn(jenis, detail: str, chunk: Chunk | None = None, page_idx: int | None = None) -> None:
        warnings.append(
            QualityWarning(
                doc_id=doc_id,
                jenis=jenis,
                detail=detail,
                chunk_id=chunk.chunk_id if chunk else None,
                page_idx=chunk.page_idx if chunk and page_idx is None else page_idx,
            )
        )

    for chunk in chunks:
        for latex in chunk.latex:
            if not _DIGIT.search(latex):
                warn("latex_tanpa_angka", f"formula markup has no digits to cross-check: {_preview(latex)}", chunk)
        if chunk.kind == "table" and not chunk.text.strip() and not (chunk.table_html or "").strip():
            warn("tabel_kosong", "a table was detected but has no content", chunk)
        if undecodable := _CID.search(chunk.text) or _CONTROL.search(chunk.text):
            warn(
                "teks_rusak",
                f"text holds undecodable glyphs ({undecodable.group()!r}); the PDF's font has no "
                f"usable Unicode map here: {_preview(chunk.text)}",
                chunk,
            )
        if private := _PRIVATE_USE.findall(chunk.text):
            warn(
                "glif_pribadi",
                f"{len(private)} private-use character(s) "
                f"({_first_ten([f'U+{ord(c):04X}' for c in dict.fromkeys(private)])}): "
                f"glyphs of the PDF's font with no standard meaning: {_preview(chunk.text)}",
                chunk,
            )
        # Numbers in formulas and tables, against the text layer of the pages they come from; that
        # is compared without whitespace, since a text layer may break a number or space its digits.
        checked_text = "\n".join(chunk.latex) + ("\n" + chunk.text if chunk.kind == "table" else "")
        if numbers := dict.fromkeys(_NUMBER.findall(checked_text)):
            squeezed = "".join(squeezed_page(p) for p in chunk.page_idxs)
            if missing := [n for n in numbers if n not in squeezed]:
                warn(
                    "angka_tidak_cocok",
                    f"{len(missing)} number(s) not in the PDF's text layer: {', '.join(missing[:10])}",
                    chunk,
                )

        cellless = [i for i in chunk.source_items if raw.items[i]["type"] == "table"] if chunk.kind != "table" else []
        if cellless:
            warn(
                "tabel_kosong" if not chunk.text.strip() else "tabel_tanpa_sel",
                f"MinerU read content_list item(s) {_first_ten(cellless)} as a table but gave no cells; "
                "its text is kept as text, without table structure",
                chunk,
            )

    texts = item_texts(raw) if texts is None else texts
    for index in interleaved_items(raw, [t.text for t in texts], text_layer):
        warn(
            "kolom_tercampur",
            f"content_list item {index} spans both columns and its lines alternate "
            "between them: the text is verbatim but its sentences are interleaved",
            page_idx=raw.items[index]["page_idx"],
        )

    # One warning per page, not per item: a scanned page holds dozens of image strips.
    bare_figures: dict[int, list[int]] = defaultdict(list)
    bare_formulas: dict[int, list[int]] = defaultdict(list)
    for index, item in enumerate(raw.items):
        if item["type"] == "equation" and not item.get("text"):
            bare_formulas[item["page_idx"]].append(index)
        if item["type"] in ("image", "chart") and not (
            item.get(f"{item['type']}_caption") or (item.get("content") or "").strip()
        ):
            bare_figures[item["page_idx"]].append(index)
    for page_idx, indices in bare_formulas.items():
        warn(
            "formula_tanpa_latex",
            f"{len(indices)} formula(s) with no markup from the parser (tier "
            f"{raw.tier}; content_list items {_first_ten(indices)}); their text is read from the PDF "
            "text layer",
            page_idx=page_idx,
        )
    for page_idx, indices in bare_figures.items():
        warn(
            "chart_tanpa_konteks",
            f"{len(indices)} figure(s) with neither content nor caption (content_list items {_first_ten(indices)})",
            page_idx=page_idx,
        )

    for page_idx in raw.ocr_pages:
        if page_idx in raw.page_idxs:
            warn(
                "teks_ocr",
                f"text of this page was machine-read from an image of it by OCR "
                f"({raw.ocr_engine}, languages {raw.ocr_langs}), not the author's own characters: "
                "words, numbers and symbols may be misread",
                page_idx=page_idx,
            )

    if not any(c.kind == "text" and c.text.strip() for c in chunks):
        warn(
            "dokumen_tanpa_teks",
            f"no text chunk in {raw.n_pages} page(s): a scanned PDF read "
            "without OCR, or a PDF whose text layer is empty",
            page_idx=0,
        )

    seen: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        key = _WHITESPACE.sub(" ", chunk.text).strip()
        if len(key) >= _DUPLICATE_MIN_CHARS:
            seen[key].append(chunk)
    for copies in seen.values():
        for duplicate in copies[1:]:
            warn("chunk_duplikat", f"same text as {copies[0].chunk_id}: {_preview(duplicate.text)}", duplicate)

    if coverage is None:
        coverage = measure_text_coverage(chunks, text_layer)
    warnings += coverage_warnings(doc_id, coverage)
    return warnings
