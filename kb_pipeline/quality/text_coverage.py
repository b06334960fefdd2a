"""How much of the PDF's own text layer made it into the artifact: nothing lost, made visible.

The measure mirrors the structure-quality corpus's coverage metric (`shared/corpus/score.py`),
so what the asset check reports is what the corpus scorer counts:

- The lines are the text layer's, page by page (pypdfium2, split on line breaks; a "line" of
  more than 40 words, as pdfium gives a rotated page, is cut into 10-word pieces).
- A line counts when it has at least 5 words and a letter, and is not running furniture: the
  same squashed line, leading and trailing page-number tokens removed, on 3 pages or more.
- *Squashed* = NFKC, typographic quotes and dashes as ASCII, dot leaders removed, soft hyphens,
  control, format and private-use characters and `|` (our table-cell separator) dropped, all
  white space removed; a line also loses one trailing hyphen.
- The haystack is the squashed concatenation, chunk by chunk, of `heading_path`, `text`, the
  table's cell text and `heading` (not `chapters`). A line is found when its squashed form is
  in the haystack, or its first and second halves each are (a reading-order split).

Everything heavy runs in C: one normalisation of each page's text and one of the haystack,
then a substring search per line.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import accumulate

from ..contracts import Chunk, QualityWarning
from ..pdf_text import PdfTextLayer

# WARN below this share of the text layer's counted lines.
COVERAGE_THRESHOLD = 0.99
MIN_WORDS = 5
RUNNING_MIN_PAGES = 3
_LONG_LINE_WORDS = 40
_PIECE_WORDS = 10

# Typographic quotes and dashes as ASCII (str.replace per pair: ~50x faster than translate).
_ASCII_FORMS = [
    *((quote, "'") for quote in "\u2018\u2019\u201a\u201b\u2032"),
    *((quote, '"') for quote in "\u201c\u201d\u201e\u201f\u2033"),
    *((dash, "-") for dash in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"),
]
_LEADER = re.compile(r"(?:[.\u00b7\u2026]\s*){3,}")
# Characters a squashed string never holds: white space, `|`, U+FFFD/U+FFFE, controls (Cc),
# the format characters (Cf) that occur in text layers, surrogates and private use (Co).
_DROP = (
    r"\s|\ufffd\ufffe\x00-\x1f\x7f-\x9f\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    r"\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    r"\ud800-\udfff\ue000-\uf8ff\U000f0000-\U0010ffff\U000110bd\U000110cd\U00013430-\U0001343f"
    r"\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_DROP_CHARS = re.compile(f"[{_DROP}]+")
# Dot leaders on a whole page at once, line breaks kept (`\s` without \n and \r).
_LEADER_KEEP_LINES = re.compile(r"(?:[.\u00b7\u2026][^\S\r\n]*){3,}")
_PAGE_TOKEN = re.compile(r"^(?:\d+|[ivxlcdm]+|page|seite|p\.)$", re.IGNORECASE)
_TAG = re.compile(r"<[^>]+>")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_HYPHENS = ("-", "\u2010", "\u2011")


def _prepare(text: str, leader: re.Pattern[str] = _LEADER) -> str:
    text = unicodedata.normalize("NFKC", text)
    for typographic, ascii_form in _ASCII_FORMS:
        if typographic in text:
            text = text.replace(typographic, ascii_form)
    return leader.sub("", text)


def _drop(text: str) -> str:
    """White space, `|` and the characters of `_DROP` removed. The regex runs only when a
    character it could remove is left once white space is gone (not `isprintable()`)."""
    text = "".join(text.split()).replace("|", "")
    if text.isprintable():
        return text.replace("\ufffd", "") if "\ufffd" in text else text
    return _DROP_CHARS.sub("", text)


def squash(text: str) -> str:
    return _drop(_prepare(text))


def squash_line(line: str) -> str:
    squashed = squash(line)
    return squashed[:-1] if squashed.endswith(_HYPHENS) else squashed


def running_key(line: str) -> str:
    """The squashed line without leading and trailing page-number tokens: how a running header
    or footer is recognised across pages."""
    tokens = line.split()
    start, end = 0, len(tokens)
    while start < end and _PAGE_TOKEN.match(tokens[start]):
        start += 1
    while end > start and _PAGE_TOKEN.match(tokens[end - 1]):
        end -= 1
    return squash(" ".join(tokens[start:end]))


class _Haystack:
    """The artifact's squashed text, and for each page the stretch of it made by the chunks on
    that page and its neighbours. A line is looked for in its page's stretch first (a slice of
    the whole, so a hit there is a hit), and in the whole only when that fails."""

    def __init__(self, chunks: list[Chunk]):
        pieces = []
        self._page_spans: dict[int, tuple[int, int]] = {}  # page -> (first, last) chunk on it
        for n, chunk in enumerate(chunks):
            cells = html.unescape(_TAG.sub(" ", chunk.table_html)) if chunk.table_html else ""
            # heading lines first, then the text they head
            pieces.append(squash("\n".join([*chunk.heading_path, chunk.text, cells, chunk.heading or ""])))
            for page_idx in chunk.page_idxs or [chunk.page_idx]:
                self._page_spans[page_idx] = (self._page_spans.get(page_idx, (n, n))[0], n)
        self.whole = "".join(pieces)
        self._starts = list(accumulate(map(len, pieces), initial=0))
        self._windows: dict[int, str] = {}

    def _window(self, page_idx: int) -> str:
        if page_idx not in self._windows:
            spans = [self._page_spans[p] for p in (page_idx - 1, page_idx, page_idx + 1) if p in self._page_spans]
            self._windows[page_idx] = (
                self.whole[self._starts[min(s[0] for s in spans)] : self._starts[max(s[1] for s in spans) + 1]]
                if spans
                else ""
            )
        return self._windows[page_idx]

    def holds(self, squashed: str, page_idx: int) -> bool:
        half = len(squashed) // 2
        for haystack in (self._window(page_idx), self.whole):
            if squashed in haystack or (squashed[:half] in haystack and squashed[half:] in haystack):
                return True
        return False


def _page_lines(page_text: str) -> list[tuple[str, str]]:
    """(line, squashed line before the trailing-hyphen rule) for each line of one page. The page
    is normalised in one pass; line breaks survive it, so its lines align with the raw ones."""
    raw_lines = _LINE_BREAK.split(page_text)
    prepared = _LINE_BREAK.split(_prepare(page_text, _LEADER_KEEP_LINES))
    if len(prepared) != len(raw_lines):  # never seen; the per-line path is the definition
        prepared = [_prepare(line) for line in raw_lines]
    out: list[tuple[str, str]] = []
    for line, squashed in zip(raw_lines, map(_drop, prepared)):
        words = line.split()
        if len(words) > _LONG_LINE_WORDS:  # no line breaks (e.g. a rotated page): cut it up
            for k in range(0, len(words), _PIECE_WORDS):
                piece = " ".join(words[k : k + _PIECE_WORDS])
                out.append((piece, squash(piece)))
        else:
            out.append((line, squashed))
    return out


@dataclass(frozen=True)
class MissingLine:
    page_idx: int
    text: str


@dataclass
class TextCoverage:
    counted: int = 0
    found: int = 0
    missing: list[MissingLine] = field(default_factory=list)
    counted_by_page: dict[int, int] = field(default_factory=lambda: defaultdict(int))

    def missing_by_page(self) -> dict[int, list[str]]:
        pages: dict[int, list[str]] = defaultdict(list)
        for line in self.missing:
            pages[line.page_idx].append(line.text)
        return pages

    @property
    def coverage(self) -> float:
        return self.found / self.counted if self.counted else 1.0

    @property
    def passed(self) -> bool:
        return self.coverage >= COVERAGE_THRESHOLD


def measure_text_coverage(chunks: list[Chunk], text_layer: PdfTextLayer) -> TextCoverage:
    haystack = _Haystack(chunks)
    pages_of: dict[str, set[int]] = defaultdict(set)
    candidates: list[tuple[int, str, str, str]] = []
    for page_idx in range(len(text_layer)):
        for line, squashed in _page_lines(text_layer.page_text(page_idx)):
            if not squashed:
                continue
            tokens = line.split()
            key = running_key(line) if _PAGE_TOKEN.match(tokens[0]) or _PAGE_TOKEN.match(tokens[-1]) else squashed
            pages_of[key].add(page_idx)
            if squashed.endswith(_HYPHENS):
                squashed = squashed[:-1]
            if len(tokens) >= MIN_WORDS and any(ch.isalpha() for ch in squashed):
                candidates.append((page_idx, line, squashed, key))
    result = TextCoverage()
    for page_idx, line, squashed, key in candidates:
        if len(pages_of[key]) >= RUNNING_MIN_PAGES:
            continue
        result.counted += 1
        result.counted_by_page[page_idx] += 1
        if haystack.holds(squashed, page_idx):
            result.found += 1
        else:
            result.missing.append(MissingLine(page_idx, line.strip()))
    return result


def coverage_warnings(doc_id: str, coverage: TextCoverage, preview: int = 120) -> list[QualityWarning]:
    """One `teks_hilang` warning per page that lost text-layer lines."""
    pages: dict[int, list[MissingLine]] = defaultdict(list)
    for line in coverage.missing:
        pages[line.page_idx].append(line)
    warnings = []
    for page_idx, lines in sorted(pages.items()):
        first = lines[0].text if len(lines[0].text) <= preview else lines[0].text[: preview - 1] + "…"
        warnings.append(
            QualityWarning(
                doc_id=doc_id,
                jenis="teks_hilang",
                page_idx=page_idx,
                detail=f"{len(lines)} line(s) of the PDF's text layer on this page are not in the artifact; "
                f"first: {first!r}",
            )
        )
    return warnings
