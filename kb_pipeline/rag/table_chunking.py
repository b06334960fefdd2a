"""One table → one chunk text, or several row-boundary parts when it exceeds the hard cap.

Every part repeats the caption (with "(Part i/n)") and the column names, so each part is
retrievable on its own; the footnote goes into the last part. A row too large for any part
is never truncated: it gets a part of its own, which is then over the cap (``is_oversized``)
and listed for manual review.
"""

from __future__ import annotations

from dataclasses import dataclass

from .html_table import ParsedTable
from .token_estimate import HARD_CAP_TOKENS, estimate_tokens


@dataclass(frozen=True)
class TablePart:
    text: str
    split_index: int  # 1-based
    total_splits: int


def is_oversized(table_text: str) -> bool:
    """Over the cap: only a part holding one row that alone exceeds it (kept whole, never cut)."""
    return estimate_tokens(table_text) > HARD_CAP_TOKENS


def _render(title: str, columns: list[str], row_lines: list[str], footnote: str) -> str:
    lines = [f"Table: {title}"]
    if any(columns):
        lines.append("Columns: " + " | ".join(columns))
    lines.extend(row_lines)
    if footnote:
        lines.append(f"Notes: {footnote}")
    return "\n".join(lines)


def _title(caption: str, page_no: int) -> str:
    return caption or f"(untitled table on page {page_no})"


def image_only_table_text(caption: str, footnote: str, *, page_no: int) -> str:
    """A table MinerU found but could not read: caption and notes, pointing at its image."""
    return _render(_title(caption, page_no), [], ["Table body not extracted; see the table image."], footnote)


def table_parts(caption: str, footnote: str, table: ParsedTable, *, page_no: int) -> list[TablePart]:
    title = _title(caption, page_no)
    row_lines = [f"Row {number}: " + " | ".join(row) for number, row in enumerate(table.rows, 1)]
    whole = _render(title, table.columns, row_lines, footnote)
    if estimate_tokens(whole) <= HARD_CAP_TOKENS or len(row_lines) < 2:
        return [TablePart(whole, 1, 1)]

    # Reserve room for the longest part label and the footnote in every part, so any part
    # can be the last one and no part overflows once its label is known.
    frame = _render(f"{title} (Part {len(row_lines)}/{len(row_lines)})", table.columns, [], footnote)
    budget = HARD_CAP_TOKENS - estimate_tokens(frame)
    groups: list[list[str]] = [[]]
    used = 0
    for line in row_lines:
        cost = estimate_tokens(line) + 1  # +1 for the newline joining it
        if groups[-1] and used + cost > budget:
            groups.append([])
            used = 0
        groups[-1].append(line)
        used += cost
    total = len(groups)
    return [
        TablePart(
            _render(f"{title} (Part {number}/{total})", table.columns, group, footnote if number == total else ""),
            number,
            total,
        )
        for number, group in enumerate(groups, 1)
    ]
