"""Text-layer lines MinerU lost, recovered verbatim from the PDF's own text layer.

The text-coverage measure (`quality.text_coverage`) lists the lines of the text layer that are
not in the chunks. Most pages lose none, or a line or two that is there in another shape (a
hyphenated word, a formula). Two losses are MinerU's own, and the lines are put back:
- a page that lost most of its lines (a table printed rotated, a notice in three columns read
  as one block, a page MinerU read nothing on): every lost line of the page;
- a table that lost rows (rows merged into one cell, header rows set on several lines): the
  lost lines inside the table's box.
A lost line whose words are mostly in the page's chunks already, three in a row, is not lost:
the text layer reads it in another layout (a notice in columns whose text-layer lines run across
them, a hyphenated word), and putting it back would say the page twice, garbled. Recovered
lines go in a text chunk of their own, as the text layer has them (verbatim, in its
order, one line a line), right after the table they belong to or the page's last chunk, in the
section open there. Such a chunk has no `source_items`: it is no MinerU item. A line the
furniture rule removed (a running header) is never put back, and what stays lost keeps its
`teks_hilang` warning.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from ..contracts import Chunk, make_chunk_id
from ..parsing.raw_output import RawOutput
from ..pdf_text import PdfTextLayer
from .furniture import running_furniture
from .item_text import ItemText

# A page whose lost lines are more than this share of its counted lines lost them to MinerU.
LOST_PAGE_SHARE = 0.5
# A line this share of whose word trigrams the page's chunks already hold is said already.
SAID_SHARE = 0.5
_WHOLE_PAGE = [0, 0, 1000, 1000]


def recovered_chunk_lines(chunk: Chunk, text_layer: PdfTextLayer) -> list[str]:
    """The text-layer lines of a recovered chunk's page, in page order, that the chunk holds:
    what its text must be made of (the verbatim check's pieces)."""
    held = set(chunk.text.split("\n"))
    return [line.text for line in text_layer.lines_in_box(chunk.page_idx, _WHOLE_PAGE) if line.text in held]


def recover_lost_lines(
    doc_id: str,
    chunks: list[Chunk],
    raw: RawOutput,
    texts: list[ItemText],
    text_layer: PdfTextLayer,
    lost: Mapping[int, Sequence[str]],
    counted: Mapping[int, int],
) -> list[Chunk]:
    """`chunks` with the recovered lines' chunks inserted, renumbered. `lost` maps a page to the
    text of its lost lines (as the coverage measure reports them), `counted` to how many of its
    lines the measure counts."""
    if not chunks:
        # Nothing read at all is the parse's failure to report (the not-empty check), not a page's loss.
        return chunks
    furniture_on: dict[int, list[int]] | None = None  # page -> its furniture items, made on first need
    # (chunk position, page) -> the page's lines to insert after that chunk
    after: dict[tuple[int, int], list[str]] = defaultdict(list)
    # Only pages MinerU was given: a page range leaves the others unread on purpose.
    parsed = set(raw.page_idxs)
    # Each page's chunks and the last chunk ending before it, indexed once: a long document
    # with many lossy pages is read in one pass, not once per page.
    chunks_on: dict[int, list[int]] = defaultdict(list)
    for n, read in enumerate(chunks):
        for page in read.page_idxs or [read.page_idx]:
            chunks_on[page].append(n)
    last_pages = [max(read.page_idxs or [read.page_idx]) for read in chunks]
    last_before = _last_ending_before(last_pages, max([raw.n_pages, *last_pages, *lost]) + 1)
    for page_idx, lost_lines in sorted(lost.items()):
        if page_idx not in parsed:
            continue
        on_page = chunks_on.get(page_idx, [])
        tables = [
            (n, box)
            for n in on_page
            if chunks[n].kind == "table" and chunks[n].page_idx == page_idx and (box := chunks[n].bbox)
        ]
        whole_page = len(lost_lines) > LOST_PAGE_SHARE * counted.get(page_idx, 0)
        # Reading a page's characters costs time: only pages that may give something back.
        if not (whole_page or tables):
            continue
        in_table = {line.text: n for n, box in tables for line in text_layer.lines_in_box(page_idx, box)}
        if furniture_on is None:
            furniture_on = defaultdict(list)
            for index in sorted(running_furniture(raw.items, texts, raw.n_pages)[0]):
                furniture_on[raw.items[index]["page_idx"]].append(index)
        removed = {
            line.text
            for index in furniture_on.get(page_idx, [])
            if (box := raw.items[index].get("bbox"))
            for line in text_layer.lines_in_box(page_idx, box)
        }
        said = _trigrams(" ".join(chunks[n].text for n in on_page))
        # After the page's last chunk that ends on it (one running on would put the lines after
        # the next page's text); when every chunk on it runs on, before the first of them.
        ending = [n for n in on_page if last_pages[n] == page_idx]
        if ending:
            page_end = ending[-1]
        elif on_page:
            page_end = on_page[0] - 1
        else:  # MinerU read nothing on the page: after the pages before it
            page_end = last_before[page_idx]
        for line in text_layer.lines_in_box(page_idx, _WHOLE_PAGE):
            if line.text in removed or not _is_lost(line.text, lost_lines) or _said_already(line.text, said):
                continue
            if line.text in in_table:
                after[in_table[line.text], page_idx].append(line.text)
            elif whole_page:
                after[page_end, page_idx].append(line.text)
    if not after:
        return chunks
    inserted: dict[int, list[tuple[int, list[str]]]] = defaultdict(list)  # position -> (page, lines), by page
    for (at, page_idx), lines in sorted(after.items()):
        inserted[at].append((page_idx, lines))
    out: list[Chunk] = []
    for n, chunk in enumerate([None, *chunks], start=-1):
        if chunk is not None:
            out.append(chunk)
        anchor = chunk or chunks[0]
        out += [_recovered(anchor, lines, page_idx) for page_idx, lines in inserted.get(n, [])]
    return [chunk.model_copy(update={"chunk_id": make_chunk_id(doc_id, seq)}) for seq, chunk in enumerate(out)]


def _last_ending_before(last_pages: list[int], n_pages: int) -> list[int]:
    """For each page, the position of the last chunk that ends before it (-1: none), from each
    chunk's last page: a running maximum over the pages, so every page is answered at once."""
    ending_on = [-1] * (n_pages + 1)
    for n, last in enumerate(last_pages):
        if last < n_pages:
            ending_on[last + 1] = max(ending_on[last + 1], n)
    for page in range(1, n_pages + 1):
        ending_on[page] = max(ending_on[page], ending_on[page - 1])
    return ending_on


def _is_lost(line: str, lost_lines: Sequence[str]) -> bool:
    # The measure cuts a line of more than 40 words (a rotated page) into pieces of 10 words.
    spaced = " ".join(line.split())
    return any(lost == line or (lost and lost in spaced) for lost in lost_lines)


def _trigrams(text: str) -> set[tuple[str, ...]]:
    words = text.split()
    return set(zip(words, words[1:], words[2:]))


def _said_already(line: str, said: set[tuple[str, ...]]) -> bool:
    grams = _trigrams(line)
    return bool(grams) and sum(g in said for g in grams) >= SAID_SHARE * len(grams)


def _recovered(anchor: Chunk, lines: list[str], page_idx: int) -> Chunk:
    return Chunk(
        chunk_id=anchor.chunk_id,  # renumbered by the caller
        doc_id=anchor.doc_id,
        kind="text",
        text="\n".join(lines),
        page_idx=page_idx,
        page_idxs=[page_idx],
        section_no=anchor.section_no,
        heading=anchor.heading,
        chapters=anchor.chapters,
        heading_path=anchor.heading_path,
    )
