"""A document's statements as a rule reader sees them: sentences, list items and clause lists,
each a slice of one chunk's text.

Layout decides the unit: a table's cells are read one by one; a sentence cut by a page or column
break (no stop, the next paragraph going on in lower case) is one statement; a lead-in ending
with a colon (or on a word no clause ends with: "make sure that") that states the rule itself and the fragments completing it ("the operator shall
check: • the oil level; • the seal") are one statement; an item that is a sentence of its own, or
an item under any other lead-in, is one statement and remembers its lead-in ("the steps to follow
are these: – …"). A lettered item ("b) …"), a label line set in the running text (short, no stop,
no verb) and a semicolon before a capital start a new statement.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ....contracts import Chunk, ParsedDocument
from ...document.text import SENTENCE_STOPS, Span, ends_a_sentence, open_ended, paragraphs, sentences
from ...language.analysis import VERBAL_TAGS, DocumentAnalysis, document_analysis
from ...language.lexicon import BIBLIOGRAPHY_HEADINGS, PLAIN_CONJUNCTIONS, PLAIN_DISJUNCTIONS, is_function_word

_BULLETS = "•▪●◦‣⁃∙·■□►▸✓✔➢*\uf0b7\uf0a7\uf076\uf0d8\uf0fc\uf0e8"
_DASHES = "–—-"
# A list item's marker: a bullet or dash glyph, "1." / "1)" / "a)" / "(iv)".
_MARKER = re.compile(
    rf"[^\S\n]*(?:[{_BULLETS}{_DASHES}](?=\s)|[{_BULLETS}]|\(?\d{{1,2}}[.)](?=\s)|\(?[a-z]\)(?=\s)|\([ivx]{{1,4}}\)(?=\s))\s*"
)
# An item that starts on a line of its own inside a paragraph ("b) Prestazione …": a letter's
# item opens in lower case, so the sentence before it would not end there otherwise).
_LINE_ITEM = re.compile(
    rf"\n(?=[^\S\n]*(?:[{_BULLETS}{_DASHES}]\s|[{_BULLETS}]|\(?\d{{1,2}}[.)]\s|\(?[a-z]\)\s?[^\W\d_]))"
)
# An item run into the text after a colon, semicolon or stop ("where: • the tank is full; or • …").
_JOINING_WORDS = PLAIN_DISJUNCTIONS + PLAIN_CONJUNCTIONS
_INLINE_ITEM = re.compile(
    "(?:(?<=[:;.])|" + "|".join(rf"(?<=\b{w})" for w in _JOINING_WORDS) + rf")\s+(?=[{_BULLETS}{_DASHES}]\s)"
)
_BIBLIOGRAPHY = re.compile(rf"\W*(?:\d+(?:\.\d+)*\.?\s*)?(?:{BIBLIOGRAPHY_HEADINGS})\W*$", re.IGNORECASE)
_TRAILING_MARKS = re.compile(r"[\s\d\)\]\"'”’»*]+$")


@dataclass(frozen=True)
class Statement:
    chunk: Chunk
    # The statement's own words in `chunk.text`: after its list marker, to its last character.
    span: Span
    # A list item (or a clause list: a lead-in and its items).
    item: bool = False
    # The lead-in that introduced this item, when the item is a sentence of its own.
    lead_in: str | None = None

    @property
    def text(self) -> str:
        return self.span.of(self.chunk.text)


@dataclass
class _Piece:
    span: Span
    item: bool
    segment: int


def _segments(chunk: Chunk) -> list[Span]:
    """A table's cells (rows are lines, cells joined by " | "); any other chunk's paragraphs."""
    text = chunk.text
    if chunk.kind != "table":
        return paragraphs(text)
    cells = []
    offset = 0
    for line in text.split("\n"):
        for cell in line.split(" | "):
            lead = len(cell) - len(cell.lstrip())
            if cell.strip():
                cells.append(Span(offset + lead, offset + len(cell.rstrip())))
            offset += len(cell) + 3
        offset += 1 - 3
    return cells


def _blocks(chunk: Chunk, segment: Span, analysis: DocumentAnalysis) -> list[Span]:
    """A paragraph split where a list item starts on a new line, and after a label line."""
    text = chunk.text
    items = [segment.start + m.end() for m in _LINE_ITEM.finditer(segment.of(text))]
    cuts = [segment.start, *sorted(set(items) | set(_after_labels(chunk, segment, analysis)))]
    ends = [c - 1 for c in cuts[1:]] + [segment.end]
    return [Span(a, b) for a, b in zip(cuts, ends, strict=True) if text[a:b].strip()]


# A label set in the running text: a short line at a sentence's start, with no stop and no verb,
# before a line opening in upper case ("Prestazione a Scadenza\nAlla data di scadenza, …"). A
# line a narrow column wrapped ends on a function word ("… by the\nNational") or holds a verb
# ("Data were acquired by NASA\nLandsat …").
_LABEL_WORDS = 10


def _verbless(chunk: Chunk, start: int, end: int, analysis: DocumentAnalysis) -> bool:
    """No word of `chunk.text[start:end]` tagged a verb or an auxiliary in the document's sentence
    analysis (its words tagged in their sentence, in the chunk's language)."""
    tokens = [t for s in analysis.sentences(chunk) for t in s.tokens if start <= t.start < end]
    return bool(tokens) and not any(t.pos in VERBAL_TAGS for t in tokens)


def _after_labels(chunk: Chunk, segment: Span, analysis: DocumentAnalysis) -> list[int]:
    """Where the line after each label line of `segment` starts."""
    cuts, at, starts = [], segment.start, True
    lines = segment.of(chunk.text).split("\n")
    for line, following in zip(lines, lines[1:], strict=False):
        said, next_said = line.strip(), following.strip()
        words = said.split()
        label = (
            starts
            and 0 < len(words) <= _LABEL_WORDS
            and not said.endswith((*SENTENCE_STOPS, ",", ";", ":"))
            and not is_function_word(words[-1])
            and next_said[:1].isupper()
            and _verbless(chunk, at, at + len(line), analysis)
        )
        at += len(line) + 1
        if label:
            cuts.append(at)
        starts = label or ends_a_sentence(said)
    return cuts


# A semicolon before a capitalised word ends one sentence and starts the next ("… maturare; In
# caso di decesso, …"), as a table cell or a long clause list writes them.
_SEMICOLON_SENTENCE = re.compile(r"(?<=;)\s+(?=[^\W\d_a-zà-ÿ][^\W\d_A-ZÀ-Þ])")


def _semicolon_sentences(text: str, sentence: Span) -> list[Span]:
    cuts = [sentence.start + m.end() for m in _SEMICOLON_SENTENCE.finditer(sentence.of(text))]
    starts, ends = [sentence.start, *cuts], [*cuts, sentence.end]
    return [Span(a, a + len(text[a:b].rstrip())) for a, b in zip(starts, ends, strict=True) if text[a:b].strip()]


def _pieces(chunk: Chunk, analysis: DocumentAnalysis) -> list[_Piece]:
    text, out = chunk.text, []
    paragraph_segments = chunk.kind != "table"
    for number, segment in enumerate(_segments(chunk)):
        for block in _blocks(chunk, segment, analysis):
            item = bool(_MARKER.match(text, block.start)) and bool(text[block.start : block.end].strip())
            clauses = (clause for whole in sentences(text, block) for clause in _semicolon_sentences(text, whole))
            for k, sentence in enumerate(clauses):
                piece = sentence.of(text)
                cuts = [sentence.start] + [sentence.start + m.end() for m in _INLINE_ITEM.finditer(piece)]
                ends = [*cuts[1:], sentence.end]
                for j, (a, b) in enumerate(zip(cuts, ends, strict=True)):
                    if text[a:b].strip():
                        span = Span(a, a + len(text[a:b].rstrip()))
                        # An item: the block's first sentence when the block opens with a marker, or
                        # what follows an inline marker.
                        starts_item = (item and k == 0 and j == 0) or j > 0
                        out.append(_Piece(span, starts_item, 0 if paragraph_segments else number))
    return out


def _body(text: str, span: Span) -> Span:
    m = _MARKER.match(text, span.start)
    return Span(m.end(), span.end) if m and m.end() < span.end else span


@dataclass
class _Unit:
    span: Span
    item: bool
    lead_in: str | None
    segment: int
    # A lead-in that took its items in: the items after them join it too.
    joined: bool = False


def _fragment(item: str) -> bool:
    """An item that completes its lead-in ("the oil level;"), not a sentence of its own ("The
    level is read cold."): one that opens in lower case or ends without a sentence stop."""
    return item[:1].islower() or not item.rstrip().endswith(SENTENCE_STOPS)


def chunk_statements(chunk: Chunk, joins: Callable[[str], bool], analysis: DocumentAnalysis) -> Iterator[Statement]:
    """`joins(lead_in)`: whether a lead-in and its items are one statement (a rule stated once
    for its list); otherwise each item is its own. `analysis`: the document's sentence analysis,
    read only where a short line may be a label."""
    text = chunk.text
    units: list[_Unit] = []
    lead_in: str | None = None
    for piece in _pieces(chunk, analysis):
        body = _body(text, piece.span)
        said = body.of(text)
        last = units[-1] if units and units[-1].segment == piece.segment else None
        if last:
            previous = last.span.of(text)
            introduces = not last.item and (previous.endswith(":") or open_ended(previous))
            if piece.item and _fragment(said) and (last.joined or introduces and joins(previous)):
                last.span, last.item, last.joined = Span(last.span.start, piece.span.end), True, True
                continue
            # A sentence a page or column break cut: no stop, then lower case (or a number).
            ends = ends_a_sentence(_TRAILING_MARKS.sub("", previous))
            # It ends on a word (or on a percent sign or comma, "… the new 4.2%" / "rate, employers …",
            # going on in lower case: a number after them is a table's cell).
            goes_on = said[:1].islower() or said[:1].isdigit() and previous[-1:].islower()
            if not piece.item and not ends and (previous[-1:].islower() or previous[-1:] in "%,") and goes_on:
                last.span = Span(last.span.start, piece.span.end)
                continue
            if piece.item and (previous.endswith(":") or open_ended(previous)):
                lead_in = previous
        if not piece.item:
            lead_in = None
        units.append(_Unit(body, piece.item, lead_in if piece.item else None, piece.segment))
    for unit in units:
        yield Statement(chunk, unit.span, unit.item, unit.lead_in)


def statements(document: ParsedDocument, joins: Callable[[str], bool]) -> Iterator[Statement]:
    """Every statement of the document's text, table and figure chunks, in reading order; not
    its bibliography (titles of other works, which state nothing to the reader). A label line is
    told by the document's sentence analysis (the one the readers share, made once)."""
    with document_analysis(document) as analysis:
        for chunk in document.chunks:
            if chunk.kind in ("text", "table", "image") and not any(
                _BIBLIOGRAPHY.match(h) for h in (chunk.heading or "", *chunk.heading_path)
            ):
                yield from chunk_statements(chunk, joins, analysis)
