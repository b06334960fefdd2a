"""Formulas as the document gives them: display equations (the text layer inside the parser's
equation box), inline ones ("if Rt = 1/(R1 + R2)"), and "Name = a x b" lines (math_text.py finds
them); each named by its lead-in (lead_in.py), its symbols explained by the document's legend
(legend.py), its unit where the legend states the result's ("… in kW").

`formula_latex` is the formula's characters, copied, never derived. `latex_verification` says
what guarantee it carries, decided here and nowhere else: `verified` when the parser's markup
(`Chunk.latex`) holds the same formula (notation aside), `unverified_operator` when it multiplies
with a bare "x" (MinerU's pipeline backend writes products so; markup would say \\times),
otherwise `unverified_no_markup`. The flash tier gives no markup, so its formulas are never
verified.

Readers propose (`propose_formulas`), the span check disposes (`formula_entries`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from ....contracts import Chunk, ParsedDocument
from ...document.math_text import FormulaLayout, FormulaSpan, is_symbol
from ...document.text import squash
from ...language.lexicon import UNIT_PREPOSITIONS
from ...payloads.contracts import FormulaEntry, FormulaVariable, LatexVerification
from ...payloads.ids import formula_id
from ...payloads.spans import SpanCheck
from ..findings import Quote
from ..glossary.glossary import provenance
from .lead_in import lead_in_name
from .legend import (
    REST_OF_DISPLAY,
    Explanation,
    MathText,
    document_math,
    legend_after,
    stands_in,
    subscripted,
    without_functions,
)

_log = logging.getLogger(__name__)

_BARE_X = re.compile(r"\s[xX]\s")
_OPERAND_SPLIT = re.compile(r"[()\[\]+\-−*/÷×·=]|\s[xX]\s")
_NUMBER = re.compile(r"^[\d.,\s]+%?$")
_TOKEN = re.compile(r"[^\W\d_][^\W_]*['′]*")
# The unit a legend gives a quantity in: "… in m3/h", "… en kW", "… (kW)", "… [kW]".
_UNIT = re.compile(rf"(?:\s(?:{UNIT_PREPOSITIONS})\s+|\s?[(\[])(?P<unit>[^\s()\[\]]+)[)\]]?$")
# A display formula that nothing but its number follows to its chunk's end.
_REST_OF_DISPLAY = re.compile(REST_OF_DISPLAY)


@dataclass(frozen=True, eq=False)
class VariableCandidate:
    symbol: Quote
    meaning: Quote | None = None


@dataclass(frozen=True, eq=False)
class FormulaCandidate:
    """A formula as a reader proposes it: every value a quote, to be checked."""

    formula: Quote
    name: Quote | None
    variables: tuple[VariableCandidate, ...]
    unit: Quote | None
    reader: FormulaLayout
    # Open: layout alone cannot say it is a formula ("Finish = OAK"); not emitted without a model.
    decided: bool = True


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


def _operands(expression: str) -> list[str]:
    """A one-line formula's operands ("MOHH", "Qty"): what stands between its operators."""
    symbols: list[str] = []
    for operand in _OPERAND_SPLIT.split(expression):
        operand = operand.strip()
        if operand and not _NUMBER.match(operand) and operand not in symbols:
            symbols.append(operand)
    return symbols


def _is_operand_symbol(formula: str, token: re.Match[str]) -> bool:
    """Shaped like a symbol, and neither a function ("cos(") nor a bare "x" for times."""
    if re.match(r"\s?\(", formula[token.end() :]) and len(token.group()) > 2:
        return False
    return is_symbol(token.group()) and token.group() not in ("x", "X")


def _symbols(formula: str, lhs: str | None, layout: FormulaLayout, legend: list[str]) -> list[str]:
    """The formula's symbols: its left-hand side, those its legend explains, and, on one line,
    each operand shaped like a symbol."""
    found = [lhs] if lhs else []
    if layout == "named_line":
        found += _operands(formula.split("=", 1)[1])
    elif "\n" not in formula:
        found += [m.group() for m in _TOKEN.finditer(formula) if _is_operand_symbol(formula, m)]
    standing = _standing(formula, legend, [lhs] if lhs else [])
    found += [s for s in legend if s in standing]
    return list(dict.fromkeys(found))


