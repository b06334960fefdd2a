"""Formulas as the document writes them: a line "Name = expression" in a text chunk.

`formula_latex` is the line, copied, never derived. `latex_verification` says what guarantee it
carries, decided here and nowhere else: `verified` when the parser's markup (`Chunk.latex`)
holds the same formula (notation aside), `unverified_operator` when it multiplies with a bare
"x" (MinerU's pipeline backend writes products so; markup would say \\times), otherwise
`unverified_no_markup`. The flash tier gives no markup, so its formulas are never verified.
"""

from __future__ import annotations

import re

from ..contracts import Chunk, ParsedDocument
from .contracts import FormulaEntry, FormulaVariable, LatexVerification
from .findings import Quote
from .glossary import provenance
from .ids import formula_id
from .spans import SpanCheck

_FORMULA_LINE = re.compile(r"^(?P<name>[^\W\d][\w ]{0,40}?)\s*=\s*(?P<expression>[^=<>!]+)$")
_OPERATOR = re.compile(r"\s[x×*/+\-−÷·]\s|/")
_BARE_X = re.compile(r"\s[xX]\s")
_OPERAND_SPLIT = re.compile(r"[()\[\]+\-−*/÷×·=]|\s[xX]\s")
_NUMBER = re.compile(r"^[\d.,\s]+%?$")
_MAX_LINE = 160
# Code, not a formula: quotes, attribute access (fitz.Document), statements ending in ; or {.
_CODE = re.compile(r"[\"'`]|[^\W\d]\.[^\W\d]|[;{]$")


def _canonical(formula: str) -> str:
    """Notation aside: spacing, \\times/\\cdot/×/*/x for a product, braces, \\left/\\right, \\text{}."""
    s = re.sub(r"\\(?:text|mathrm|operatorname)\s*\{([^}]*)\}", r"\1", formula)
    s = re.sub(r"\\(?:left|right)", "", s)
    s = re.sub(r"\\times|\\cdot|×|\*|(?<=\s)[xX](?=\s)", "x", s)
    return re.sub(r"[\s{}]", "", s).casefold()


def verification(formula: str, chunk: Chunk) -> LatexVerification:
    wanted = _canonical(formula)
    if any(wanted and wanted == _canonical(markup) for markup in chunk.latex):
        return "verified"
    return "unverified_operator" if _BARE_X.search(formula) else "unverified_no_markup"


def _variables(expression: str) -> list[FormulaVariable]:
    symbols: list[str] = []
    for operand in _OPERAND_SPLIT.split(expression):
        operand = operand.strip()
        if operand and not _NUMBER.match(operand) and operand not in symbols:
            symbols.append(operand)
    return [FormulaVariable(symbol=s) for s in symbols]


def read_formulas(document: ParsedDocument, check: SpanCheck) -> list[FormulaEntry]:
    """One entry per formula: a name stated again with the same formula is the same entry; with
    a different one, a second entry keyed on its formula (the id falls back to the latex)."""
    entries: dict[str, FormulaEntry] = {}
    for chunk in document.chunks:
        if chunk.kind != "text":
            continue
        for line in chunk.text.splitlines():
            line = line.strip().rstrip(",.")
            m = _FORMULA_LINE.match(line)
            if not m or len(line) > _MAX_LINE or _CODE.search(line) or not _OPERATOR.search(m.group("expression")):
                continue
            name = m.group("name").strip()
            span = check.keep(Quote(line, chunk), entry=name, field="provenance.span", branch="formula")
            if span is None:
                continue
            identity = formula_id(document.doc_id, name, line, chunk.chunk_id)
            if identity in entries and entries[identity].formula_latex != span:
                identity = formula_id(document.doc_id, None, span, chunk.chunk_id)
            if identity in entries:
                continue
            entries[identity] = FormulaEntry(
                formula_id=identity,
                name=name,
                formula_latex=span,
                variables=_variables(m.group("expression")),
                latex_verification=verification(span, chunk),
                provenance=provenance(document, span, Quote(span, chunk)),
            )
    return list(entries.values())
