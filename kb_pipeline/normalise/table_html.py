"""The one reader of MinerU's table HTML: rows of cells with their text as written (character
references decoded, a `<br>` or a nested table's cell boundary read as a space) and their
spans. The normaliser keeps cell text verbatim for `Chunk.text`; the packager cleans it and
expands the spans into a grid (`rag.html_table`)."""

from __future__ import annotations

from dataclasses import dataclass
from html.parser import HTMLParser


@dataclass(frozen=True)
class Cell:
    text: str  # as written in the HTML (entities decoded); a <br> reads as a space
    is_header: bool
    rowspan: int
    colspan: int


def _span(value: str | None) -> int:
    try:
        return max(1, min(int(value or 1), 1000))
    except ValueError:
        return 1


class _TableHTMLParser(HTMLParser):
    """Rows of cells at the outer table's level; a nested table's text joins its enclosing cell."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[Cell]] = []
        self._depth = 0  # table nesting depth; only depth 1 defines rows and cells
        self._row: list[Cell] | None = None
        self._cell: tuple[bool, int, int] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self._depth += 1
        elif tag == "br" or (self._depth > 1 and tag in ("td", "th", "tr")):
            self._text.append(" ")  # a line break, or a nested table's cell boundary
        elif tag == "tr":
            self._finish_row()
            self._row = []
        elif tag in ("td", "th"):
            self._finish_cell()
            if self._row is None:
                self._row = []
            values = dict(attrs)
            self._cell = (tag == "th", _span(values.get("rowspan")), _span(values.get("colspan")))

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._depth -= 1
            if self._depth == 0:
                self._finish_row()
        elif self._depth == 1 and tag in ("td", "th"):
            self._finish_cell()
        elif self._depth == 1 and tag == "tr":
            self._finish_row()

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._text.append(data)

    def _finish_cell(self) -> None:
        if self._cell is not None and self._row is not None:
            is_header, rowspan, colspan = self._cell
            self._row.append(Cell("".join(self._text), is_header, rowspan, colspan))
        self._cell = None
        self._text = []

    def _finish_row(self) -> None:
        self._finish_cell()
        if self._row:
            self.rows.append(self._row)
        self._row = None


def table_cells(html: str) -> list[list[Cell]]:
    parser = _TableHTMLParser()
    parser.feed(html or "")
    parser.close()
    return parser.rows
