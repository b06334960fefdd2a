"""What a document says its symbols mean, in words: one parser, read by the formulas (their
variables' meanings) and by the glossary (a symbol explained is a claim about a term).

- a legend clause after a formula: "where p is the pressure at the inlet, v the mean velocity
  and d the diameter of the pipe" (où … est …, wobei … die … ist, donde … es …, di mana … adalah …);
- a defining statement: "q denotes the heat flux per unit area", "Re is defined as the ratio …";
- a symbol list line: "Pd : Design pressure of the vessel";
- an apposition: "the thermal conductivity λ", "the inlet and outlet temperatures T1 and T2" (the
  words name the symbol: its full name as well as its definition).

Only a symbol that the document's own formulas use is read (math_text.py finds them): a short
capitalised word after a noun is not a symbol in a document without mathematics.
"""

from __future__ import annotations

import re
from collections import Counter
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Literal

from ....contracts import Chunk, ParsedDocument
from ...document.document_scope import DocumentScoped
from ...document.math_text import SYMBOL, FormulaSpan, formula_spans, is_symbol, is_word
from ...document.text import Span
from ...language import german
from ...language.analysis import VERBAL_TAGS, Sentence, document_analysis
from ...language.definition_wording import WORDING
from ...language.lexicon import (
    CONJUNCTIONS,
    DETERMINERS,
    FORMULA_OF,
    FUNCTION_WORDS,
    KIND_NOUNS,
    LEGEND_OPENERS,
    LEGEND_VERBS,
    RELATIVE_PRONOUNS,
    SYMBOL_DEFINING_VERBS,
    SYMBOL_READING_VERBS,
    WITH,
    alternation,
)
from ..findings import Finding, Quote
from ..glossary.constructions import legend_statements, words_at
from .lead_in import lead_in_name

