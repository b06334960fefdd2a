"""A printed table of contents: its pages (several lines with dot leaders) and its text, read line
by line from the text layer. The chunker makes such a page one text chunk; quality and the RAG
package tell its pages apart the same way."""

from __future__ import annotations

from collections import Counter

from ..pdf_text import PdfTextLayer
from .headings import DOT_LEADER
from .item_text import ItemText

_CONTENTS_MIN_LEADERS = 3


def contents_pages(items: list[dict], texts: list[ItemText]) -> set[int]:
    """Pages of a printed table of contents: several lines with dot leaders."""
    leaders = Counter(item["page_idx"] for item, text in zip(items, texts) if DOT_LEADER.search(text.text))
    return {page for page, n in leaders.items() if n >= _CONTENTS_MIN_LEADERS}


def contents_text(text_layer: PdfTextLayer, items: list[dict]) -> str:
    """A contents page's entries, line by line from the text layer: MinerU cuts multi-column
    contents into numbers and titles far apart in reading order."""
    boxes = [item["bbox"] for item in items if item.get("bbox")]
    if not boxes:
        return ""
    union = [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)]
    return "\n".join(line.text for line in text_layer.lines_in_box(items[0]["page_idx"], union))
