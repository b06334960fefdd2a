"""The verbatim text of one MinerU item, read from content_list_v2's raw spans.

content_list.json (v1) strings are rendered Markdown: `\\*` escapes, `**bold**`, `<sub>` tags,
`[text](url)` links. That is markup, and markup never goes in `Chunk.text`. v2 carries the same
items as raw spans, so the text is taken from there, joined exactly as written — nothing
reflowed, nothing cleaned. Each item yields its *pieces*: the verbatim strings a chunk's text is
made of (a table's caption and cells, a figure's caption lines, a paragraph's text).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..parsing.raw_output import RawOutput
from .table_html import table_cells


@dataclass
class ItemText:
    # The item as it goes into `Chunk.text`: its pieces joined by newlines (a table's cells by
    # " | " within a row), so the text is exactly its pieces plus separators.
    text: str = ""
    pieces: list[str] = field(default_factory=list)
    # Inline or display math markup exactly as MinerU gave it.
    latex: list[str] = field(default_factory=list)
    # A description a model wrote about a figure: never part of `text`.
    generated: str | None = None


# What may stand between two pieces in a chunk's text: line breaks, spaces and the " | " that
# joins table cells. The verbatim check allows nothing else.
PIECE_SEPARATORS = " \n|"


def spans_text(spans, latex: list[str] | None = None, *, math_delimiter: str = "") -> str:
    """Concatenate v2 spans as written (spans are inline runs: no separators). Inline equations
    keep their content in the text (it is what the line says), wrapped in `math_delimiter`, and
    are also collected, as markup, into `latex`. Anything that is not a span is passed over,
    since the packager also reads MinerU output produced elsewhere."""
    if isinstance(spans, str):
        return spans
    if not isinstance(spans, list):
        return ""
    out = []
    for span in spans:
        if not isinstance(span, dict):
            continue
        content = span.get("content")
        if isinstance(content, str):
            if span.get("type") == "equation_inline":
                if latex is not None and content:
                    latex.append(content)
                content = f"{math_delimiter}{content}{math_delimiter}"
            out.append(content)
        elif isinstance(content, list) or isinstance(span.get("children"), list):
            out.append(
                spans_text(
                    content if isinstance(content, list) else span["children"], latex, math_delimiter=math_delimiter
                )
            )
    return "".join(out)


def has_cells(html: str) -> bool:
    """Whether a table item's body is an HTML table; MinerU also puts plain text there."""
    return "<table" in html.lower()


def span_lines(content: dict, key: str) -> list[str]:
    """A v2 caption/footnote field: a list of span lists, or a flat span list for one line."""
    value = content.get(key) or []
    if value and isinstance(value[0], dict):
        return [spans_text(value)]
    return [spans_text(v) for v in value]


def item_texts(raw: RawOutput) -> list[ItemText]:
    """Every item's verbatim text, index for index with `raw.items`: made once per document and
    shared by the chunker and the quality warnings."""
    return [item_text(v2, figure_content_is_generated=raw.figure_content_is_generated) for v2 in raw.items_v2]


def item_text(v2: dict, *, figure_content_is_generated: bool = False) -> ItemText:
    """The verbatim text of one v2 item (body text, captions, cells, list items).

    A figure's `content` is text the parser read inside the figure on the flash tier (document
    words, kept) but a description a model wrote at the advanced tier (kept out of `text`).
    """
    kind = v2["type"]
    content = v2.get("content") or {}
    result = ItemText()
    lines: list[str] = []

    def add(piece: str) -> None:
        if piece:
            result.pieces.append(piece)
            lines.append(piece)

    if kind in ("image", "chart", "table", "code", "algorithm"):
        for caption in span_lines(content, f"{kind}_caption"):
            add(caption)
        if kind == "table" and not has_cells(content.get("html") or ""):
            add(content.get("html") or "")
        elif kind == "table":
            for row in ([cell.text for cell in cells] for cells in table_cells(content.get("html", ""))):
                if any(cell.strip() for cell in row):  # empty rows left out
                    result.pieces += [cell for cell in row if cell]
                    lines.append(" | ".join(row))
        elif kind in ("code", "algorithm"):
            add(spans_text(content.get("code_content") or content.get(f"{kind}_content")))
        elif isinstance(content.get("content"), str) and content["content"].strip():
            if figure_content_is_generated:
                result.generated = content["content"]
            else:
                add(content["content"])
        for footnote in span_lines(content, f"{kind}_footnote"):
            add(footnote)
    elif kind == "equation_interline":
        if content.get("math_content"):
            result.latex.append(content["math_content"])
    elif kind in ("list", "index"):
        for entry in content.get("list_items", []):
            add(spans_text(entry.get("item_content") if isinstance(entry, dict) else entry, result.latex))
    else:
        # paragraph, title, page_footnote and the page furniture: `<type>_content` spans.
        key = "paragraph_content" if kind == "paragraph" else f"{kind}_content"
        add(spans_text(content.get(key), result.latex))
    result.text = "\n".join(lines)
    return result