_VERB = rf"(?:{LEGEND_VERBS})"
_ARTICLE = rf"(?:{alternation(DETERMINERS)})"
# A legend's symbol may name a percentile ("Q%"); a legend item may explain several symbols at
# once ("u and v are the velocities", "a, b and c are coefficients"): each gets the meaning; an
# item may be an apposition ("K, the stiffness matrix, …").
# A function's value ("f(P) is …") is an item too: it ends the item before it, whether or not the
# formula shows it as written.
_LEGEND_SYMBOL = rf"{SYMBOL}(?:%|\([^\W\d_]{{1,3}}\))?"
_BETWEEN_SYMBOLS = rf"\s*,\s*|\s+(?:{CONJUNCTIONS})\s+"
_SYMBOLS = rf"{_LEGEND_SYMBOL}(?:(?:{_BETWEEN_SYMBOLS}){_LEGEND_SYMBOL})*"
_ITEM = re.compile(rf"\s*(?P<sym>{_SYMBOLS})\s*(?:(?:{_VERB})\s+|[=:]\s*|,?\s*(?={_ARTICLE}\s)|(?=l'))", re.IGNORECASE)
_NEXT_ITEM = re.compile(
    rf"(?:,\s*(?:(?:{CONJUNCTIONS})\s+)?|;\s*|\s+(?:{CONJUNCTIONS})\s+)"
    rf"(?={_SYMBOLS}\s*(?:{_VERB}\s|[=:]|,?\s*{_ARTICLE}\s|l'))",
    re.IGNORECASE,
)
_BETWEEN = re.compile(_BETWEEN_SYMBOLS, re.IGNORECASE)
# A legend's words end with its sentence, its paragraph, or a line that is not words.
_LINE_OF_NO_WORDS = r"\s*\n(?=\s*[^\w\s(\[])"
# ("i.e. ", "e.g. ": an abbreviation's period ends nothing)
_CLAUSE_END = re.compile(rf"(?<!\.[^\W\d_])\.(?=\s|$)|\n\s*\n|:\s|\(\d+\)|{_LINE_OF_NO_WORDS}|$")
_TRIGGER = re.compile(rf"(?<!\w)(?:{LEGEND_OPENERS})\s+", re.I)
_NESTED_LEGEND = re.compile(rf",\s*(?:{LEGEND_OPENERS})\s", re.I)
# Right after a formula, "with" opens its legend too ("with λ the conductivity").
# What may follow a display formula before its legend: its number, punctuation, control glyphs.
REST_OF_DISPLAY = r"[\s,.;:\x00-\x1f]*(?:\(\d{1,3}[a-z]?\)[\s,.;:]*)?"
_AFTER_FORMULA = re.compile(rf"{REST_OF_DISPLAY}(?:(?P<with>{WITH})\s+|(?=\w))", re.I)
# "q denotes …"; or a verb that defines only before a noun phrase ("B measures the load …").
_DEFINES = re.compile(
    rf"(?<![\w/])(?P<sym>{SYMBOL})\s+"
    rf"(?:(?:{SYMBOL_DEFINING_VERBS})\s+|(?P<reading>(?:{SYMBOL_READING_VERBS})\s+)(?=(?:{_ARTICLE})\s))"
)
_DEFINITION_END = re.compile(rf"[,;](?:\s|(?=\w))|\.(?=\s|$)|\n\s*\n|{_LINE_OF_NO_WORDS}|$")
# A symbol list's line: "Pd : Design pressure", "Q = flow rate (m3/h)", "• H – total head", or a
# nomenclature table's row "Q | Flow rate | m3/h".
_LIST_LINE = re.compile(
    rf"^[ \t]*(?:[•·▪*\-–][ \t]+)?(?P<sym>{SYMBOL})[ \t]*(?::|=|–|—|\||[ \t]-[ \t])[ \t]*(?=[^\W\d_])"
)
_CELL_END = re.compile(r"[ \t]*\|")
# A lecture's list of symbols with a leader of dots, numbered or not, the symbol alone or as the
# left side of its formula: "1. wn . . . Wartezeit des n-ten Kunden", "2. zn = wn + xn . . . Zeit, …".
_LEADER_LINE = re.compile(
    rf"^[ \t]*(?:\d{{1,2}}\.[ \t]+)?(?P<sym>{SYMBOL})(?:[ \t]*=[^\n]*?)?[ \t]*(?:\.[ \t]?\.[ \t]?\.|…)[ \t]*(?=[^\W\d_])"
)
# "the stiffness matrix, which relates forces to displacements": the meaning is the noun phrase.
_RELATIVE_CLAUSE = re.compile(rf",\s+(?:{RELATIVE_PRONOUNS})(?!\w)", re.IGNORECASE)
_VERB_LAST = re.compile(rf"\s+(?:{german.LEGEND_VERBS_LAST})$")
_WORD = re.compile(r"[^\W\d_]+")
_LOWER_WORD = re.compile(r"(?<![^\W\d_])[^\W\d_A-ZÀ-ÞΑ-Ω]{3,}")
_FUNCTION_NAME = re.compile(r"[^\W\d_]{3,}(?=\s?\()")
_WORDS_BEFORE = re.compile(r"([^\W\d_]+(?:-[^\W\d_]+)*) $")
_MAX_NAME_WORDS = 4
_MAX_MEANING_WORDS = 25


# How a legend states a symbol's meaning: a "where …" clause, a defining verb, a symbol list's
# line, a dot leader, an opener or let-clause read from the analysis, a copula at a clause's
# start, an apposition, a bracketed symbol (bench/rule_constructions.py measures each).
LegendKind = Literal["clause", "defining", "symbol_list", "dot_leader", "opener", "copula", "apposition", "bracketed"]


@dataclass(frozen=True)
class Explanation:
    """A symbol and the words the document explains it with, both offsets into one chunk."""

    chunk: Chunk
    symbol: Span
    meaning: Span
    how: LegendKind
    # An apposition: the words are the symbol's name (a full name), not only a description.
    named: bool = False
    # A reading ("B measures the load on …"): what the symbol says in the formula at hand, for
    # its variables; the glossary keeps the symbol's defining words.
    reading: bool = False

    @property
    def term(self) -> str:
        return self.symbol.of(self.chunk.text)

    def quote(self) -> Quote:
        return Quote(self.meaning.of(self.chunk.text), self.chunk)


