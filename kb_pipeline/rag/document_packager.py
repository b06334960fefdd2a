"""The artifact's chunks, in reading order, turned into the package's chunks (seed 001's rules).

The package is built from the `ParsedDocument`, so it holds what the normaliser recovered
(running heads removed, lost lines from the text layer, headings from the PDF's own signals),
and from its layout (`layout_contract.ParsedLayout`) what the chunks do not carry apart: a
table's or figure's caption apart from its body, an image reference whose file is missing, a
formula's LaTeX, the page furniture the normaliser left out (counted as noise) and the pages of
a printed table of contents. Neither MinerU's output nor the PDF is read again; image files are
found in the raw output directory the artifact names.

- a chunk's section is its innermost heading; a low-value one (Contents, List of Figures/Tables,
  revision history, ``Rev. X``) and a printed table of contents are skipped, every chunk logged;
- ``text`` chunks are packed per section (a packed chunk may span pages; its page_no is its
  first page). Their text is the artifact's, verbatim;
- ``table`` → one chunk, or row-boundary parts repeating caption and columns; a table whose body
  MinerU gave as laid-out text (no cells) is read line by line; an empty table without an image
  is skipped. A table on the page after the previous one, in the same section, continues it
  (``continues`` in the manifest) when its caption says so ("Continued", "cont.") or, uncaptioned,
  it has the same column count; uncaptioned, it takes the previous title "(continued)"; with the
  same columns but not the previous header, it is read under that header;
- ``image``/``chart`` chunks, and pictures inside a text chunk, → figures (formal / subfigure
  merged / weak skipped), described by caption and adjacent text, or by the sentences citing
  them; a figure's own text (read inside it) that no figure chunk holds joins its section's text;
- every display formula → a formula chunk (LaTeX, else its characters from the text layer, else
  its image) with the text before and after it; the text chunk holding it keeps it too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..contracts import Chunk, ParsedDocument
from ..layout_contract import LayoutItem, ParsedLayout
from .chunk import RagChunk, location_line
from .error_report import ErrorReport
from .figure_classification import FigureTier, classify_figure, figure_chunk_text, figure_number
from .html_table import ParsedTable, parse_html_table, plain_text_table
from .image_paths import ResolvedImage, resolve_image
from .metrics import NOISE_KINDS, PackagingStats
from .nearby_text import adjacent_text, citing_text, figure_nearby_text, head, tail
from .sections import is_low_value_section
from .table_chunking import TablePart, image_only_table_text, table_parts
from .text_chunking import TextBlock, pack_text_blocks
from .text_cleaning import clean_section_title

_FIGURE_KINDS = frozenset({"image", "chart"})
_CONTINUED = re.compile(
    r"\bcontinued\b|\bcont(?:'d\b|\.)|\(\s*suite\s*\)|\bfortsetzung\b|\(\s*forts\.|\blanjutan\b", re.IGNORECASE
)
_HEADER_MATCH_SHARE = 0.8

Order = tuple[int, int, int]  # (artifact chunk position, source item position in it, part)


@dataclass
class _LastTable:
    page_no: int
    width: int  # 0 when unknown (a body that is laid-out text)
    columns: list[str]  # the header as the package writes it ("Columns: …")
    header_row: list[str]  # the header as printed, to recognise a continuation page that repeats it
    title: str  # without any "(continued)"
    chunk: RagChunk  # its last chunk


@dataclass
class _FigureCandidate:
    item: int  # its MinerU item
    order: Order
    page_no: int
    section_title: str
    caption: str
    footnote: str
    inner_text: str  # text read inside the figure
    nearby_text: str
    image: ResolvedImage
    tier: FigureTier
    subfigures: list[_FigureCandidate] = field(default_factory=list)


class DocumentPackager:
    def __init__(
        self, document: ParsedDocument, layout: ParsedLayout, raw_dir: Path, project_root: Path, report: ErrorReport
    ) -> None:
        self.chunks_in = document.chunks
        # Every MinerU item: its page, its position on the page, its layout.
        self.items = {
            item.item: (page.page_idx, position, item)
            for page in layout.pages
            for position, item in enumerate(page.items)
        }
        self.raw_dir = raw_dir  # where the image references point
        self.project_root = project_root
        self.report = report
        self.stats = PackagingStats()
        self.chunks: list[RagChunk] = []
        self.low_value_chunks: list[str] = []  # artifact chunk ids left out by design
        self.section_title = ""
        self._section_key: tuple[str, ...] | None = None
        self._section_text: list[TextBlock] = []  # packed into text chunks when the section ends
        self._last_table: _LastTable | None = None  # the table a table on the next page may continue
        self._page_figures: list[_FigureCandidate] = []  # emitted when the page ends
        self._page_idx: int | None = None
        self._contents = {page.page_idx for page in layout.pages if page.contents}

    def package(self) -> list[RagChunk]:
        self._count_noise()
        for position, chunk in enumerate(self.chunks_in):
            if chunk.page_idx != self._page_idx:
                self._emit_page_figures()
                self._page_idx = chunk.page_idx
            self._enter_section(chunk)
            if not self._left_out(chunk):
                self._package_chunk(position, chunk)
        self._emit_page_figures()
        self._flush_section_text()
        return self.chunks

    # ------------------------------------------------------------ MinerU items

    def _block_id(self, item: int) -> str:
        page_idx, position, _ = self.items[item]
        return f"p{page_idx + 1}_b{position}"

    def _page_no(self, item: int) -> int:
        return self.items[item][0] + 1

    def _item(self, item: int) -> LayoutItem:
        return self.items[item][2]

    def _kind(self, item: int) -> str:
        return self._item(item).kind

    def _caption(self, item: int) -> str:
        return _joined(self._item(item).caption)

    def _footnote(self, item: int) -> str:
        return _joined(self._item(item).footnote)

    def _image(self, item: int) -> ResolvedImage:
        reference = self._item(item).image or ""
        image = resolve_image(reference, self.raw_dir, self.project_root)
        if image.problem:
            self.report.missing_image(self._block_id(item), self._kind(item), reference, image.problem)
        return image

    def _count_noise(self) -> None:
        """Page furniture the normaliser left out of every chunk (a one-off "header" it kept is body text)."""
        for index, (_page_idx, _position, item) in self.items.items():
            if item.removed and item.kind in NOISE_KINDS:
                self.stats.noise[item.kind] += 1
                self.report.skipped(self._block_id(index), item.kind, "noise block skipped")

    # ------------------------------------------------------------ sections

    def _enter_section(self, chunk: Chunk) -> None:
        key = tuple(chunk.heading_path)
        if key == self._section_key:
            return
        self._flush_section_text()
        self._last_table = None  # a table never continues across a section boundary
        self._section_key = key
        title = clean_section_title(chunk.heading_path[-1]) if chunk.heading_path else ""
        if title != self.section_title and is_low_value_section(title):
            self.stats.low_value_sections += 1
        self.section_title = title

    def _left_out(self, chunk: Chunk) -> bool:
        """Count and report an artifact chunk that gives no package chunk because of its section."""
        if is_low_value_section(self.section_title):
            reason = f"inside low-value section '{self.section_title}'"
        elif chunk.kind == "text" and self._is_contents(chunk):
            self.stats.low_value_sections += 1
            reason = "table of contents"
        else:
            return False
        self.stats.low_value_blocks += 1
        self.low_value_chunks.append(chunk.chunk_id)
        self.report.skipped(chunk.chunk_id, chunk.kind, reason)
        return True

    def _is_contents(self, chunk: Chunk) -> bool:
        kinds = {self._kind(item) for item in chunk.source_items}
        return "index" in kinds or bool(chunk.source_items) and set(chunk.page_idxs) <= self._contents

    # ------------------------------------------------------------ chunks

    def _package_chunk(self, position: int, chunk: Chunk) -> None:
        items = chunk.source_items
        if chunk.kind == "table" or (items and all(self._kind(item) == "table" for item in items)):
            self._add_table(position, chunk)
            return
        # A figure chunk's text (caption, words inside it) goes into its figure chunk.
        own_text = chunk.kind not in _FIGURE_KINDS and bool(chunk.text.strip())
        if own_text:
            self._add_text(chunk.page_no, (position, 0, 0), chunk.text)
        # Pictures and formulas: a figure, a caption-less picture in a text chunk, a display formula.
        for offset, item in enumerate(items):
            kind = self._kind(item)
            if kind in _FIGURE_KINDS:
                nearby = head(chunk.text) if own_text else figure_nearby_text(self.chunks_in, position)
                self._hold_figure(position, chunk, offset, nearby=nearby)
            elif kind == "equation_interline":
                self._add_formula(position, chunk, offset)

    def _add_text(self, page_no: int, order: Order, text: str) -> None:
        self._section_text.append(TextBlock(page_no, order[:2], text))

    def _flush_section_text(self) -> None:
        """Pack the text gathered so far. Called at a section's end and before a table, figure or
        formula, so text never flows around one (nothing sorts inside a paragraph split at a sentence)."""
        for draft in pack_text_blocks(self._section_text):
            self.chunks.append(RagChunk(draft.page_no, "text", self.section_title, draft.text, (*draft.order, 0)))
        self._section_text = []

    def _emit(
        self,
        page_no: int,
        content_type: str,
        text: str,
        order: Order,
        image_path: str = "",
        split_info: dict[str, object] | None = None,
        section_title: str | None = None,
    ) -> RagChunk:
        section = self.section_title if section_title is None else section_title
        self.chunks.append(RagChunk(page_no, content_type, section, text, order, image_path, split_info))
        return self.chunks[-1]

    # ------------------------------------------------------------ tables

    def _add_table(self, position: int, chunk: Chunk) -> None:
        self._flush_section_text()
        item = chunk.source_items[0]
        caption, footnote = self._caption(item), self._footnote(item)
        image = self._image(item)
        table = parse_html_table(chunk.table_html) if chunk.table_html else ParsedTable([], [])
        previous = self._continued_table(chunk.page_no, caption, table)
        table = _carry_header_forward(chunk.table_html or "", table, previous)
        columns, header_row = table.columns, table.first_row  # as read, before any plain-text fallback
        if not table.has_content:
            # No cells: the body MinerU gave as laid-out text, or the text layer's inside the table's box.
            table = plain_text_table(self._table_body(chunk.text, item))
        title = caption or (f"{previous.title} (continued)" if previous else "")
        parts = self._emit_table(position, chunk, item, title, footnote, table, image)
        if not parts:
            return
        if previous is not None:
            parts[0].continues = previous.chunk
        name = (previous.title if previous else caption) or f"(untitled table on page {chunk.page_no})"
        self._last_table = _LastTable(chunk.page_no, table.width, columns, header_row, name, parts[-1])

    def _continued_table(self, page_no: int, caption: str, table: ParsedTable) -> _LastTable | None:
        previous = self._last_table
        if previous is None or page_no != previous.page_no + 1:
            return None
        if caption:  # a table with a title of its own continues only when the title says so
            return previous if _CONTINUED.search(caption) else None
        return previous if table.width and table.width == previous.width else None

    def _emit_table(
        self,
        position: int,
        chunk: Chunk,
        item: int,
        caption: str,
        footnote: str,
        table: ParsedTable,
        image: ResolvedImage,
    ) -> list[RagChunk]:
        page_no = chunk.page_no
        if table.has_content:
            return [
                self._emit(
                    page_no, "table", part.text, (position, 0, part.split_index), image.path, _split_info(chunk, part)
                )
                for part in table_parts(caption, footnote, table, page_no=page_no)
            ]
        if image.path:
            text = image_only_table_text(caption, footnote, page_no=page_no)
            return [self._emit(page_no, "table", text, (position, 0, 0), image.path)]
        self.stats.empty_tables += 1
        self.report.skipped(self._block_id(item), "table", "empty table content and no valid image")
        return []

    # ------------------------------------------------------------ figures

    def _hold_figure(self, position: int, chunk: Chunk, offset: int, *, nearby: str) -> None:
        self.stats.figure_blocks += 1
        item = chunk.source_items[offset]
        caption = self._caption(item)
        number = figure_number(caption)
        if not nearby and number:
            nearby = citing_text(self.chunks_in, chunk.page_idx, number)
        inner = self._item(item).figure_text or ""
        page_no = self._page_no(item)
        tier = classify_figure(caption, nearby)
        if tier is not FigureTier.WEAK:
            self._flush_section_text()
        self._page_figures.append(
            _FigureCandidate(
                item,
                (position, offset, 0),
                page_no,
                self.section_title,
                caption,
                self._footnote(item),
                inner.strip(),
                nearby,
                self._image(item),
                tier,
            )
        )

    def _emit_page_figures(self) -> None:
        for figure in self._formal_figures_with_subfigures(self._page_figures):
            self._emit_figure(figure)
        self._page_figures = []

    def _formal_figures_with_subfigures(self, figures: list[_FigureCandidate]) -> list[_FigureCandidate]:
        """The page's formal figures, each holding its subfigures; weak figures and orphan panels are skipped."""
        formal = [figure for figure in figures if figure.tier is FigureTier.FORMAL]
        for figure in figures:
            if figure.tier is FigureTier.WEAK:
                self._skip_figure(figure, "weak figure: no figure number, and too little caption or adjacent text")
            elif figure.tier is FigureTier.SUBFIGURE and not formal:
                self._skip_figure(figure, "subfigure label without a formal figure on the same page")
            elif figure.tier is FigureTier.SUBFIGURE:
                # The nearest formal figure by reading order; a tie goes to the earlier one.
                here = figure.order
                parent = min(formal, key=lambda other: (_distance(other.order, here), other.order > here))
                parent.subfigures.append(figure)
                self._keep_figure_text(figure)
                self.stats.subfigures_merged += 1
        return formal

    def _skip_figure(self, figure: _FigureCandidate, reason: str) -> None:
        self.stats.weak_figures += 1
        self.report.skipped(self._block_id(figure.item), self._kind(figure.item), reason)
        self._keep_figure_text(figure)

    def _keep_figure_text(self, figure: _FigureCandidate) -> None:
        """The document's own words inside a figure that gets no chunk of its own stay retrievable."""
        if figure.inner_text:
            self._section_text.append(TextBlock(figure.page_no, figure.order[:2], figure.inner_text))

    def _emit_figure(self, figure: _FigureCandidate) -> None:
        labels = [f"{sub.caption} ({sub.image.path or 'image missing'})" for sub in figure.subfigures]
        text, inner_complete = figure_chunk_text(
            caption=" ".join(part for part in (figure.caption, figure.footnote) if part),
            nearby_text=figure.nearby_text,
            inner_text=figure.inner_text,
            subfigure_labels=labels,
            page_no=figure.page_no,
            image_path=figure.image.path,
        )
        if not inner_complete:
            self._keep_figure_text(figure)
        if figure.nearby_text and figure.nearby_text != figure.section_title:
            self.stats.figures_with_distinct_nearby_text += 1
        self._emit(figure.page_no, "figure", text, figure.order, figure.image.path, section_title=figure.section_title)

    # ------------------------------------------------------------ formulas

    def _add_formula(self, position: int, chunk: Chunk, offset: int) -> None:
        item = chunk.source_items[offset]
        image = self._image(item)
        printed, before, after = self._formula_in_chunk(chunk, offset)
        before = before or adjacent_text(self.chunks_in, position, "before")
        after = after or adjacent_text(self.chunks_in, position, "after")
        latex = self._item(item).latex
        if latex and latex.strip():
            heading = f"Formula: $$ {latex.strip()} $$"
        elif printed:
            heading = f"Formula (as printed in the PDF's text layer; no LaTeX was extracted): {printed}"
        elif image.path and (before or after):
            heading = "Formula (image only: no LaTeX was extracted)"
        else:
            self.stats.skipped_formulas += 1
            reason = "no adjacent text" if image.path else "no valid image"
            self.report.skipped(self._block_id(item), "equation_interline", f"formula without LaTeX and with {reason}")
            return
        labelled = [f"Text {side}: {words}" for side, words in (("before", before), ("after", after)) if words]
        page_no = self._page_no(item)
        self._flush_section_text()
        text = "\n".join([heading, *labelled, location_line(page_no, image.path)])
        self._emit(page_no, "formula", text, (position, offset, 0), image.path)

    def _formula_in_chunk(self, chunk: Chunk, offset: int) -> tuple[str, str, str]:
        """(the formula's characters, the text before it, the text after it) within its chunk.

        The chunk's text is its items' texts in order; the formula's characters (read from the text
        layer) are what lies between the items around it. "" where an item cannot be found (a
        paragraph cut at a run-in heading)."""
        text, cursor = chunk.text, 0
        spans: list[tuple[int, int] | None] = []
        for item in chunk.source_items:
            piece = "" if self._kind(item) == "equation_interline" else self._item(item).text
            found = text.find(piece, cursor) if piece else -1
            spans.append((found, found + len(piece)) if found >= 0 else None)
            if found >= 0:
                cursor = found + len(piece)
        known_before = [span for span in spans[:offset] if span is not None]
        known_after = [span for span in spans[offset + 1 :] if span is not None]
        start = known_before[-1][1] if known_before else 0
        end = known_after[0][0] if known_after else len(text)
        whole_gap = all(span is not None for span in spans[:offset]) and all(
            span is not None or self._kind(item) == "equation_interline"
            for span, item in zip(spans[offset + 1 :], chunk.source_items[offset + 1 :])
        )
        printed = text[start:end].strip() if whole_gap and start <= end else ""
        before = tail(text[:start].strip()) if start else ""
        after = head(text[end:].strip()) if end < len(text) else ""
        return printed, before, after

    def _table_body(self, text: str, item: int) -> str:
        """A cell-less table chunk's text without its caption and footnote lines."""
        for line in self._item(item).caption:
            if line and text.startswith(line):
                text = text[len(line) :].lstrip("\n")
        for line in reversed(self._item(item).footnote):
            if line and text.endswith(line):
                text = text[: -len(line)].rstrip("\n")
        return text


