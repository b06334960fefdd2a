"""A table that defines its first column: a header cell saying the column holds what each row's
term means ("Description", "Definition", "Meaning", …), terms a few words long, and cells in
that column that are phrases, not numbers. Each row gives its first cell as the term and that
cell's first sentence as the definition. A column of values ("Value", "Default", "Setting")
says what a row is set to, not what it means. Abbreviation and symbol tables are the
abbreviation and formula readers'.
"""

from __future__ import annotations

import re

from ....contracts import Chunk, ParsedDocument
from ...document.text import Span, ends_a_sentence, sentences
from ..findings import Finding, Quote
from .definition_words import MAX_TERM_WORDS

_MEANING_HEADER = re.compile(
    r"descri|defini|meaning|explanation|signification|sens\b|bedeutung|beschreibung|erl[äa]uterung"
    r"|erkl[äa]rung|significado|descripci|definici|keterangan|deskripsi|pengertian|arti\b|makna|uraian|penjelasan",
    re.IGNORECASE,
)
_NOT_TERMS = re.compile(r"abbrev|acronym|sigle|abr[ée]v|abk[üu]rz|singkatan|akronim|symbol|notation|unit", re.I)
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
    column = next((k for k, h in enumerate(header) if k and _MEANING_HEADER.search(h)), None)
    if column is None or _NOT_TERMS.search(header[0]):
        return []
    body = [r for r in rows[1:] if len(r) == len(header)]
    terms_ok = all(len(r[0].of(text).split()) <= MAX_TERM_WORDS and not ends_a_sentence(r[0].of(text)) for r in body)
    if not body or not terms_ok or sum(_prose(r[column].of(text)) for r in body) * 2 < len(body):
        return []
    findings = []
    for row in body:
        term, cell = row[0], row[column]
        if not _prose(cell.of(text)):
            continue
        definition = Quote(sentences(text, cell)[0].of(text), chunk)
        name = term.of(text)
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