# An expression set inline in a sentence: letters joined by an operator only mathematics prints
# ("⌈n×k/m⌉"), no digit ("500 px×500 px" is a size, not an expression). Its operands are symbols
# of the document as a display formula's are.
_INLINE_MATH = re.compile(r"(?<!\S)(?=\S*[×÷·⌈⌉⌊⌋])[^\W\d_]*(?:[×÷·⌈⌉⌊⌋/+−]+[^\W\d_]+)+[×÷·⌈⌉⌊⌋]*(?=[.,;:]?(?!\S))")


class MathText:
    """The document's formulas, to ask whether a token is one of their symbols. Built once per
    document (the legend reader and the formulas share it)."""

    def __init__(self, document: ParsedDocument):
        self.document = document
        self.formulas: list[tuple[Chunk, FormulaSpan]] = [
            (chunk, found) for chunk in document.chunks for found in formula_spans(chunk)
        ]
        self._in_chunk: dict[str, list[Span]] = {}
        for chunk, found in self.formulas:
            self._in_chunk.setdefault(chunk.chunk_id, []).append(found.span)
        # A "Name = Hours x Rate" line's operands are words and abbreviations, not symbols.
        self._bare = without_functions(
            "\n".join(
                found.span.of(chunk.text)
                for chunk, found in self.formulas
                if found.decided and found.layout != "named_line"
            )
        )
        # The operands of inline expressions, each whole ("FFN" is none of "⌈m×kLoad⌉").
        self._inline = {
            operand
            for chunk in document.chunks
            for m in _INLINE_MATH.finditer(chunk.text)
            for operand in re.findall(r"[^\W\d_]+", m.group())
        }
        self._holds: dict[str, bool] = {}
        self._explained: dict[str, list[Explanation]] = {}
        self.words = Counter(w.casefold() for chunk in document.chunks for w in _WORD.findall(chunk.text))

    def spans_in(self, chunk: Chunk) -> list[Span]:
        return self._in_chunk.get(chunk.chunk_id, [])

    def explained(self, chunk: Chunk) -> list[Explanation]:
        """`explanations` of the chunk, read once (the glossary and the formulas both ask)."""
        if chunk.chunk_id not in self._explained:
            self._explained[chunk.chunk_id] = explanations(chunk, self)
        return self._explained[chunk.chunk_id]

    def holds(self, symbol: str) -> bool:
        if symbol not in self._holds:  # once per distinct token: the formulas' text is long
            self._holds[symbol] = (
                symbol in self._inline or stands_in(symbol, self._bare) or bool(subscripted(symbol, self._bare))
            )
        return self._holds[symbol]


# Built once per extraction (extract.py opens it): the legend reader and the formulas read the same.
document_math = DocumentScoped("document_math", lambda document: nullcontext(MathText(document)))


def without_functions(formula: str) -> str:
    """The formula with its function names ("tan(", "cosh (") blanked, for `stands_in`."""
    # Symbols set side by side before a bracket ("piEi(x)") are no function name.
    return _FUNCTION_NAME.sub(lambda m: " " if is_word(m.group()) else m.group(), formula)


# A symbol with a one-letter or numbered subscript the legend leaves out ("SSE" → "SSEs", "df" →
# "dfc"): a stem of letters of one case, not a product ("Sh" + "h", "k" + "a" are products).
_SUBSCRIPT = r"(?:[a-z]|\d{1,2})(?![A-Za-z0-9])"
_FUNCTION_VALUE = re.compile(r"(?P<f>[^\W\d_]+)\((?P<x>[^\W\d_]{1,3})\)")


def subscripted(stem: str, formula: str) -> list[str]:
    """The formula's symbols written as `stem` with a subscript the legend leaves out."""
    if len(stem) < 2 or not stem.isalpha() or not (stem.isupper() or stem.islower()):
        return []
    return list(dict.fromkeys(re.findall(rf"{re.escape(stem)}{_SUBSCRIPT}", formula)))