def _standing(formula: str, legend: list[str], lhs: list[str]) -> set[str]:
    """The legend's symbols that stand in the formula, longest first: where a longer symbol
    stands ("SSE", "DP", "ma", the formula's own "ta"), a shorter one inside it ("S", "P", "a")
    does not."""
    bare = without_functions(formula)
    standing = set()
    for symbol in sorted({*legend, *lhs}, key=lambda s: (-len(s), s)):  # a set: ties by name, not by hash
        if stands_in(symbol, bare):
            standing.add(symbol)
            bare = bare.replace(symbol, " " * len(symbol))
    return standing


class _Legend:
    """The document's explanations, by chunk and symbol, to find the one meant at a formula."""

    def __init__(self, document: ParsedDocument, math: MathText):
        self.math = math
        self.known: dict[str, None] = {}  # every symbol explained, in reading order
        self.in_chunk: dict[str, dict[str, list[Explanation]]] = {}
        # Each symbol's explanations with their chunk's place in reading order.
        self.places: dict[str, list[tuple[int, Explanation]]] = {}
        self.place = {chunk.chunk_id: k for k, chunk in enumerate(document.chunks)}
        texts = [chunk for chunk in document.chunks if chunk.kind == "text"]
        # A legend printed after an equation continues in the next text chunk (a figure or a
        # table the parser placed between is not read).
        self.next_text = {a.chunk_id: b for a, b in zip(texts, texts[1:], strict=False)}
        for chunk in document.chunks:
            for e in math.explained(chunk):
                self.known.setdefault(e.term)
                self.in_chunk.setdefault(chunk.chunk_id, {}).setdefault(e.term, []).append(e)
                self.places.setdefault(e.term, []).append((self.place[chunk.chunk_id], e))

    def meaning(self, symbol: str, chunk: Chunk, at: int) -> Quote | None:
        """The explanation nearest the formula: in its own chunk the last before it (a symbol is
        introduced before it is used) or else the first after; else the nearest in an earlier chunk
        (a symbol redefined means its new sense from there on), a definition before a reading (a
        reading says what the symbol does in its own formula). Not the next chunk's, unless its
        legend opens it (`legend_after`): further on, a symbol is explained for another formula.
        A quote keeps its chunk: the entry records it (`meaning_chunk_id`) and the span check
        proves the meaning there."""
        same = self.in_chunk.get(chunk.chunk_id, {}).get(symbol, [])
        before = [e for e in same if e.symbol.start < at]
        chosen = before[-1] if before else (same[0] if same else None)
        if chosen is None:
            here = self.place[chunk.chunk_id]
            earlier = [e for place, e in self.places.get(symbol, []) if place < here]
            defining = [e for e in earlier if not e.reading]
            chosen = (defining or earlier)[-1] if earlier else None
        return chosen.quote() if chosen else None

    def legend_after(self, chunk: Chunk, end: int) -> list[Explanation]:
        """The legend clause right after a formula that ends at `end`; when nothing but its
        number follows it in its chunk, at the start of the next text chunk."""
        found = legend_after(chunk, end, self.math)
        after = self.next_text.get(chunk.chunk_id)
        if found or after is None or _REST_OF_DISPLAY.fullmatch(chunk.text, end) is None:
            return found
        return legend_after(after, 0, self.math)


def _unit(meaning: Quote | None) -> Quote | None:
    m = _UNIT.search(meaning.text) if meaning else None
    return Quote(m.group("unit"), meaning.chunk) if m and meaning else None


