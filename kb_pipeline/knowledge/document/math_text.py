"""Where a chunk's text holds a formula, as the parser wrote it: offsets only, nothing changed.

The flash tier gives a display equation as the text layer read inside its box: short lines of
symbols, operators and numbers, often one operand to a line ("P0 =", "ρ", "πr2"), sometimes with
a glyph the font left out (an "=" or a "≪"). So a formula is found by layout, not by parsing:

- a *math line* holds no prose word (four or more letters, unless a function call "cosh(");
- a *relation line* starts a formula: a symbol, a relation (= ≈ ≤ ≥ ∝ ≡), then math or nothing
  (the expression continues on the math lines below), or the older "Name = a x b" line;
- consecutive math lines form a region, cut into formulas at each relation line and after an
  equation number "(3)"; math before the first relation line is a formula of its own where the
  parser boxed an equation in the chunk (`has_formula`) or an equation number closes it, and it
  has an operator and a symbol (a formula whose "=" the text layer lost);
- in prose, an inline "Rt = 1/(R1 + R2)": a symbol, a relation, then math up to the next word;
- a paragraph (the text of one of the parser's boxes: an equation's, or a centred line's) that
  ends in an equation number and reads as no sentence is one formula, up to that number, whatever
  its glyphs: a journal's math font gives "=" and "+" as letters ("Q ZaCbX"), and sub- and
  superscripts on lines of their own, so no line of it looks like math to the rules above.

Each layout is one reader (`FORMULA_READERS`: display regions, named lines, inline formulas,
then the numbered boxes none of them read); the formulas branch and the legend reader read what
they find together, in reading order.

Never a formula: a value ("d = 12 mm", "p = 0.05", a date, a version), a code line (quotes,
attribute access, statements), an unbalanced piece, a limit ("x → ∞" holds no relation).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from ...contracts import Chunk
from ..language.lexicon import CONDITIONALS, FUNCTION_WORDS, IF_THEN_OPENERS
from .text import Span, paragraphs

FormulaLayout = Literal["display", "inline", "named_line"]

RELATIONS = "=≈≤≥∝≡"
# A symbol as a text layer prints one: a letter, then up to four letters or digits (Tc, P0, ri,
# Rth, ω, eta, x12), primes allowed; at most three letters (four would be a word).
SYMBOL = r"[^\W\d_][^\W_]{0,4}['′]*"
_SYMBOL = re.compile(SYMBOL)
_LETTERS = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"[^\W\d_]{4,}")
_FUNCTION_CALL = re.compile(r"[^\W\d_]+(?=\s?\()")
# Code, not mathematics: quotes, statements, attribute access (doc.outline), calls with no
# argument, comparison and update operators, comments.
_CODE = re.compile(r"[\"`;{}#\\]|='|'\w+'|->|[^\W\d]\.[^\W\d]|\w\(\)|==|!=|\+=|\+\+|&&|\|\||:=|=>|<=|=\*|://")
_OPERATOR = re.compile(r"[+\-−×·/÷^*√∑∏∫]|(?<=\s)[xX](?=\s)|[^\W\d_]+\(")
_EQUATION_NUMBER = re.compile(r"\(\d{1,3}[a-z]?\)\s*$")
_RELATION_LINE = re.compile(
    rf"^\s*(?P<lhs>[^\W\d_][^\s{RELATIONS}()]{{0,7}}(?:\([^()\s]{{1,8}}\))?)\s*(?P<rel>[{RELATIONS}])(?![=>])\s*(?P<rhs>.*)$"
)
# The older convention: a worded name, then an expression with spaced operators on one line.
_NAMED_LINE = re.compile(rf"^\s*(?P<lhs>[^\W\d][\w ]{{0,40}}?)\s*=\s*(?P<rhs>[^{RELATIONS}<>!]+?)[\s,.]*$")
_SPACED_OPERATOR = re.compile(r"\s[x×*/+\-−÷·]\s|/")
# A text layer flattens a subscript "n+1" into the line ("wn+1 = …"): the symbol is its letters.
_INLINE = re.compile(
    rf"(?<![\w/=<>!.?&#:~\-])(?P<lhs>[^\W\d_][^\W_]{{0,4}})(?:[+−-]\d)?\s?(?P<rel>[{RELATIONS}])(?![=>])\s?"
)
# Where an inline expression stops: a clause mark, an equation number, or a space before a word
# of three letters or a function word ("où").
_FUNCTION_WORD = "|".join(sorted((w for w in FUNCTION_WORDS if len(w) > 1), key=len, reverse=True))
_INLINE_END = re.compile(
    r"[,;:](?:\s|$)|\.(?:\s|$)|\s*\(\d{1,3}[a-z]?\)(?=\s|$)|\s(?=[^\W\d_]{3,})|\s{2,}|$"
    rf"|\s(?=(?:{_FUNCTION_WORD})(?!\w))"
)
# A value, not a formula: a number (a date, a version, a range, 3e-4), optionally with a unit, glued
# ("12mm") or not ("22.40 mm", "85 °C"); "2a" is a product.
_NUMBER = re.compile(r"[-−+]?\d[\d.,:/\-−]*(?:[eE][-−+]?\d+)?(?:%|[^\W\d_]{2,}\S*)?")
_UNIT = re.compile(r"[^\W\d_°µ%][^\s()]*|[°µ%]\S*")
# What makes an inline right-hand side mathematics rather than a word ("ND = no"): an operator
# (a bare "x" too), a letter that is not Latin (ω, π), or a letter and a digit side by side (b2).
_SHAPED = re.compile(r"[+\-−×·/÷^*√∑∏∫(]|(?<=\s)[xX](?=\s)|[^\W\d_a-zA-Z]|[^\W\d_]\d|\d[^\W\d_]")
# A set in braces ("{(x, y)}") is mathematics, whatever braces say in code.
_SET = re.compile(r"\{[^{}\"'`;#\\]*\}")
_CLOSING = re.compile(r"[\s,.;:\x00-\x1f]+$")
# A whole word of letters, capitalised or not ("Results", "flow"): in a formula box, one such
# token in three at most (a glued "Nzero" or "Cexp" may pass as one).
_PLAIN_WORD = re.compile(r"[^\W\d_][^\W\d_A-ZΑ-Ω]{3,}[.,;:]?")
_MAX_BOX_LINES = 12
_MAX_BOX_LINE = 80
_MAX_LHS_NAME_WORDS = 5
_MAX_NAMED_LINE = 160


@dataclass(frozen=True)
class FormulaSpan:
    """One formula in a chunk: where it stands, its left-hand side if it has one, and how it
    was written (a display formula, an inline one in a sentence, a "Name = …" line)."""

    span: Span
    lhs: Span | None
    layout: FormulaLayout
    # A "Name = word" line: an equation or an assignment, layout alone cannot say.
    decided: bool = True


def is_symbol(token: str) -> bool:
    """Shaped like a symbol: a letter, then letters or digits, at most three letters."""
    return bool(_SYMBOL.fullmatch(token)) and len(_LETTERS.findall(token)) <= 3


def _script(ch: str) -> str:
    return unicodedata.name(ch, "?").split(" ")[0]


def is_word(run: str) -> bool:
    """Four letters or more of one script, not symbols set side by side: "jωLC" (two scripts)
    and "RtCp" (capitalised pieces of two letters) are products of symbols."""
    if len({_script(ch) for ch in run}) > 1:
        return False
    if run.isupper():
        return True
    pieces = re.findall(r"[^\W\d_][^\W\d_A-ZΑ-Ω]*", run)
    return not (len(pieces) > 1 and all(len(p) <= 2 for p in pieces))


# Function words that mark a line as a sentence, never a symbol set side by side ("an" may be
# a and n, so short ones are left out unless they are plainly words).
_SENTENCE_WORDS = frozenset(w for w in FUNCTION_WORDS if len(w) > 2) | {"is", "of", "to", "by", "as", "or", "if", "it"}
_SHORT_WORD = re.compile(r"(?<![^\W_])[^\W\d_]{2,3}(?![^\W_])")


def _prose_words(line: str) -> list[str]:
    calls = {m.start() for m in _FUNCTION_CALL.finditer(line)}
    words = [m for m in _WORD.finditer(line) if is_word(m.group())]
    words += [m for m in _SHORT_WORD.finditer(line) if m.group().casefold() in _SENTENCE_WORDS]
    return [m.group() for m in words if m.start() not in calls]  # "sin(" is a function, not Spanish


def _is_code(line: str) -> bool:
    return bool(_CODE.search(line))


def _is_math(line: str) -> bool:
    return bool(line.strip()) and not _prose_words(line) and not _is_code(line)


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth < 0:
            return False
    return depth == 0


def is_value(expression: str) -> bool:
    """A number, optionally with a unit ("22.40 mm", "4.250 MPa", "2024-01-05"): a statement of
    a value, not a formula."""
    tokens = expression.strip().rstrip(",.;").split()
    if not _LETTERS.search(expression):
        return True
    return bool(_NUMBER.fullmatch(tokens[0])) and (
        len(tokens) == 1 or len(tokens) == 2 and bool(_UNIT.fullmatch(tokens[1]))
    )


def _relation_start(line: str) -> re.Match[str] | None:
    """A line opening a display formula: symbol, relation, then math (or nothing yet)."""
    m = _RELATION_LINE.match(line)
    if not m or _is_code(line) or not is_symbol(re.sub(r"\(.*", "", m.group("lhs"))):
        return None
    return m if _is_math(m.group("rhs")) or not m.group("rhs").strip() else None


def _named_line(line: str) -> re.Match[str] | None:
    m = _NAMED_LINE.match(line)
    if not m or len(line) > _MAX_NAMED_LINE or _is_code(line) or m.group("lhs").isspace():
        return None
    if len(m.group("lhs").split()) > _MAX_LHS_NAME_WORDS:
        return None
    # A formula of words ("PA = (Total Hours - Breakdown Hours) / Total Hours"), not a sentence.
    if any(w.casefold() in FUNCTION_WORDS for w in re.findall(r"[^\W\d_]+", m.group())):
        return None
    return m


# Blank; a line of a display region (math, or a relation opening a formula); or prose, where
# a named line or an inline formula may stand.
_LineKind = Literal["blank", "display", "prose"]


@dataclass
class _Line:
    start: int
    end: int
    text: str
    kind: _LineKind


def _lines(text: str) -> list[_Line]:
    out, at = [], 0
    for piece in text.split("\n"):
        kind: _LineKind = (
            "blank" if not piece.strip() else "display" if _is_math(piece) or _relation_start(piece) else "prose"
        )
        out.append(_Line(at, at + len(piece), piece, kind))
        at += len(piece) + 1
    return out


def _trimmed(text: str, start: int, end: int) -> Span | None:
    """The piece without surrounding blanks and the punctuation that closes a display line."""
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    body = _CLOSING.sub("", piece.strip())
    return Span(start + lead, start + lead + len(body)) if body else None


def _display(chunk: Chunk, lines: list[_Line], standalone: bool) -> list[FormulaSpan]:
    """The formulas of one region of math lines (`standalone`: figure text, one line each)."""
    text = chunk.text
    out: list[FormulaSpan] = []
    groups: list[tuple[re.Match[str] | None, list[_Line]]] = []
    for line in lines:
        start = _relation_start(line.text)
        if start and groups and not standalone and start.group("rhs").strip() and is_value(start.group("rhs")):
            start = None  # "i=1" under a sum: the formula above goes on
        if start or not groups or _EQUATION_NUMBER.search(groups[-1][1][-1].text) or standalone:
            groups.append((start, [line]))
        else:
            groups[-1][1].append(line)
    for start, members in groups:
        # An equation number ends the formula and is not part of it.
        number = _EQUATION_NUMBER.search(members[-1].text)
        end = members[-1].start + number.start() if number else members[-1].end
        span = _trimmed(text, members[0].start, end)
        if span is None:
            continue
        body = span.of(text)
        if start is not None:
            lhs = Span(members[0].start + start.start("lhs"), members[0].start + start.end("lhs"))
            expression = body[lhs.end - span.start :].lstrip()[1:]
            if expression.strip() and not is_value(expression):
                out.append(FormulaSpan(span, lhs, "display"))
            continue
        numbered = bool(_EQUATION_NUMBER.search(members[-1].text))
        if standalone or not (chunk.has_formula or numbered):
            continue
        # A range of numbers ("881-892") is no operator.
        if _OPERATOR.search(re.sub(r"\d\s?[-−]\s?\d", " ", body)) and any(
            is_symbol(t) for t in re.findall(r"[^\W\d_][^\W_]*", body)
        ):
            out.append(FormulaSpan(span, None, "display"))
    return out


def _juxtaposed(expression: str) -> bool:
    """Symbols side by side, a product ("m a"), not one word ("no") or one symbol ("x = y")."""
    tokens = expression.split()
    return len(tokens) > 1 and all(is_symbol(t) and (len(t) == 1 or t.casefold() not in FUNCTION_WORDS) for t in tokens)


def _inline_stop(text: str, start: int) -> int:
    """Where an inline expression that starts at `start` ends: the first end mark outside its
    brackets ("D = {(x, y)}": the comma inside the set ends nothing), else the first one."""
    ends = [e.start() for e in _INLINE_END.finditer(text, start)]
    return next((e for e in ends if _balanced(text[start:e])), ends[0] if ends else len(text))


# "Falls Tn+1 ≥ Tn + wn + xn ist …", "If x ≤ 0, …": an inequality a conditional opens is the
# case a statement holds in, not a formula.
_CONDITION_BEFORE = re.compile(rf"(?:^|\s)(?:{CONDITIONALS}|{IF_THEN_OPENERS})\s+$", re.IGNORECASE)
_INEQUALITIES = "≤≥"


def _inline(chunk: Chunk, line: _Line) -> list[FormulaSpan]:
    out = []
    for m in _INLINE.finditer(line.text):
        if not is_symbol(m.group("lhs")):
            continue
        if m.group("rel") in _INEQUALITIES and _CONDITION_BEFORE.search(line.text, 0, m.start()):
            continue
        stop = _inline_stop(line.text, m.end())
        expression = line.text[m.end() : stop]
        if not expression.strip() or is_value(expression) or not _balanced(expression):
            continue
        if _is_code(_SET.sub(" ", expression)):
            continue
        if _prose_words(expression) or not (_SHAPED.search(expression) or _juxtaposed(expression)):
            continue
        out.append(
            FormulaSpan(
                Span(line.start + m.start(), line.start + stop),
                Span(line.start + m.start("lhs"), line.start + m.end("lhs")),
                "inline",
            )
        )
    return out


def _numbered_box(text: str, paragraph: Span) -> FormulaSpan | None:
    """A boxed equation's paragraph that ends in its number and reads as no sentence: the
    formula, its number left out."""
    body = paragraph.of(text)
    number = _EQUATION_NUMBER.search(body)
    lines = [line for line in body.splitlines() if line.strip()]
    if number is None or len(lines) > _MAX_BOX_LINES or any(len(line) > _MAX_BOX_LINE for line in lines):
        return None
    formula = body[: number.start()]
    tokens = formula.split()
    if not tokens or _is_code(formula) or is_value(formula) or re.search(r"[.!?]\s", formula):
        return None
    if any(t.casefold().strip(".,;:") in _SENTENCE_WORDS for t in tokens):
        return None
    plain = sum(bool(_PLAIN_WORD.fullmatch(t)) for t in tokens)
    if 3 * plain > len(tokens) or not any(is_symbol(t) for t in re.findall(r"[^\W\d_][^\W_]*", formula)):
        return None
    span = _trimmed(text, paragraph.start, paragraph.start + number.start())
    if span is None or len(span.of(text).split()) < 2:
        return None
    # The paragraph starts at its first line's first character.
    start = _relation_start(body.split("\n", 1)[0])
    lhs = Span(paragraph.start + start.start("lhs"), paragraph.start + start.end("lhs")) if start else None
    return FormulaSpan(span, lhs, "display")


def _boxed(chunk: Chunk, found: list[FormulaSpan]) -> list[FormulaSpan]:
    """The numbered boxes the line rules found nothing in (`_numbered_box`). No `has_formula`
    needed: the parser may read a centred equation as a text item."""
    if chunk.kind != "text":
        return []
    out = []
    for paragraph in paragraphs(chunk.text):
        if any(f.span.start < paragraph.end and paragraph.start < f.span.end for f in found):
            continue
        box = _numbered_box(chunk.text, paragraph)
        if box is not None:
            out.append(box)
    return out


def _display_formulas(chunk: Chunk, lines: list[_Line]) -> list[FormulaSpan]:
    """Display formulas: each region of consecutive math lines cut into formulas (`_display`). A
    blank line does not end a region, except in a figure's text, where every line stands alone."""
    standalone = chunk.kind == "image"
    regions: list[list[_Line]] = [[]]
    for line in lines:
        if line.kind == "display" or line.kind == "blank" and not standalone:
            regions[-1].append(line)
        elif line.kind == "prose" and regions[-1]:
            regions.append([])
    return [
        f for region in regions for f in _display(chunk, [line for line in region if line.kind != "blank"], standalone)
    ]