def stands_in(symbol: str, bare: str) -> bool:
    """`symbol` stands in a formula (`bare`: `without_functions` of it): a lower-case name of
    letters as a whole token ("ab" of "ab cd", not of "xyab"); one letter outside function names
    and not a subscript of another case ("Q" not in "Qm", "c" not in "Vc", "L" not in "xL")."""
    if len(symbol) > 1 and symbol.isalpha() and symbol.islower():
        return bool(re.search(rf"(?<![a-z]){re.escape(symbol)}(?![a-z])", bare))
    if len(symbol) == 1 and "A" <= symbol <= "Z":  # "Q" is not the Q of "Qm", a symbol of its own
        return bool(re.search(rf"(?<![a-z]){symbol}(?![a-z])", bare))
    if len(symbol) == 1 and "a" <= symbol <= "z":  # nor "c" the subscript of "Vc"
        return bool(re.search(rf"(?<![A-Z]){symbol}", bare))
    if value := _FUNCTION_VALUE.fullmatch(symbol):  # "h(x)": a math font may print its brackets as other glyphs
        f, x = re.escape(value.group("f")), re.escape(value.group("x"))
        return bool(re.search(rf"{f}\s?[^\sA-Za-z0-9]{x}[^\sA-Za-z0-9]", bare))
    return symbol in bare


def _is_legend_symbol(token: str, math: MathText, *, in_clause: bool = False) -> bool:
    """A symbol of the formulas; in running text not a function word ("a", "de", "The"), in a
    legend clause any letter ("… and d the diameter of the pipe")."""
    if len(token) > 1:  # a capital after a small letter ("iT") is how no word is written
        stop = token.casefold() in FUNCTION_WORDS and not re.search(r"[a-z][A-Z]", token)
    else:  # case tells the letter "L" from the French "l"
        stop = not in_clause and token in FUNCTION_WORDS
    if stop or not math.holds(token):
        return False
    # In a legend clause a symbol with a worded subscript ("Thalf") is one when the formulas hold it.
    # A function's value ("f(P) is …") is explained as the formula writes it.
    if in_clause and _FUNCTION_VALUE.fullmatch(token):
        return True
    return is_symbol(token.rstrip("%")) or in_clause and bool(re.fullmatch(SYMBOL, token))


def _item_symbols(item: re.Match[str], math: MathText) -> list[Span]:
    """The symbols a legend item explains, each a symbol of the formulas ("and the …" is none)."""
    found: list[Span] = []
    at = item.start("sym")
    for between in [*_BETWEEN.finditer(item.group("sym")), None]:
        end = item.start("sym") + between.start() if between else item.end("sym")
        found.append(Span(at, end))
        at = item.start("sym") + between.end() if between else end
    ok = all(_is_legend_symbol(m.of(item.string), math, in_clause=True) for m in found)
    return found if ok else []


def _trimmed(text: str, start: int, end: int) -> Span | None:
    piece = text[start:end]
    if relative := _RELATIVE_CLAUSE.search(piece):
        piece = piece[: relative.start()]
    body = piece.strip().rstrip(" ,.;:")
    body = _VERB_LAST.sub("", body).rstrip(" ,.;:")
    # Words, not another formula ("LF = RPK / ASK"): a lower-case word of three letters at least.
    if not body[:1].isalpha() or not _LOWER_WORD.search(body) or len(body.split()) > _MAX_MEANING_WORDS:
        return None
    at = start + len(piece) - len(piece.lstrip())
    return Span(at, at + len(body))


# A coordination in a legend item of several symbols: one noun phrase each ("the pressure and the
# temperature"), or single modifiers sharing one head ("the horizontal and vertical velocities").
_PHRASE_WORD = r"[^\W\d_]+(?:-[^\W\d_]+)*"
_COORDINATION = re.compile(rf"\s*,\s*(?:(?:{CONJUNCTIONS})\s+)?|\s+(?:{CONJUNCTIONS})\s+", re.IGNORECASE)
_CONJUNCTION = re.compile(rf"(?<!\w)(?:{CONJUNCTIONS})(?!\w)", re.IGNORECASE)
_DETERMINER = re.compile(rf"(?:{_ARTICLE})\s+", re.IGNORECASE)


