"""A table that defines its first column: a header cell saying the column holds what each row's
term means ("Description", "Definition", "Meaning", …), terms a few words long, and cells in
that column that are phrases, not numbers. Each row gives its first cell as the term and that
cell's first sentence as the definition. A column of values ("Value", "Default", "Setting")
says what a row is set to, not what it means — unless every cell of it is a sentence that opens
with an article and ends with its full stop ("The user that …."): a noun phrase said of each row
is what the row is, whatever the header calls it. A term cell naming several identifiers
("A_ID, B_ID", "A_ID or B_ID") gives each of them the row's definition. Abbreviation and symbol
tables are the abbreviation and formula readers'.
"""

from __future__ import annotations

import re

from ....contracts import Chunk, ParsedDocument
from ...document.text import Span, ends_a_sentence, sentences
from ...language.lexicon import (
    ARTICLES,
    CONJUNCTIONS,
    DISJUNCTIONS,
    MEANING_COLUMN_HEADINGS,
    NOT_TERM_COLUMN_HEADINGS,
    alternation,
)
from ..findings import Finding, Quote
from .definition_words import MAX_TERM_WORDS

_MEANING_HEADER = re.compile(MEANING_COLUMN_HEADINGS, re.IGNORECASE)
_NOT_TERMS = re.compile(NOT_TERM_COLUMN_HEADINGS, re.I)
# A cell that is a noun phrase sentence: an article, a word, …, a full stop.
_NOUN_PHRASE_SENTENCE = re.compile(rf"^(?:{alternation(tuple(a.capitalize() for a in ARTICLES))})\s+\w.*\.$")
# Identifiers listed in one term cell: each one token, parted by commas or "or" / "and".
_NAMES_APART = re.compile(rf"\s*,\s*(?:(?:{DISJUNCTIONS}|{CONJUNCTIONS})\s+)?|\s+(?:{DISJUNCTIONS}|{CONJUNCTIONS})\s+")
# An identifier, not a word: an underscore, a dot, a digit or a capital inside it ("SESSION_USER").
_IDENTIFIER = re.compile(r"^\S*(?:[_.(\d]|\S[A-Z])\S*$")
_ROW = re.compile(r"^.*\S \| \S.*$", re.MULTILINE)


def _cells(text: str, row: Span) -> list[Span]:
    cells, start = [], row.start
    for m in [*re.finditer(r" \| ", row.of(text)), None]:
        end = row.start + m.start() if m else row.end
        cells.append(Span(start, end))
        start = row.start + m.end() if m else row.end
    return cells


def _prose(cell: str) -> bool:
    """Words, not a value: "Name of the pump's vendor", not "3 - Type of …"."""
    return len(cell.split()) >= 3 and sum(c.isalpha() for c in cell) > len(cell) / 2 and not cell[:1].isdigit()


def _names(cell: Span, text: str) -> list[Span]:
    """The identifiers a term cell lists, or the cell whole when it is one name (of words)."""
    parts, start = [], cell.start
    for m in [*_NAMES_APART.finditer(cell.of(text)), None]:
        end = cell.start + m.start() if m else cell.end
        parts.append(Span(start, end))
        start = cell.start + m.end() if m else cell.end
    if len(parts) > 1 and all(_IDENTIFIER.match(p.of(text)) for p in parts):
        return parts
    return [cell]


def _meaning_column(header: list[str], body: list[list[str]]) -> int | None:
    """The header saying the column holds meanings, else a column of noun phrase sentences."""
    column = next((k for k, h in enumerate(header) if k and _MEANING_HEADER.search(h)), None)
    if column is not None:
        return column
    return next(
        (k for k in range(1, len(header)) if all(_NOUN_PHRASE_SENTENCE.match(r[k]) for r in body)),
        None,
    )


def _runs(text: str) -> list[list[list[Span]]]:
    """The chunk's tables: runs of consecutive rows, each row its cells. A line that is no row (a
    caption spanning the table, a note) ends a run: MinerU may merge two tables into one chunk,
    and the second has a header of its own."""
    runs: list[list[list[Span]]] = []
    end = -2
    for m in _ROW.finditer(text):
        if m.start() != end + 1:
            runs.append([])
        runs[-1].append(_cells(text, Span(m.start(), m.end())))
        end = m.end()
    return runs


def _table_definitions(chunk: Chunk, rows: list[list[Span]]) -> list[Finding]:
    text = chunk.text
    if len(rows) < 2:
        return []
    header = [c.of(text) for c in rows[0]]
    body = [r for r in rows[1:] if len(r) == len(header)]
    column = _meaning_column(header, [[c.of(text) for c in r] for r in body]) if body else None
    if column is None or _NOT_TERMS.search(header[0]):
        return []
    terms_ok = all(len(r[0].of(text).split()) <= MAX_TERM_WORDS and not ends_a_sentence(r[0].of(text)) for r in body)
    if not body or not terms_ok or sum(_prose(r[column].of(text)) for r in body) * 2 < len(body):
        return []
    findings = []
    for row in body:
        term, cell = row[0], row[column]
        if not _prose(cell.of(text)):
            continue
        definition = Quote(sentences(text, cell)[0].of(text), chunk)
        for name in (n.of(text) for n in _names(term, text)):
            findings.append(Finding(name, Quote(name, chunk), "definition_table", definition=definition))
    return findings


def read_definition_tables(document: ParsedDocument) -> list[Finding]:
    return [
        f
        for chunk in document.chunks
        if chunk.kind == "table"
        for rows in _runs(chunk.text)
        for f in _table_definitions(chunk, rows)
    ]
