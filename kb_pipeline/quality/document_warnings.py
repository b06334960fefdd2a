"""The warning checks of a whole document (its layout, its pages, its chunks together), in the
order their warnings are listed after every chunk's own."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterator

from ..contracts import Chunk
from ..parsing.raw_output import RawOutput
from .flags import WHITESPACE, Flag, WarnedDocument, first_ten, preview
from .layout import interleaved_items

_DUPLICATE_MIN_CHARS = 40

DocumentCheck = Callable[[WarnedDocument], Iterator[Flag]]


def interleaved_columns(document: WarnedDocument) -> Iterator[Flag]:
    raw = document.raw
    for index in interleaved_items(raw, [t.text for t in document.texts], document.text_layer):
        yield Flag(
            "kolom_tercampur",
            f"content_list item {index} spans both columns and its lines alternate "
            "between them: the text is verbatim but its sentences are interleaved",
            page_idx=raw.items[index]["page_idx"],
        )


def _items_by_page(raw: RawOutput, wanted: Callable[[dict], bool]) -> dict[int, list[int]]:
    """The indices of the wanted content_list items, by page: one warning per page, not per item
    (a scanned page holds dozens of image strips)."""
    pages: dict[int, list[int]] = defaultdict(list)
    for index, item in enumerate(raw.items):
        if wanted(item):
            pages[item["page_idx"]].append(index)
    return pages


def formulas_without_markup(document: WarnedDocument) -> Iterator[Flag]:
    raw = document.raw
    for page_idx, indices in _items_by_page(
        raw, lambda item: item["type"] == "equation" and not item.get("text")
    ).items():
        yield Flag(
            "formula_tanpa_latex",
            f"{len(indices)} formula(s) with no markup from the parser (tier "
            f"{raw.tier}; content_list items {first_ten(indices)}); their text is read from the PDF "
            "text layer",
            page_idx=page_idx,
        )


def _bare_figure(item: dict) -> bool:
    return item["type"] in ("image", "chart") and not (
        item.get(f"{item['type']}_caption") or (item.get("content") or "").strip()
    )


def figures_without_context(document: WarnedDocument) -> Iterator[Flag]:
    for page_idx, indices in _items_by_page(document.raw, _bare_figure).items():
        yield Flag(
            "chart_tanpa_konteks",
            f"{len(indices)} figure(s) with neither content nor caption (content_list items {first_ten(indices)})",
            page_idx=page_idx,
        )


def ocr_pages(document: WarnedDocument) -> Iterator[Flag]:
    raw = document.raw
    for page_idx in raw.ocr_pages:
        if page_idx in raw.page_idxs:
            yield Flag(
                "teks_ocr",
                f"text of this page was machine-read from an image of it by OCR "
                f"({raw.ocr_engine}, languages {raw.ocr_langs}), not the author's own characters: "
                "words, numbers and symbols may be misread",
                page_idx=page_idx,
            )


def no_text(document: WarnedDocument) -> Iterator[Flag]:
    if not any(c.kind == "text" and c.text.strip() for c in document.chunks):
        yield Flag(
            "dokumen_tanpa_teks",
            f"no text chunk in {document.raw.n_pages} page(s): a scanned PDF read "
            "without OCR, or a PDF whose text layer is empty",
            page_idx=0,
        )


def duplicate_chunks(document: WarnedDocument) -> Iterator[Flag]:
    seen: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in document.chunks:
        key = WHITESPACE.sub(" ", chunk.text).strip()
        if len(key) >= _DUPLICATE_MIN_CHARS:
            seen[key].append(chunk)
    for copies in seen.values():
        for duplicate in copies[1:]:
            yield Flag("chunk_duplikat", f"same text as {copies[0].chunk_id}: {preview(duplicate.text)}", duplicate)


DOCUMENT_CHECKS: tuple[DocumentCheck, ...] = (
    interleaved_columns,
    formulas_without_markup,
    figures_without_context,
    ocr_pages,
    no_text,
    duplicate_chunks,
)