def _each_own(text: str, meaning: Span, count: int) -> list[Span] | None:
    """A meaning shared by `count` symbols, cut into each one's own words, or None: noun phrases
    that each open with a determiner, one a symbol; else single modifiers before a shared head,
    each symbol's meaning running from its own modifier to the end (a quote is never composed)."""
    piece = meaning.of(text)
    cuts = list(_COORDINATION.finditer(piece))
    # Commas, then the conjunction: "a, b and c" (a comma alone joins no coordination's end).
    if len(cuts) != count - 1 or not _CONJUNCTION.search(cuts[-1].group()):
        return None
    if any(_CONJUNCTION.search(c.group()) for c in cuts[:-1]):
        return None
    starts = [0, *(c.end() for c in cuts)]
    ends = [*(c.start() for c in cuts), len(piece)]
    parts = [piece[a:b] for a, b in zip(starts, ends, strict=True)]
    if all(_DETERMINER.match(p) and len(p.split()) > 1 for p in parts):
        # "the flows of the river and the canal": a later phrase may be the complement's own.
        if any(w.casefold() in FUNCTION_WORDS for p in parts[:-1] for w in p.split()[1:]):
            return None
        return [Span(meaning.start + a, meaning.start + b) for a, b in zip(starts, ends, strict=True)]
    opener = _DETERMINER.match(piece)
    first = opener.end() if opener else 0
    modifiers = [piece[first : ends[0]], *parts[1:-1]]
    last = re.match(rf"({_PHRASE_WORD})\s+\S", parts[-1])
    if last is None or not all(re.fullmatch(_PHRASE_WORD, m) for m in modifiers):
        return None
    if any(w.casefold() in FUNCTION_WORDS for w in [*modifiers, last.group(1)]):
        return None
    return [Span(meaning.start + a, meaning.end) for a in [first, *starts[1:]]]


def _clause(chunk: Chunk, start: int, math: MathText) -> list[Explanation]:
    """The items of a legend clause starting at `start` (just after "where")."""
    text, at = chunk.text, start
    out: list[Explanation] = []
    while (item := _ITEM.match(text, at)) and (symbols := _item_symbols(item, math)):
        nxt = _NEXT_ITEM.search(text, item.end())
        end = _CLAUSE_END.search(text, item.end())
        stop = end.start() if end else len(text)
        go_on = nxt is not None and nxt.start() < stop
        if go_on and nxt is not None:
            stop = nxt.start()
        meaning = _trimmed(text, item.end(), stop)
        if meaning is None:
            break
        own = _each_own(text, meaning, len(symbols)) if len(symbols) > 1 else None
        out.extend(
            Explanation(chunk, symbol, m, "clause")
            for symbol, m in zip(symbols, own or [meaning] * len(symbols), strict=True)
        )
        if not go_on or nxt is None:
            break
        at = nxt.end()
    return out


def legend_after(chunk: Chunk, end: int, math: MathText) -> list[Explanation]:
    """The legend clause right after a formula that ends at `end`, if one follows."""
    text = chunk.text
    after = _AFTER_FORMULA.match(text, end)
    if after is None:
        return []
    if after.group("with"):
        return _clause(chunk, after.end(), math)
    trigger = _TRIGGER.match(text, after.end())
    return _clause(chunk, trigger.end(), math) if trigger else []


def _legend_clauses(chunk: Chunk, math: MathText) -> list[Explanation]:
    return [e for m in _TRIGGER.finditer(chunk.text) for e in _clause(chunk, m.end(), math)]


def _defining_statements(chunk: Chunk, math: MathText) -> list[Explanation]:
    out = []
    for m in _DEFINES.finditer(chunk.text):
        if not _is_legend_symbol(m.group("sym"), math):
            continue
        end = _DEFINITION_END.search(chunk.text, m.end())
        meaning = _trimmed(chunk.text, m.end(), end.start() if end else len(chunk.text))
        if meaning:
            symbol = Span(m.start("sym"), m.end("sym"))
            out.append(Explanation(chunk, symbol, meaning, "defining", reading=m.group("reading") is not None))
    return out


def _dot_leader(chunk: Chunk, leader: re.Match[str], at: int, math: MathText) -> list[Explanation]:
    """A dot-leader line's symbol and its meaning, to the end of its sentence (`at`: where the
    line starts in the chunk's text)."""
    if not _is_legend_symbol(leader.group("sym"), math, in_clause=True):
        return []
    text = chunk.text
    end = _CLAUSE_END.search(text, at + leader.end())
    stop = end.start() if end else len(text)
    # "A . . . Verteilung der Zwischenankunftszeiten, wobei a die Dichte …": another legend.
    if nested := _NESTED_LEGEND.search(text, at + leader.end(), stop):
        stop = nested.start()
    meaning = _trimmed(text, at + leader.end(), stop)
    symbol = Span(at + leader.start("sym"), at + leader.end("sym"))
    return [Explanation(chunk, symbol, meaning, "dot_leader")] if meaning else []