def _candidate(chunk: Chunk, found: FormulaSpan, legend: _Legend) -> FormulaCandidate:
    text = chunk.text
    formula = found.span.of(text)
    lhs = found.lhs.of(text) if found.lhs else None
    if found.layout == "named_line":
        name = Quote(lhs, chunk) if lhs else None
        lhs_symbol = None
    else:
        name = lead_in_name(chunk, found.span.start, inline=found.layout == "inline")
        lhs_symbol = lhs
    following = {e.term: e.quote() for e in legend.legend_after(chunk, found.span.end)}
    # Only the formula's own symbols: a legend may explain more than this formula uses.
    explained = [*following, *legend.known]
    # "SSEs", "SSEc" where the legend explains "SSE": the stem's meaning.
    stem_of = {t: stem for stem in dict.fromkeys(explained) for t in subscripted(stem, formula)}
    symbols = _symbols(formula, lhs_symbol, found.layout, [*explained, *stem_of])
    variables = []
    for symbol in symbols:
        said = stem_of.get(symbol, symbol)
        meaning = following.get(said)
        if meaning is None and symbol == lhs_symbol and name is not None:
            meaning = name
        meaning = meaning or legend.meaning(said, chunk, found.span.start)
        variables.append(VariableCandidate(Quote(symbol, chunk), meaning))
    lhs_meaning = next((v.meaning for v in variables if lhs_symbol and v.symbol.text == lhs_symbol), None)
    return FormulaCandidate(
        formula=Quote(formula, chunk),
        name=name,
        variables=tuple(variables),
        # The unit is quoted in the formula's own chunk, the one the entry records.
        unit=_unit(lhs_meaning) if lhs_meaning is not name and lhs_meaning and lhs_meaning.chunk is chunk else None,
        reader=found.layout,
        decided=found.decided,
    )


def propose_formulas(document: ParsedDocument) -> list[FormulaCandidate]:
    """Every formula of the document, in reading order. A display formula whose first line a
    chunk repeats (the text layer read the same box twice) is proposed once."""
    with document_math(document) as math:
        return _formula_candidates(document, math)


def _formula_candidates(document: ParsedDocument, math: MathText) -> list[FormulaCandidate]:
    legend = _Legend(document, math)
    seen: set[tuple[str, str]] = set()
    out = []
    for chunk, found in math.formulas:
        first_line = squash(found.span.of(chunk.text).split("\n", 1)[0])
        if found.layout == "display" and found.lhs is not None:
            if (chunk.chunk_id, first_line) in seen:
                continue
            seen.add((chunk.chunk_id, first_line))
        out.append(_candidate(chunk, found, legend))
    return out


def _variables(candidate: FormulaCandidate, label: str, check: SpanCheck) -> list[FormulaVariable]:
    """Each symbol and its meaning through the span check: a symbol that fails is dropped."""
    out = []
    for v in candidate.variables:
        symbol = check.keep(v.symbol, entry=label, field="variables.symbol", branch="formula")
        if symbol is not None:
            meaning = check.keep(v.meaning, entry=label, field="variables.meaning", branch="formula")
            elsewhere = v.meaning.chunk.chunk_id if v.meaning and meaning else None
            out.append(
                FormulaVariable(
                    symbol=symbol,
                    meaning=meaning,
                    meaning_chunk_id=elsewhere if elsewhere != candidate.formula.chunk.chunk_id else None,
                )
            )
    return out


def formula_entries(
    document: ParsedDocument, candidates: list[FormulaCandidate], check: SpanCheck
) -> list[FormulaEntry]:
    """One entry per decided formula; a formula the document states again is the same entry.
    A name stated again with a different formula keys the second on its formula instead (and,
    should that be taken too, on its chunk); an entry is never overwritten."""
    entries: dict[str, FormulaEntry] = {}
    stated: set[str] = set()
    for candidate in candidates:
        if not candidate.decided:
            continue
        label = candidate.name.text if candidate.name else candidate.formula.text
        span = check.keep(candidate.formula, entry=label, field="provenance.span", branch="formula")
        if span is None or squash(span) in stated:
            continue
        stated.add(squash(span))
        name = check.keep(candidate.name, entry=label, field="name", branch="formula")
        chunk = candidate.formula.chunk
        keys = [(name, span), (None, span), (None, None)]
        identity = next(
            (i for n, f in keys if (i := formula_id(document.doc_id, n, f, chunk.chunk_id)) not in entries), None
        )
        if identity is None:
            _log.warning("formula %r in %s: every id it could have is taken; left out", span[:60], chunk.chunk_id)
            continue
        entries[identity] = FormulaEntry(
            formula_id=identity,
            name=name,
            formula_latex=span,
            variables=_variables(candidate, label, check),
            unit=check.keep(candidate.unit, entry=label, field="unit", branch="formula"),
            latex_verification=verification(span, chunk),
            provenance=provenance(document, span, candidate.formula),
        )
    return list(entries.values())