def _named_formula(chunk: Chunk, line: _Line) -> FormulaSpan | None:
    """A "Name = a x b" line: a formula when its operators are spaced, an open one when its right
    side is neither prose nor a value ("Owner = JOE": a model decides)."""
    named = _named_line(line.text)
    if named is None:
        return None
    spaced = bool(_SPACED_OPERATOR.search(named.group("rhs")))
    if not spaced and (_prose_words(named.group("rhs")) or is_value(named.group("rhs"))):
        return None
    span = _trimmed(chunk.text, line.start, line.end)
    lhs = Span(line.start + named.start("lhs"), line.start + named.end("lhs"))
    return FormulaSpan(span, lhs, "named_line", decided=spaced) if span else None


def _named_lines(chunk: Chunk, lines: list[_Line]) -> list[FormulaSpan]:
    return [f for line in lines if line.kind == "prose" and (f := _named_formula(chunk, line))]


def _inline_formulas(chunk: Chunk, lines: list[_Line]) -> list[FormulaSpan]:
    """Inline formulas in the prose lines that are no named line."""
    prose = [line for line in lines if line.kind == "prose"]
    return [f for line in prose if _named_formula(chunk, line) is None for f in _inline(chunk, line)]


# The formula readers, one per layout, each reading a chunk's lines; a numbered box (`_boxed`) is read where none of them found one.
FORMULA_READERS = (_display_formulas, _named_lines, _inline_formulas)


def formula_spans(chunk: Chunk) -> list[FormulaSpan]:
    """Every formula of a text or figure chunk, in reading order (tables are left to their cells)."""
    if chunk.kind not in ("text", "image"):
        return []
    lines = _lines(chunk.text)
    found = [f for read in FORMULA_READERS for f in read(chunk, lines)]
    return sorted([*found, *_boxed(chunk, found)], key=lambda f: f.span.start)
