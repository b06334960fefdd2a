"""Walking a document's blocks in reading order and turning them into chunks.

Every block of a page is in one list, so figure and formula context comes from real neighbours by
list position; a page's figures are resolved when the page ends, since a subfigure's parent may follow it.

- ``title`` sets the section; a low-value title (Contents, List of Figures/Tables, revision
  history, ``Rev. X``) skips every content block until the next title;
- ``page_header``/``page_footer``/``page_number``/``page_aside_text`` are noise: skipped, counted;
- ``paragraph``, ``list``, ``page_footnote``, ``code``, ``algorithm`` are text, packed per
  section (a section's text chunk may span pages; its page_no is its first page);
- ``table`` → one chunk, or row-boundary parts; an empty table without an image is skipped.
  A table on the page after the previous one, in the same section, continues it (``continues`` in
  the manifest) when its caption says so ("Continued", "cont.") or, uncaptioned, it has the same
  column count; uncaptioned, it takes the previous title "(continued)"; with the same columns but
  not the previous header, it is read under that header (its first row is data, not a header);
- ``image``/``chart`` → figure (formal / subfigure merged / weak skipped), described by its
  caption and adjacent paragraphs, or by the sentences citing it when it has no neighbours;
- ``equation_interline`` → formula chunk. MinerU flash gives only an image (``math_content`` ""):
  it becomes a chunk only with adjacent text to describe it (labelled), since an image with no
  words is unretrievable; a formula with neither LaTeX nor that is skipped and logged;
- ``index`` (a table of contents) is skipped as a low-value section; other types are unsupported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .chunk import RagChunk, location_line
from .content_list import Block
from .error_report import ErrorReport
from .figure_classification import FigureTier, classify_figure, figure_chunk_text, figure_number
from .html_table import ParsedTable, parse_html_table, plain_text_table
from .image_paths import ResolvedImage, resolve_image
from .metrics import NOISE_KINDS, PackagingStats
from .nearby_text import adjacent_text, citing_text, figure_nearby_text
from .sections import is_low_value_section
from .structure import DocumentStructure
from .table_chunking import TablePart, image_only_table_text, table_parts
from .text_chunking import TextBlock, pack_text_blocks
from .text_cleaning import clean_section_title

_TEXT_KINDS = frozenset({"paragraph", "list", "page_footnote", "code", "algorithm"})
_FIGURE_KINDS = frozenset({"image", "chart"})
_SUPPORTED_KINDS = _TEXT_KINDS | _FIGURE_KINDS | {"table", "equation_interline", "index"}

_CONTINUED = re.compile(
    r"\bcontinued\b|\bcont(?:'d\b|\.)|\(\s*suite\s*\)|\bfortsetzung\b|\(\s*forts\.|\blanjutan\b", re.IGNORECASE
)
_HEADER_MATCH_SHARE = 0.8


@dataclass(frozen=True)
class _BlockAt:
    """A block with its page (whose list positions give its real neighbours) and its place in reading order."""

    page: list[Block]
    page_position: int
    position: int

    @property
    def block(self) -> Block:
        return self.page[self.position]

    def order(self, part: int = 0) -> tuple[int, int, int]:
        return (self.page_position, self.position, part)


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
    at: _BlockAt
    section_title: str  # the section it was found in: the page may start another before figures are emitted
    nearby_text: str
    image: ResolvedImage
    tier: FigureTier
    subfigures: list[_FigureCandidate] = field(default_factory=list)


class DocumentPackager:
    def __init__(
        self, input_dir: Path, project_root: Path, report: ErrorReport, structure: DocumentStructure | None = None
    ) -> None:
        self.input_dir = input_dir
        self.project_root = project_root
        self.report = report
        self.structure = structure or DocumentStructure()
        self.stats = PackagingStats()
        self.chunks: list[RagChunk] = []
        self.document_title = ""
        self.section_title = ""
        self._pages: list[list[Block]] = []
        self._in_low_value_section = False
        self._section_text: list[TextBlock] = []  # packed into text chunks when the section ends
        self._last_table: _LastTable | None = None  # the table a table on the next page may continue
        self._page_figures: list[_FigureCandidate] = []  # emitted when the page ends

    def package(self, pages: list[list[Block]]) -> list[RagChunk]:
        self._pages = pages
        for page_position, page in enumerate(pages):
            for position in range(len(page)):
                self._package_block(_BlockAt(page, page_position, position))
            self._emit_page_figures()
        self._flush_section_text()
        return self.chunks

    def _package_block(self, at: _BlockAt) -> None:
        block = at.block
        self._follow_known_section(block)
        if block.kind == "title":
            self._start_section(block)
        elif self._left_out(block):
            pass  # counted and reported
        elif block.kind in _TEXT_KINDS:
            self._add_text(at)
        elif block.kind == "table":
            self._add_table(at)
        elif block.kind in _FIGURE_KINDS:
            self._hold_figure(at)
        else:
            self._add_formula(at)

    def _left_out(self, block: Block) -> bool:
        """Count and report a block that gives no chunk because of its kind or its section."""
        if block.kind in NOISE_KINDS:
            self.stats.noise[block.kind] += 1
            self.report.skipped(block, "noise block skipped")
        elif block.kind not in _SUPPORTED_KINDS:
            self.report.unsupported(block)
        elif self._in_low_value_section:
            self.stats.low_value_blocks += 1
            self.report.skipped(block, f"inside low-value section '{self.section_title}'")
        elif block.kind == "index":
            self.stats.low_value_sections += 1
            self.report.skipped(block, "table of contents (index block)")
        else:
            return False
        return True

    def _image(self, block: Block) -> ResolvedImage:
        image = resolve_image(block.image_ref, self.input_dir, self.project_root)
        if image.problem:
            self.report.missing_image(block, image.problem)
        return image

    def _emit(
        self,
        block: Block,
        content_type: str,
        text: str,
        order: tuple[int, int, int],
        image_path: str = "",
        split_info: dict[str, object] | None = None,
        section_title: str | None = None,
    ) -> RagChunk:
        section = self.section_title if section_title is None else section_title
        self.chunks.append(RagChunk(block.page_no, content_type, section, text, order, image_path, split_info))
        return self.chunks[-1]

    def _follow_known_section(self, block: Block) -> None:
        # The artifact may know sections the content list has no title for (headings MinerU read as paragraphs).
        known = self.structure.section_titles.get((block.page_no, block.index))
        if known and block.kind != "title" and clean_section_title(known) != self.section_title:
            self._enter_section(clean_section_title(known), block)

    def _start_section(self, block: Block) -> None:
        if title := clean_section_title(block.text):
            self._enter_section(title, block)
        else:
            self.report.skipped(block, "empty title")

    def _enter_section(self, title: str, block: Block) -> None:
        self._flush_section_text()
        self._last_table = None  # a table never continues across a section boundary
        self.document_title = self.document_title or title
        self.section_title = title
        self._in_low_value_section = is_low_value_section(title)
        if self._in_low_value_section:
            self.stats.low_value_sections += 1
            self.report.skipped(block, f"low-value section '{title}' skipped until the next title")

    # ------------------------------------------------------------ text

    def _add_text(self, at: _BlockAt) -> None:
        block = at.block
        text = "\n".join(part for part in (block.caption, block.text, block.footnote) if part)
        if text.strip():
            self._section_text.append(TextBlock(block.page_no, (at.page_position, at.position), text))
        else:
            self.report.skipped(block, "no extractable text")

    def _flush_section_text(self) -> None:
        for draft in pack_text_blocks(self._section_text):
            self.chunks.append(RagChunk(draft.page_no, "text", self.section_title, draft.text, (*draft.order, 0)))
        self._section_text = []

    # ------------------------------------------------------------ tables

    def _add_table(self, at: _BlockAt) -> None:
        block = at.block
        image = self._image(block)
        table = parse_html_table(block.html)
        previous = self._continued_table(block, table)
        table = _carry_header_forward(block, table, previous)
        columns, header_row = table.columns, table.first_row  # as read, before any plain-text fallback
        if not table.has_content:
            table = plain_text_table(block.html)
        caption = block.caption or (f"{previous.title} (continued)" if previous else "")
        chunks = self._emit_table(at, caption, table, image)
        if not chunks:
            return
        if previous is not None:
            chunks[0].continues = previous.chunk
        title = (previous.title if previous else block.caption) or f"(untitled table on page {block.page_no})"
        self._last_table = _LastTable(block.page_no, table.width, columns, header_row, title, chunks[-1])

    def _continued_table(self, block: Block, table: ParsedTable) -> _LastTable | None:
        previous = self._last_table
        if previous is None or block.page_no != previous.page_no + 1:
            return None
        if block.caption:  # a table with a title of its own continues only when the title says so
            return previous if _CONTINUED.search(block.caption) else None
        return previous if table.width and table.width == previous.width else None

    def _emit_table(self, at: _BlockAt, caption: str, table: ParsedTable, image: ResolvedImage) -> list[RagChunk]:
        block = at.block
        if table.has_content:
            return [
                self._emit(block, "table", part.text, at.order(part.split_index), image.path, _split_info(block, part))
                for part in table_parts(caption, block.footnote, table, page_no=block.page_no)
            ]
        if image.path:
            text = image_only_table_text(caption, block.footnote, page_no=block.page_no)
            return [self._emit(block, "table", text, at.order(), image.path)]
        self.stats.empty_tables += 1
        self.report.skipped(block, "empty table content and no valid image")
        return []

    # ------------------------------------------------------------ figures

    def _hold_figure(self, at: _BlockAt) -> None:
        self.stats.figure_blocks += 1
        # Adjacent paragraphs; for a numbered figure with none, the sentences that cite it.
        nearby = figure_nearby_text(at.page, at.position)
        number = figure_number(at.block.caption)
        if not nearby and number:
            nearby = citing_text(self._pages, at.page_position, number)
        image, tier = self._image(at.block), classify_figure(at.block.caption, nearby)
        self._page_figures.append(_FigureCandidate(at, self.section_title, nearby, image, tier))

    def _emit_page_figures(self) -> None:
        for figure in self._formal_figures_with_subfigures(self._page_figures):
            self._emit_figure(figure)
        self._page_figures = []

    def _formal_figures_with_subfigures(self, figures: list[_FigureCandidate]) -> list[_FigureCandidate]:
        """The page's formal figures, each holding its subfigures; weak figures and orphan panels are skipped."""
        formal = [figure for figure in figures if figure.tier is FigureTier.FORMAL]
        for figure in figures:
            if figure.tier is FigureTier.WEAK:
                self.stats.weak_figures += 1
                self.report.skipped(
                    figure.at.block, "weak figure: no figure number, and too little caption or adjacent text"
                )
            elif figure.tier is FigureTier.SUBFIGURE and not formal:
                self.stats.weak_figures += 1
                self.report.skipped(figure.at.block, "subfigure label without a formal figure on the same page")
            elif figure.tier is FigureTier.SUBFIGURE:
                # The nearest formal figure by block distance; a tie goes to the earlier one.
                here = figure.at.position
                parent = min(formal, key=lambda other: (abs(other.at.position - here), other.at.position > here))
                parent.subfigures.append(figure)
                self.stats.subfigures_merged += 1
        return formal

    def _emit_figure(self, figure: _FigureCandidate) -> None:
        block = figure.at.block
        labels = [f"{sub.at.block.caption} ({sub.image.path or 'image missing'})" for sub in figure.subfigures]
        text = figure_chunk_text(
            caption=" ".join(part for part in (block.caption, block.footnote) if part),
            nearby_text=figure.nearby_text,
            inner_text=block.inner_text,
            subfigure_labels=labels,
            page_no=block.page_no,
            image_path=figure.image.path,
        )
        if figure.nearby_text and figure.nearby_text != figure.section_title:
            self.stats.figures_with_distinct_nearby_text += 1
        self._emit(block, "figure", text, figure.at.order(), figure.image.path, section_title=figure.section_title)

    # ------------------------------------------------------------ formulas

    def _add_formula(self, at: _BlockAt) -> None:
        block = at.block
        image = self._image(block)
        before = adjacent_text(at.page, at.position, "before")
        after = adjacent_text(at.page, at.position, "after")
        heading = self._formula_heading(block, image, has_adjacent_text=bool(before or after))
        if heading is None:
            self.stats.skipped_formulas += 1
            reason = "no adjacent text" if image.path else "no valid image"
            self.report.skipped(block, f"formula without LaTeX and with {reason}")
            return
        labelled = [f"Text {side}: {words}" for side, words in (("before", before), ("after", after)) if words]
        text = "\n".join([heading, *labelled, location_line(block.page_no, image.path)])
        self._emit(block, "formula", text, at.order(), image.path)

    def _formula_heading(self, block: Block, image: ResolvedImage, *, has_adjacent_text: bool) -> str | None:
        """None when nothing can describe the formula: an image alone, with no words, is unretrievable."""
        if block.latex:
            return f"Formula: $$ {block.latex} $$"
        if text_layer := self.structure.formula_texts.get((block.page_no, block.index)):
            return f"Formula (as printed in the PDF's text layer; no LaTeX was extracted): {text_layer}"
        if image.path and has_adjacent_text:
            return "Formula (image only: no LaTeX was extracted)"
        return None


def _same_cells(row: list[str], header: list[str]) -> bool:
    """Does `row` repeat `header` (a continuation page that prints the header again)?"""
    pairs = [(a.casefold().split(), b.casefold().split()) for a, b in zip(row, header) if a.strip() or b.strip()]
    return bool(pairs) and sum(a == b for a, b in pairs) >= _HEADER_MATCH_SHARE * len(pairs)


def _carry_header_forward(block: Block, table: ParsedTable, previous: _LastTable | None) -> ParsedTable:
    """A continuation with the previous columns but not their header: its first row is data, under that header."""
    if (
        previous is not None
        and table.width == previous.width
        and previous.columns
        and not _same_cells(table.first_row, previous.header_row)
    ):
        rows = parse_html_table(block.html, headerless=True)
        return ParsedTable(previous.columns, rows.rows, rows.width, first_row=previous.header_row)
    return table


def _split_info(block: Block, part: TablePart) -> dict[str, object] | None:
    """For the manifest: where a part of a table split at row boundaries belongs."""
    if part.total_splits <= 1:
        return None
    return dict(
        is_split=True, split_index=part.split_index, total_splits=part.total_splits, source_block_id=block.block_id
    )
