"""An item's text read from the PDF's text layer where MinerU's is not the printed one: a display
formula's characters (flash gives no LaTeX), a cell-less table's, and a table drawn turned on an
upright page, whose words MinerU splits. The chunker, the verbatim check and the RAG package read
them alike."""

from __future__ import annotations

from html import escape

from ..pdf_text import PdfTextLayer, TextLine
from .item_text import ItemText, span_lines


def formula_text(text_layer: PdfTextLayer, item: dict) -> str:
    """A display formula's characters, read from the PDF's text layer inside its box."""
    return text_layer.text_in_box(item["page_idx"], item["bbox"]).strip("\r\n") if item.get("bbox") else ""


def table_text(text_layer: PdfTextLayer, item: dict) -> str:
    """A cell-less table's characters (a boxed theorem, a diagram with text), from the text layer;
    of a table drawn turned (`sideways_lines`), its lines as they run."""
    if not item.get("bbox"):
        return ""
    turned = sideways_lines(text_layer, item)
    return "\n".join(line.text for line in turned) or text_layer.text_in_box(item["page_idx"], item["bbox"]).strip()


def sideways_lines(text_layer: PdfTextLayer, item: dict) -> list[TextLine]:
    """The text-layer lines of an item whose text runs across the page as MinerU saw it (most of
    its characters), or nothing. A page's text can run two ways: a table drawn turned again on a
    page otherwise upright. MinerU reads such text with its words split ("P ro gramme") and no
    cells; the text layer has each line whole, in its own direction. Upright lines crossing the
    box (the end of a note above it) are the page's other text, not the table's."""
    lines = text_layer.lines_in_box(item["page_idx"], item["bbox"]) if item.get("bbox") else []
    turned = [line for line in lines if line.sideways]
    return turned if 2 * sum(len(line.text) for line in turned) > sum(len(line.text) for line in lines) else []


def turned_table(text_layer: PdfTextLayer, item: dict, content: dict) -> tuple[ItemText, str | None] | None:
    """A cell-less table MinerU read from text drawn turned (`sideways_lines`): its text from the
    text layer between MinerU's caption and footnote lines (`content`, the item's v2 content:
    they stand apart from the turned body and are kept), and its html when most of its lines
    have cells (gutters between columns), else None; or None when its text runs upright."""
    turned = sideways_lines(text_layer, item)
    if not turned:
        return None
    before, after = span_lines(content, "table_caption"), span_lines(content, "table_footnote")
    rows = [line.cells for line in turned]
    if len(rows) < 2 or 2 * sum(len(row) >= 2 for row in rows) <= len(rows):
        lines = [*before, *(line.text for line in turned), *after]
        return ItemText(text="\n".join(lines), pieces=lines), None
    html = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows)
    body = "\n".join(" | ".join(row) for row in rows)
    text = ItemText(
        text="\n".join([*before, body, *after]), pieces=[*before, *(cell for row in rows for cell in row), *after]
    )
    return text, f"<table>{html}</table>"