def _joined(lines: list[str]) -> str:
    """A caption's or footnote's lines, joined by spaces."""
    return " ".join(line.strip() for line in lines if line)


def _distance(a: Order, b: Order) -> tuple[int, int]:
    return (abs(a[0] - b[0]), abs(a[1] - b[1]))


def _same_cells(row: list[str], header: list[str]) -> bool:
    """Does `row` repeat `header` (a continuation page that prints the header again)?"""
    pairs = [(a.casefold().split(), b.casefold().split()) for a, b in zip(row, header) if a.strip() or b.strip()]
    return bool(pairs) and sum(a == b for a, b in pairs) >= _HEADER_MATCH_SHARE * len(pairs)


def _carry_header_forward(html: str, table: ParsedTable, previous: _LastTable | None) -> ParsedTable:
    """A continuation with the previous columns but not their header: its first row is data, under that header."""
    if (
        previous is not None
        and table.width == previous.width
        and previous.columns
        and not _same_cells(table.first_row, previous.header_row)
    ):
        rows = parse_html_table(html, headerless=True)
        return ParsedTable(previous.columns, rows.rows, rows.width, first_row=previous.header_row)
    return table


def _split_info(chunk: Chunk, part: TablePart) -> dict[str, object] | None:
    """For the manifest: where a part of a table split at row boundaries belongs."""
    if part.total_splits <= 1:
        return None
    return dict(
        is_split=True, split_index=part.split_index, total_splits=part.total_splits, source_chunk_id=chunk.chunk_id
    )
