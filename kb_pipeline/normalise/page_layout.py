"""The layout artifact of a document as it is normalised (`layout_contract.ParsedLayout`): its
pages' text-layer lines and MinerU's items, read here, where the PDF and MinerU's output are
open anyway, so that no reader downstream opens them again."""

from __future__ import annotations

from ..contracts import ParsedDocument
from ..layout_contract import LayoutItem, LayoutLine, LayoutPage, ParsedLayout
from ..parsing.raw_output import RawOutput
from ..pdf_text import PdfTextLayer, TextSegment
from .contents import contents_pages
from .item_text import ItemText, span_lines

_FIGURE_KINDS = ("image", "chart")
# A hundredth of a thousandth of the page (under a hundredth of a point on A4): far finer than
# any glyph, and the file a third smaller than at full float precision.
_BOX_DECIMALS = 2


def page_layout(
    document: ParsedDocument, raw: RawOutput, text_layer: PdfTextLayer, texts: list[ItemText]
) -> ParsedLayout:
    """`document`'s layout: it was normalised from `raw` and `text_layer`; `texts` are
    `item_texts(raw)`."""
    held = {item for chunk in document.chunks for item in chunk.source_items}
    items: dict[int, list[LayoutItem]] = {page_idx: [] for page_idx in raw.page_idxs}
    for index, (v1, v2) in enumerate(zip(raw.items, raw.items_v2)):
        items[raw.positions[index][0]].append(_item(index, v1, v2, texts[index], raw, index not in held))
    contents = contents_pages(raw.items, texts)
    return ParsedLayout(
        doc_id=document.doc_id,
        content_hash=document.content_hash,
        parser_version=document.parser_version,
        parser_config=document.parser_config,
        normaliser_version=document.normaliser_version,
        pages=[
            LayoutPage(
                page_idx=page_idx,
                contents=page_idx in contents,
                lines=[_line(segment) for segment in text_layer.segments(page_idx)],
                items=items[page_idx],
            )
            for page_idx in raw.page_idxs
        ],
    )


def _line(segment: TextSegment) -> LayoutLine:
    box = [round(v, _BOX_DECIMALS) for v in segment.box]
    return LayoutLine(text=segment.text, box=box, size=segment.size, weight=segment.weight)


def _item(index: int, v1: dict, v2: dict, text: ItemText, raw: RawOutput, removed: bool) -> LayoutItem:
    kind = v2["type"]
    content = v2.get("content")
    content = content if isinstance(content, dict) else {}
    bbox = v1.get("bbox")
    source = content.get("image_source")
    image = source.get("path") if isinstance(source, dict) else None
    inner = content.get("content")
    latex = content.get("math_content")
    return LayoutItem(
        item=index,
        kind=kind,
        box=list(bbox) if isinstance(bbox, list) and len(bbox) == 4 else None,
        text=text.text,
        caption=span_lines(content, f"{kind}_caption"),
        footnote=span_lines(content, f"{kind}_footnote"),
        figure_text=inner
        if kind in _FIGURE_KINDS and isinstance(inner, str) and not raw.figure_content_is_generated
        else None,
        latex=latex if isinstance(latex, str) else None,
        image=image if isinstance(image, str) else None,
        removed=removed,
    )