def _symbol_lists(chunk: Chunk, math: MathText) -> list[Explanation]:
    """Lines "Pd : Design pressure", the words going on over lines that start in lower case; in a
    table, a row's first cell a symbol, the next its meaning."""
    out, text, at = [], chunk.text, 0
    formulas = math.spans_in(chunk)
    lines = text.split("\n")
    for k, line in enumerate(lines):
        if leader := _LEADER_LINE.match(line):
            out += _dot_leader(chunk, leader, at, math)
            at += len(line) + 1
            continue
        m = _LIST_LINE.match(line)
        # "Pd = ρgh" is a formula, not a line of a symbol list.
        inside = m is not None and any(f.start <= at + m.start("sym") < f.end for f in formulas)
        if m and not inside and _is_legend_symbol(m.group("sym"), math):
            end = at + len(line)
            if cell := _CELL_END.search(line, m.end()):
                end = at + cell.start()
            elif chunk.kind == "table":
                pass
            else:
                for more in lines[k + 1 :]:
                    if not more[:1].islower():
                        break
                    end += 1 + len(more)
            meaning = _trimmed(text, at + m.end(), end)
            if meaning:
                out.append(Explanation(chunk, Span(at + m.start("sym"), at + m.end("sym")), meaning, "symbol_list"))
        at += len(line) + 1
    return out


def _glued(word: str, words: Counter[str]) -> int | None:
    """Where the word proper starts in a run the text layer glued to a short word before it
    ("avelocity", "Inthe": a space lost), or None. The run occurs only here; what follows the
    short word is a word the document uses."""
    folded = word.casefold()
    if words[folded] > 1:
        return None
    for cut in (1, 2, 3):
        rest = folded[cut:]
        if len(rest) >= 3 and words[rest] and (folded[:cut] in FUNCTION_WORDS or cut == 1):
            return cut
    return None


def _word_before(text: str, end: int) -> re.Match[str] | None:
    """`_WORDS_BEFORE` ending at `end`, searched in a window that widens only while the match
    reaches its edge: the word's length, not the chunk's text before it."""
    width = 64
    while True:
        lo = max(0, end - width)
        m = _WORDS_BEFORE.search(text, lo, end)
        if m is None or m.start() > lo or lo == 0:
            return m
        width *= 2


def _noun_phrase(text: str, end: int, words: Counter[str]) -> Span | None:
    """The words right before `end` (a symbol's start) that name it: up to four, back to a
    function word, none of them one. A first word glued to a function word starts after it; a
    glued word inside the phrase spoils it."""
    start, count, stopped = end, 0, False
    while count < _MAX_NAME_WORDS + 1:
        m = _word_before(text, start)
        if m is None or m.end() != start:
            # A colon ends the phrase as a function word does ("two parts: demonstration data D").
            stopped = count > 0 and text[max(0, start - 2) : start] == ": "
            break
        if m.group(1).casefold() in FUNCTION_WORDS:
            stopped = True
            break
        start, count = m.start(), count + 1
        if text[start - 1 : start] in ("'", "’"):
            stopped = True  # "l'impédance": the elided article ends the phrase
            break
    if not count or count > _MAX_NAME_WORDS:
        return None
    phrase = text[start : end - 1].split(" ")
    for k, word in enumerate(phrase):
        cut = _glued(word, words)
        if cut is None:
            continue
        if k or not cut or not word[:cut].isalpha() or word[:cut].casefold() not in FUNCTION_WORDS and len(phrase) == 1:
            return None
        if word[cut:].casefold() in FUNCTION_WORDS:  # "Inthe": two function words
            start += len(word) + 1
        else:
            start += cut
        stopped = True
        break
    # Not after a function word (a sentence's first words, "See attribute c"): not a name.
    if not stopped or start >= end - 1:
        return None
    head = text[start : end - 1].split()[-1]
    return Span(start, end - 1) if len(head) >= 3 else None


