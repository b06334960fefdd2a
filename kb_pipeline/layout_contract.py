"""The layout artifact, `page_layout.json` beside `chunks.json`: what the readers downstream of the
parse need of the page, written once by the parse, which reads the PDF anyway.

Per page: the PDF text layer's lines (text, box, type size, weight) and MinerU's items with
their boxes and what a chunk does not carry apart (captions, footnotes, a formula's markup, an
image file, a figure's own words), each marked when no chunk holds it (the page furniture the
parse removed). The knowledge readers (a list's two columns, the first page's title) and the
RAG package read this file and the artifact, never the PDF or MinerU's output, so their output
can be reproduced from the artifacts. `ParsedDocument` is unchanged; this module is the single
source of truth for the file, its JSON Schema and field tables generated from it
(`contract_docs.py`).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

LAYOUT_SCHEMA_VERSION = "1.0"
# Its file, beside the artifact's `chunks.json`.
LAYOUT_NAME = "page_layout.json"


class LayoutLine(BaseModel):
    """A run of one line of the PDF's text layer, split off at a gap wider than its type size
    (a column gutter)."""

    text: str = Field(description="as the text layer gives it, stripped of surrounding white space")
    box: list[float] = Field(
        min_length=4,
        max_length=4,
        description="`[x0, y0, x1, y1]` of its characters, 0–1000 of the page as displayed, origin top left",
    )
    size: float = Field(description="its type size: the height, in points, most of its characters' boxes have")
    weight: int | None = Field(
        description="the font weight most of its characters are set in (400 regular, 700 bold): as their font "
        "declares it, else as its name says (a standard font such as Helvetica-Bold: 700, another 400); null "
        "when none of them has a font"
    )


class LayoutItem(BaseModel):
    """One of MinerU's items on the page: where it stands and what a chunk does not carry apart."""

    item: int = Field(description="its index in the raw output's `content_list.json`: what `Chunk.source_items` hold")
    kind: str = Field(description="MinerU's type of it in `content_list_v2.json` (`paragraph`, `title`, `table`, …)")
    box: list[int] | None = Field(description="`[x0, y0, x1, y1]`, MinerU's 0–1000 page-normalised integers")
    text: str = Field(description="its verbatim text, its pieces joined as `Chunk.text` joins them")
    caption: list[str] = Field(description="a table's or figure's caption lines, verbatim")
    footnote: list[str] = Field(description="a table's or figure's footnote lines, verbatim")
    figure_text: str | None = Field(
        description="the words read inside a figure, the document's own; null when none, or when a model wrote "
        "them (advanced tier image analysis)"
    )
    latex: str | None = Field(description="a display formula's markup exactly as MinerU gave it")
    image: str | None = Field(description="its image file (a crop of the page), relative to `raw_output_dir`")
    removed: bool = Field(
        description="no chunk holds it: page furniture the parse left out of the text (running heads and feet, "
        "page numbers, margin notes)"
    )


class LayoutPage(BaseModel):
    page_idx: int = Field(description="0-based, as in `Chunk.page_idx`")
    contents: bool = Field(description="a printed table of contents (several lines with dot leaders)")
    lines: list[LayoutLine] = Field(description="the text layer's lines, in its order")
    items: list[LayoutItem] = Field(
        description="MinerU's items on the page in its reading order: an item's position on its page is its index here"
    )


class ParsedLayout(BaseModel):
    """The pages of one parsed document. Its identity fields are its `chunks.json`'s: a layout
    whose identity differs is another version's and is not read."""

    doc_id: str
    content_hash: str = Field(description="sha256 of the source file's bytes, as in `chunks.json`")
    parser_version: str | None = Field(description="as in `chunks.json`")
    parser_config: str | None = Field(description="as in `chunks.json`")
    normaliser_version: str | None = Field(description="as in `chunks.json`: the code that wrote both")
    schema_version: str = Field(default=LAYOUT_SCHEMA_VERSION, description="this file's contract version")
    pages: list[LayoutPage] = Field(description="the pages MinerU returned, in order")
