"""Walking a document's blocks in reading order and turning them into chunks.

Two phases per page: every block of the page is already in one list, so figure and formula
context comes from real neighbours by list position; figures of a page are classified as
they come and resolved when the page ends, since a subfigure's parent may follow it.

Block handling:
- ``title`` sets the section; a low-value title (Contents, List of Figures/Tables,
  revision history, ``Rev. X``) skips every content block until the next title;
- ``page_header``/``page_footer``/``page_number``/``page_aside_text`` are noise: skipped, counted;
- ``paragraph``, ``list``, ``page_footnote``, ``code``, ``algorithm`` are text, packed per
  section (a section's text chunk may span pages; its page_no is its first page);
- ``table`` → one chunk, or row-boundary parts; an empty table without an image is skipped.
  A table on the page after the previous table, in the same section, continues it when its
  caption says so ("Continued", "cont.") or, having no caption, it has the same column count.
  The link goes to the manifest (``continues``); when the columns match and its first row does
  not repeat the previous header, that header is carried forward, so the first data row is not
  read as one, and an uncaptioned continuation takes the previous title "(continued)";
- ``image``/``chart`` → figure (formal / subfigure merged / weak skipped), described by its
  caption and adjacent paragraphs, or by the sentences citing it when it has no neighbours;
- ``equation_interline`` → formula chunk. MinerU flash gives ``math_content`` "" and only an
  image; such a formula becomes a chunk only if the image exists and there is adjacent text
  to describe it (text before and after, labelled), since an image with no words is
  unretrievable. A formula with neither LaTeX nor that is skipped and logged;
- ``index`` (a table of contents) is skipped as a low-value section; other types are
  reported as unsupported.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .chunk import Chunk, location_line
from .content_list import Block
from .error_report import ErrorReport
from .figure_classification import FigureTier, classify_figure, figure_chunk_text, figure_number
from .html_table import ParsedTable, parse_html_table, plain_text_table
from .image_paths import ResolvedImage, resolve_image
from .metrics import NOISE_KINDS, PackagingStats
from .nearby_text import adjacent_text, citing_text, figure_nearby_text
from .sections import is_low_value_section
from .structure import DocumentStructure
from .table_chunking import image_only_table_text, table_parts
from .text_chunking import TextBlock, pack_text_blocks
from .text_cleaning import clean_section_title

_TEXT_KINDS = frozenset({"paragraph", "list", "page_footnote", "code", "algorithm"})
_FIGURE_KINDS = frozenset({"image", "chart"})
_SUPPORTED_KINDS = _TEXT_KINDS | _FIGURE_KINDS | {"table", "equation_interline", "index"}


_CONTINUED = re.compile(
    r"\bcontinued\b|\bcont(?:'d\b|\.)|\(\s*suite\s*\)|\bfortsetzung\b|\(\s*forts\.|\blanjutan\b", re.IGNORECASE
)
_HEADER_MATCH_SHARE = 0.8


@dataclass
class _LastTable:
    """The table most recently packaged, which a table on the next page may continue."""

    page_no: int
    width: int  # 0 when unknown (a body that is laid-out text)
    columns: list[str]  # the header as the package writes it ("Columns: …")
    header_row: list[str]  # the header's first row as printed, to recognise a repeated header
    title: str  # without any "(continued)"
    chunk: Chunk  # its last chunk


def _same_cells(row: list[str], header: list[str]) -> bool:
    """Does `row` repeat `header` (a continuation page that prints the header again)?"""

    def norm(cell: str) -> str:
        return " ".join(cell.casefold().split())

    pairs = [(norm(a), norm(b)) for a, b in zip(row, header) if a.strip() or b.strip()]
    return bool(pairs) and sum(a == b for a, b in pairs) >= _HEADER_MATCH_SHARE * len(pairs)


@dataclass
class _FigureCandidate:
    block: Block
    order: tuple[int, int, int]
    position: int
    section_title: str
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
        self.chunks: list[Chunk] = []
        self.section_title = ""
        self.document_title = ""
        self._in_low_value_section = False
        self._last_table: _LastTable | None = None
        self._section_text: list[TextBlock] = []
        self._pages: list[list[Block]] = []

    def package(self, pages: list[list[Block]]) -> list[Chunk]:
        self._pages = pages
        for page_position, page in enumerate(pages):
            figures: list[_FigureCandidate] = []
            for position, block in enumerate(page):
                self._handle(page, page_position, position, block, figures)
            self._resolve_figures(figures)
        self._flush_text()
        return self.chunks

    # ------------------------------------------------------------ dispatch

    def _handle(
        self, page: list[Block], page_position: int, position: int, block: Block, figures: list[_FigureCandidate]
    ) -> None:
        order = (page_position, position, 0)
        known_section = self.structure.section_titles.get((block.page_no, block.index))
        if known_section and block.kind != "title" and clean_section_title(known_section) != self.section_title:
            # The artifact placed this block in a section the content list has no title for
            # (a heading MinerU read as a paragraph).
            self._enter_section(clean_section_title(known_section), block)
        if block.kind in NOISE_KINDS:
            self.stats.noise[block.kind] += 1
            self.report.skipped(block, "noise block skipped")
        elif block.kind == "title":
            self._start_section(block)
        elif block.kind not in _SUPPORTED_KINDS:
            self.report.unsupported(block)
        elif self._in_low_value_section:
            self.stats.low_value_blocks += 1
            self.report.skipped(block, f"inside low-value section '{self.section_title}'")
        elif block.kind == "index":
            self.stats.low_value_sections += 1
            self.report.skipped(block, "table of contents (index block)")
        elif block.kind in _TEXT_KINDS:
            self._add_text(block, order)
        elif block.kind == "table":
            self._add_table(block, order)
        elif block.kind in _FIGURE_KINDS:
            figures.append(self._figure_candidate(page, position, block, order))
        else:
            self._add_formula(page, position, block, order)

    def _start_section(self, block: Block) -> None:
        title = clean_section_title(block.text)
        if not title:
            self.report.skipped(block, "empty title")
            return
        self._enter_section(title, block)

    def _enter_section(self, title: str, block: Block) -> None:
        self._flush_text()
        self._last_table = None  # a table never continues across a section boundary
        self.document_title = self.document_title or title
        self.section_title = title
        self._in_low_value_section = is_low_value_section(title)
        if self._in_low_value_section:
            self.stats.low_value_sections += 1
            self.report.skipped(block, f"low-value section '{title}' skipped until the next title")

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
    ) -> None:
        self.chunks.append(
            Chunk(
                page_no=block.page_no,
                content_type=content_type,
                section_title=self.section_title if section_title is None else section_title,
                chunk_text=text,
                order=order,
                image_path=image_path,
                split_info=split_info,
            )
        )

    # ------------------------------------------------------------ text

    def _add_text(self, block: Block, order: tuple[int, int, int]) -> None:
        text = "\n".join(part for part in (block.caption, block.text, block.footnote) if part)
        if not text.strip():
            self.report.skipped(block, "no extractable text")
            return
        self._section_text.append(TextBlock(block.page_no, order[:2], text))

    def _flush_text(self) -> None:
        for draft in pack_text_blocks(self._section_text):
            self.chunks.append(Chunk(draft.page_no, "text", self.section_title, draft.text, (*draft.order, 0)))
        self._section_text = []

    # ------------------------------------------------------------ tables

    def _continued(self, block: Block, table: ParsedTable) -> _LastTable | None:
        """The table `block` continues, if any (see the module docstring)."""
        previous = self._last_table
        if previous is None or block.page_no != previous.page_no + 1:
            return None
        if _CONTINUED.search(block.caption):
            return previous
        if block.caption:
            return None  # a table with a title of its own
        return previous if table.width and table.width == previous.width else None

    def _add_table(self, block: Block, order: tuple[int, int, int]) -> None:
        image = self._image(block)
        table = parse_html_table(block.html)
        previous = self._continued(block, table)
        columns, header_row = table.columns, table.first_row if table.columns else []
        if (
            previous is not None
            and table.width == previous.width
            and previous.columns
            and not _same_cells(table.first_row, previous.header_row)
        ):
            # The first row is data: read every row as data, under the previous header.
            table = parse_html_table(block.html, headerless=True)
            table = ParsedTable(previous.columns, table.rows, table.width, table.first_row)
            columns, header_row = previous.columns, previous.header_row
        if not table.has_content:
            table = plain_text_table(block.html)
        base_title = previous.title if previous else block.caption
        caption = block.caption or (f"{previous.title} (continued)" if previous else "")
        emitted: list[Chunk] = []
        if not table.has_content:
            if not image.path:
                self.stats.empty_tables += 1
                self.report.skipped(block, "empty table content and no valid image")
                return
            text = image_only_table_text(caption, block.footnote, page_no=block.page_no)
            self._emit(block, "table", text, order, image.path)
            emitted.append(self.chunks[-1])
        else:
            for part in table_parts(caption, block.footnote, table, page_no=block.page_no):
                split_info = None
                if part.total_splits > 1:
                    split_info = {
                        "is_split": True,
                        "split_index": part.split_index,
                        "total_splits": part.total_splits,
                        "source_block_id": block.block_id,
                    }
                self._emit(block, "table", part.text, (*order[:2], part.split_index), image.path, split_info)
                emitted.append(self.chunks[-1])
        if previous is not None:
            emitted[0].continues = previous.chunk
        self._last_table = _LastTable(
            block.page_no,
            table.width,
            columns,
            header_row,
            base_title or f"(untitled table on page {block.page_no})",
            emitted[-1],
        )

    # ------------------------------------------------------------ figures

    def _figure_candidate(
        self, page: list[Block], position: int, block: Block, order: tuple[int, int, int]
    ) -> _FigureCandidate:
        self.stats.figure_blocks += 1
        nearby = figure_nearby_text(page, position)
        number = figure_number(block.caption)
        if not nearby and number:
            nearby = citing_text(self._pages, order[0], number)
        return _FigureCandidate(
            block=block,
            order=order,
            position=position,
            section_title=self.section_title,
            nearby_text=nearby,
            image=self._image(block),
            tier=classify_figure(block.caption, nearby),
        )

    def _resolve_figures(self, figures: list[_FigureCandidate]) -> None:
        formal = [figure for figure in figures if figure.tier is FigureTier.FORMAL]
        for figure in figures:
            if figure.tier is FigureTier.WEAK:
                self.stats.weak_figures += 1
                self.report.skipped(
                    figure.block, "weak figure: no figure number, and too little caption or adjacent text"
                )
            elif figure.tier is FigureTier.SUBFIGURE:
                if not formal:
                    self.stats.weak_figures += 1
                    self.report.skipped(figure.block, "subfigure label without a formal figure on the same page")
                    continue
                # Nearest formal figure on the page by block distance; a tie goes to the earlier one.
                parent = min(
                    formal, key=lambda other: (abs(other.position - figure.position), other.position > figure.position)
                )
                parent.subfigures.append(figure)
                self.stats.subfigures_merged += 1
        for figure in formal:
            block = figure.block
            labels = [f"{sub.block.caption} ({sub.image.path or 'image missing'})" for sub in figure.subfigures]
            caption = " ".join(part for part in (block.caption, block.footnote) if part)
            text = figure_chunk_text(
                caption=caption,
                nearby_text=figure.nearby_text,
                inner_text=block.inner_text,
                subfigure_labels=labels,
                page_no=block.page_no,
                image_path=figure.image.path,
            )
            if figure.nearby_text and figure.nearby_text != figure.section_title:
                self.stats.figures_with_distinct_nearby_text += 1
            self._emit(block, "figure", text, figure.order, figure.image.path, section_title=figure.section_title)

    # ------------------------------------------------------------ formulas

    def _add_formula(self, page: list[Block], position: int, block: Block, order: tuple[int, int, int]) -> None:
        image = self._image(block)
        before = adjacent_text(page, position, "before")
        after = adjacent_text(page, position, "after")
        text_layer = self.structure.formula_texts.get((block.page_no, block.index))
        if block.latex:
            lines = [f"Formula: $$ {block.latex} $$"]
        elif text_layer:
            lines = [f"Formula (as printed in the PDF's text layer; no LaTeX was extracted): {text_layer}"]
        elif image.path and (before or after):
            lines = ["Formula (image only: no LaTeX was extracted)"]
        else:
            self.stats.skipped_formulas += 1
            reason = "no adjacent text" if image.path else "no valid image"
            self.report.skipped(block, f"formula without LaTeX and with {reason}")
            return
        if before:
            lines.append(f"Text before: {before}")
        if after:
            lines.append(f"Text after: {after}")
        lines.append(location_line(block.page_no, image.path))
        self._emit(block, "formula", "\n".join(lines), order, image.path)