# A symbol named in apposition is followed by punctuation, a relation or a function word
# ("λ is", "T1 and T2,", "Pd of"): before another word ("deg degrees") it is not a symbol.
_TOKEN = re.compile(rf"(?<![\w/\\.'′-]){SYMBOL}(?=[,.;:)=]|\s*$|\s+(?P<next>[^\W\d_]+|[=(]))")
_AND_SYMBOL = re.compile(rf"(?:,\s*|\s+(?:{CONJUNCTIONS})\s+)(?P<sym>{SYMBOL})(?=[\s,.;:)]|$)")


def _appositions(chunk: Chunk, math: MathText, defined: set[int]) -> list[Explanation]:
    out, text = [], chunk.text
    for m in _TOKEN.finditer(text):
        token = m.group()
        if m.start() in defined or token in ("a", "A") or not _is_legend_symbol(token, math):
            continue
        following = m.group("next")
        if following and following not in "=(" and following.casefold() not in FUNCTION_WORDS:
            continue  # "xy 1" (a "≪" lost) or "deg degrees": not a symbol named
        name = _noun_phrase(text, m.start(), math.words)
        if name is None:
            continue
        more = _AND_SYMBOL.match(text, m.end())
        words = name.of(text).split()
        if len(words) == 1 and (more or words[0].casefold() in KIND_NOUNS):
            # "attributes b and c", "the parameter k": one noun for two symbols, or a noun for
            # what any symbol is, says what kind the symbol is, not what it stands for.
            continue
        out.append(Explanation(chunk, Span(m.start(), m.end()), name, "apposition", named=True))
        if more and _is_legend_symbol(more.group("sym"), math):
            out.append(Explanation(chunk, Span(more.start("sym"), more.end("sym")), name, "apposition", named=True))
    return out


# A symbol named in brackets after its noun phrase, opened by a determiner: "the load of the
# beam (Lb)", "the number of welds per girder (Nw)".
_BRACKETED = re.compile(
    rf"(?<![\w-])(?:{_ARTICLE})\s+(?P<name>[^\W\d_][^()\[\],;:.]{{0,80}}?)\s?\((?P<sym>{SYMBOL})\s?\)", re.IGNORECASE
)
_MAX_BRACKETED_WORDS = 8


def _bracketed(chunk: Chunk, math: MathText, defined: set[int]) -> list[Explanation]:
    out, text = [], chunk.text
    for m in _BRACKETED.finditer(text):
        name = m.group("name")
        words = name.split()
        # The phrase nearest the bracket: a later determiner opens it (not one that links a
        # complement: "nombre de jours", "Zahl der Tage").
        inner = [
            k
            for k, w in enumerate(words)
            if re.fullmatch(_ARTICLE, w, re.IGNORECASE) and not re.fullmatch(FORMULA_OF, w, re.IGNORECASE)
        ]
        if inner:
            words = words[inner[-1] + 1 :]
        if not words or len(words) > _MAX_BRACKETED_WORDS or words[-1].casefold() in FUNCTION_WORDS:
            continue
        if any(w.casefold() in FUNCTION_WORDS and not re.fullmatch(FORMULA_OF, w, re.IGNORECASE) for w in words):
            continue  # a verb, a conjunction, a clause: not one noun phrase
        if m.start("sym") in defined or not _is_legend_symbol(m.group("sym"), math):
            continue
        start = m.end("name") - len(" ".join(words))
        phrase = Span(start, m.end("name"))
        if phrase.of(text) != " ".join(words):
            continue
        out.append(Explanation(chunk, Span(m.start("sym"), m.end("sym")), phrase, "bracketed", named=True))
    return out


# What may stand before a symbol that opens a clause stating what it is (a stop inside a
# sentence ends a list number: "2. tn ist …").
_CLAUSE_OPENING = frozenset(",;:.")


