"""Parsing a MinerU table's HTML into column names and data rows (stdlib ``html.parser``).

``rowspan``/``colspan`` are expanded into a full grid. Header rows are the leading rows made
only of ``<th>`` cells; MinerU writes ``<td>`` everywhere, so otherwise the first row is the
header, extended down by its largest ``rowspan`` (a two-level header such as
"Site | Percentile" over "10 | 20 | ..."). A column's name joins its distinct header values
top-down ("Percentile 10"). In data rows a cell repeated by ``colspan`` is written once, while
a cell repeated by ``rowspan`` is kept in every row it covers, so each row reads on its own.
A nested table (``table_nest_level`` 2) is flattened into the text of its enclosing cell. A body
without cells (MinerU sometimes gives a table as laid-out text) is read line by line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ..normalise.table_html import Cell, table_cells
from .text_cleaning import clean_section_title


@dataclass(frozen=True)
class ParsedTable:
    columns: list[str]
    rows: list[list[str]]
    width: int = 0  # columns of the expanded grid
    first_row: list[str] = field(default_factory=list)  # the grid's first row as printed, per column

    @property
    def has_content(self) -> bool:
        return any(self.columns) or any(cell for row in self.rows for cell in row)


def _expand(rows: list[list[Cell]]) -> list[list[tuple[int, Cell]]]:
    """Grid of (cell identity, cell); a spanning cell appears in every position it covers."""
    grid: list[list[tuple[int, Cell] | None]] = []
    identity = 0
    for row_number, row in enumerate(rows):
        while len(grid) <= row_number:
            grid.append([])
        column = 0
        for cell in row:
            while column < len(grid[row_number]) and grid[row_number][column] is not None:
                column += 1
            for dr in range(cell.rowspan):
                while len(grid) <= row_number + dr:
                    grid.append([])
                target = grid[row_number + dr]
                for dc in range(cell.colspan):
                    while len(target) <= column + dc:
                        target.append(None)
                    target[column + dc] = (identity, cell)
            identity += 1
            column += cell.colspan
    width = max((len(grid_row) for grid_row in grid), default=0)
    empty = Cell("", False, 1, 1)
    return [[slot if slot is not None else (-1, empty) for slot in row + [None] * (width - len(row))] for row in grid]


def _header_row_count(rows: list[list[Cell]], grid_height: int) -> int:
    th_rows = next((n for n, row in enumerate(rows) if not all(cell.is_header for cell in row)), len(rows))
    if th_rows:
        return th_rows
    if grid_height < 2:
        return 0
    return min(max(cell.rowspan for cell in rows[0]), grid_height - 1)


def parse_html_table(html: str, *, headerless: bool = False) -> ParsedTable:
    """``headerless``: every row is data (a table continued from the previous page, whose
    header is carried forward from there)."""
    rows = [[replace(cell, text=clean_section_title(cell.text)) for cell in row] for row in table_cells(html)]
    if not rows:
        return ParsedTable([], [])
    grid = _expand(rows)
    header_count = 0 if headerless else _header_row_count(rows, len(grid))
    columns: list[str] = []
    for column in range(len(grid[0]) if header_count else 0):
        values: list[str] = []
        for row in grid[:header_count]:
            text = row[column][1].text
            if text and text not in values:
                values.append(text)
        columns.append(" ".join(values))
    data_rows: list[list[str]] = []
    for row in grid[header_count:]:
        cells = [
            cell.text
            for position, (identity, cell) in enumerate(row)
            if identity == -1 or position == 0 or row[position - 1][0] != identity
        ]
        if any(cells):
            data_rows.append(cells)
    return ParsedTable(columns, data_rows, len(grid[0]), [cell.text for _identity, cell in grid[0]])


_COLUMN_GAP = re.compile(r"\s{2,}")


def plain_text_table(body: str) -> ParsedTable:
    """A table body without cells (MinerU gave it as laid-out text, or the normaliser read it
    from the text layer): one row per non-blank line, runs of two or more spaces read as column
    gaps. Its columns are unknown."""
    return ParsedTable([], [[_COLUMN_GAP.sub(" | ", line.strip())] for line in body.splitlines() if line.strip()])