def _sentence_legends(chunk: Chunk, math: MathText, said: list[Sentence]) -> list[Explanation]:
    """A symbol the formulas use, stated in a clause of its own to be a noun phrase: after a let
    opener or a legend opener ("Es sei xn die Bedienzeit …", "wobei Tn die Ankunftszeit …
    bezeichnet": the glossary's `legend` construction), or opening its clause before a copula
    ("tn ist die n-te Zwischenankunftszeit", "c is the speed of sound"). The meaning is the noun
    phrase with its complements, as the analysis reads it: a determiner opens it (a bare kind
    noun, a verb or a clause is none)."""
    out = []
    for s in said:
        wording = WORDING.get(s.language)
        if wording is None:
            continue
        tokens = s.tokens
        for stated in legend_statements(s, wording):
            symbol = tokens[stated.term[0]]
            if _is_legend_symbol(symbol.text, math, in_clause=True):
                out.append(Explanation(chunk, Span(symbol.start, symbol.end), stated.definition, "opener"))
        for k, symbol in enumerate(tokens[:-2]):
            if k and tokens[k - 1].text not in _CLAUSE_OPENING:
                continue
            copula = words_at(tokens, k + 1, wording.copulas)
            if copula is None or copula >= len(tokens) or tokens[copula].pos != "DET":
                continue
            phrase = s.phrase_at(copula)
            if phrase is None or not _is_legend_symbol(symbol.text, math):
                continue
            end = s.complements_end(phrase[1], wording.of)
            out.append(Explanation(chunk, Span(symbol.start, symbol.end), s.slice(copula, end), "copula"))
    return out


def explanations(chunk: Chunk, math: MathText) -> list[Explanation]:
    """Every symbol explained in the chunk, in reading order (formulas themselves aside)."""
    if chunk.kind == "table":
        return _symbol_lists(chunk, math)
    if chunk.kind not in ("text", "image"):
        return []
    with document_analysis(math.document) as analysis:
        said = analysis.sentences(chunk)
    stated = [*_legend_clauses(chunk, math), *_defining_statements(chunk, math), *_symbol_lists(chunk, math)]
    # One explanation of a symbol at one place: the pattern readers' where they read it.
    seen = {e.symbol.start for e in stated}
    for e in _sentence_legends(chunk, math, said):
        if e.symbol.start not in seen:
            seen.add(e.symbol.start)
            stated.append(e)
    defined = {e.symbol.start for e in stated}
    found = [*stated, *_appositions(chunk, math, defined), *_bracketed(chunk, math, defined)]
    return sorted((e for e in found if names_something(e, said)), key=lambda e: (e.symbol.start, e.named))


def names_something(e: Explanation, said: list[Sentence]) -> bool:
    """A meaning holds a noun, and is no verb alone ("Es sei xn …" read as "xn: sei", "… to
    attain"), by the tags the sentence analysis gives its words in their sentence (`said`: the
    chunk's analysed sentences)."""
    around = next((s for s in said if s.span.start <= e.meaning.start < s.span.end), None)
    if around is None:
        return True
    tags = [t.pos for t in around.tokens if e.meaning.start <= t.start < e.meaning.end]
    if len(tags) == 1 and tags[0] in VERBAL_TAGS:
        return False
    return not tags or any(t in ("NOUN", "PROPN", "X", "NUM", "ADJ", "SYM") for t in tags)


def read_symbol_legends(document: ParsedDocument) -> list[Finding]:
    """Glossary reader: each symbol explained in words, and each formula's left-hand symbol
    with the name its lead-in gives it ("The pressure drop … is given by P = …")."""
    with document_math(document) as math:
        return _symbol_findings(document, math)


def _symbol_findings(document: ParsedDocument, math: MathText) -> list[Finding]:
    if not math.formulas:
        return []
    findings = []
    for chunk in document.chunks:
        for e in math.explained(chunk):
            if e.reading:
                continue
            # Where the symbol and its words stand together: "the thermal conductivity λ".
            start, end = min(e.symbol.start, e.meaning.start), max(e.symbol.end, e.meaning.end)
            anchor = Quote(chunk.text[start:end], chunk)
            meaning = e.quote()
            findings.append(
                Finding(e.term, anchor, "symbol_legend", full_name=meaning if e.named else None, definition=meaning)
            )
    for chunk, found in math.formulas:
        if not found.decided or found.lhs is None or found.layout == "named_line":
            continue
        if not is_symbol(found.lhs.of(chunk.text)):
            continue
        name = lead_in_name(chunk, found.span.start, inline=found.layout == "inline")
        if name is not None:
            findings.append(Finding(found.lhs.of(chunk.text), name, "symbol_legend", definition=name))
    return findings
