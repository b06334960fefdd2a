"""The condition clause of a rule, verbatim, and what is left of it: leading ("If the seal
leaks, …", "For a cold engine, …", "Pour convertir …, …"), trailing ("… unless a spare is
fitted", "… when possible", "… in cases where the tank is full"), a German scope before the
finite verb ("Bei kaltem Motor muss …", where the sentence analysis finds the verb) or a proviso
between commas ("…, sempre che l'Assicurato sia in vita, …"), in English, French, German,
Spanish, Italian and Indonesian: closed classes of subordinators and prepositions, the lexicon's
(language/). Offsets into the statement's own text, nothing rewritten.
"""

from __future__ import annotations

import re
from functools import lru_cache

from ....contracts import Chunk
from ...document.text import Span, sentences
from ...language.analysis import VERBAL_TAGS, DocumentAnalysis
from ...language.definition_wording import WORDING
from ...language.lexicon import (
    ALTERNATIVES,
    AS_NEEDED,
    ASKING_WORDS,
    BARE_THEN_WORDS,
    CONDITION_OPENERS,
    CONDITIONALS,
    DISCOURSE_MARKERS,
    IF_THEN_OPENERS,
    PROVISOS,
    SET_PHRASE_OPENERS,
    THEN_WORDS,
    TRAILING_CONDITIONS,
    WHETHER_CONJUNCTIONS,
)

_I = re.IGNORECASE

# Connectives and discourse markers that open a sentence without making it conditional.
DISCOURSE = re.compile(rf"(?:(?:{DISCOURSE_MARKERS}),\s*)+")
# A sentence set in brackets: "(If so, it must be logged.)".
_OPEN_BRACKET = re.compile(r"[(\[]\s*")
# A clause up to its comma; a full stop inside a number ("22.40 mm") does not end it.
_CLAUSE = r"(?:[^,;:.!?]|\.(?=\d))*?"
_LEADING = re.compile(rf"(?:{CONDITION_OPENERS})\b" + _CLAUSE + r"(?=,)")
# A trailing condition: "if"/"when" after a verb of asking means "whether", "where" after a noun
# is relative, so those count only in the forms below.
_TRAILING = re.compile(rf"(?:,\s*|\s+)(?P<c>(?:{TRAILING_CONDITIONS})\b)", _I)
_WHETHER = re.compile(rf"\b(?:{ASKING_WORDS})\s*$", _I)
# Conditions that make a "can"/"may" a permission the reader is given, not a capability.
_NORMATIVE_CONDITION = re.compile(AS_NEEDED, _I)
_PROVISO = re.compile(PROVISOS, _I)
_LABEL = re.compile(r"[^.:;!?]{1,120}?:\s*(?=[A-Z])")
# A trailing condition ends at its sentence's end, a line break or a semicolon, never in the
# next sentence or list item of a joined statement.
_CLAUSE_END = re.compile(r"\n|;")
_CLAUSE_TAIL = " \t.;:!?"
_SET_PHRASE = re.compile(rf"(?:{SET_PHRASE_OPENERS})\s")


def discourse_end(text: str, start: int = 0) -> int:
    """Where `text` goes on after the bracket and connectives that open it ("For example, …",
    "(If so, …)")."""
    bracket = _OPEN_BRACKET.match(text, start)
    at = bracket.end() if bracket else start
    m = DISCOURSE.match(text, at)
    return m.end() if m else at


def leading_condition(text: str, start: int = 0) -> Span | None:
    """The clause before the first comma when it opens with a conditional word, after any
    connectives ("However, when the tank is cold, …") or a label ("Storage: Shortly after
    delivery, …", as recommendation tables and notes write them)."""
    label = _LABEL.match(text, start)
    for at in (start, *([label.end()] if label else [])):
        m = _LEADING.match(text, discourse_end(text, at))
        if m:
            return Span(m.start(), m.end())
    return None


_OPENER = re.compile(rf"(?:{CONDITION_OPENERS})\b")
# A scope before a verb-second language's finite verb is a few words: more is a clause of its own.
_MAX_SCOPE_TOKENS = 8


def verb_second_scope(text: str, chunk: Chunk, start: int, analysis: DocumentAnalysis) -> Span | None:
    """ "Bei kaltem Motor muss das Ventil …": in a verb-second language a leading scope needs no
    comma; it ends where the sentence analysis finds the finite verb. `text` is the statement,
    `start` its offset in `chunk`'s text."""
    at = discourse_end(text)
    if not _OPENER.match(text, at):
        return None
    said = next((s for s in analysis.sentences(chunk) if s.span.start <= start < s.span.end), None)
    if said is None or not (wording := WORDING.get(said.language)) or not wording.verb_second:
        return None
    tokens = [t for t in said.tokens if start + at <= t.start < start + len(text)]
    verb = next((k for k, t in enumerate(tokens[:_MAX_SCOPE_TOKENS]) if t.pos in VERBAL_TAGS), None)
    if verb is None or verb < 2 or any(not t.text[0].isalnum() for t in tokens[:verb]):
        return None
    return Span(at, tokens[verb - 1].end - start)


@lru_cache(maxsize=4096)
def trailing_condition(text: str, after: int) -> Span | None:
    """A condition clause after position `after`, to the end of its sentence. Cached: a
    statement's reading and its entry ask for the same clause."""
    ends: list[int] | None = None
    for m in _TRAILING.finditer(text, after):
        word = m.group("c").casefold()
        if word in WHETHER_CONJUNCTIONS and _WHETHER.search(text[: m.start()]):
            continue
        if ends is None:
            ends = [s.end for s in sentences(text, Span(0, len(text)))]
        end = _CLAUSE_END.search(text, m.end("c"))
        limit = min(end.start() if end else len(text), next((e for e in ends if e > m.end("c")), len(text)))
        stop = len(text[:limit].rstrip(_CLAUSE_TAIL))
        # "0 if the file is open, 1 otherwise": the other branch is no part of the condition.
        branch = _ALTERNATIVE.search(text, m.end("c"), stop) and _OTHER_BRANCH.search(text, m.end("c"), stop)
        stop = branch.start() if branch else stop
        # "(include the path as necessary)": the bracket closes around the clause, not inside it.
        while text[stop - 1 : stop] in ")]" and stop > m.end("c") and _unbalanced(text[m.start("c") : stop]):
            stop = len(text[: stop - 1].rstrip(_CLAUSE_TAIL))
        # A lone "if" at the very end is no clause; a set phrase ("as needed") is one.
        if stop > m.end("c") or _SET_PHRASE.match(word):
            return Span(m.start("c"), stop)
    return None


def _unbalanced(clause: str) -> bool:
    return clause.count("(") + clause.count("[") < clause.count(")") + clause.count("]")


_COMMA = re.compile(r",\s*")


def inner_proviso(text: str, before: int) -> Span | None:
    """A proviso set off by commas inside the sentence, before position `before` (the rule's
    wording): "Alla data di scadenza, sempre che l'Assicurato sia in vita, l'Impresa …", "The
    nut, provided the thread is intact, may be reused"."""
    for comma in _COMMA.finditer(text, 0, before):
        if proviso(text[comma.end() :]):
            end = text.find(",", comma.end())
            if comma.end() < end <= before:
                return Span(comma.end(), end)
    return None


def proviso(condition: str) -> bool:
    """ "Provided the nut is clamped", "à condition que …": the consequence holds only under it."""
    return bool(_PROVISO.match(condition))


def normative_condition(condition: str) -> bool:
    """ "If necessary", "when possible", "as applicable": a reader's option, not a fact."""
    return bool(_NORMATIVE_CONDITION.match(" ".join(condition.split())))


# "If …, then …", "Apabila … maka …", "Si …, alors …": a condition and its consequence stated
# outright ("then" only right after the condition's comma: "If X, the Y then …" is one clause).
_EXPLICIT = re.compile(rf"(?:{IF_THEN_OPENERS})\b.+?(?:,\s*(?:{THEN_WORDS})\b|,?\s+(?:{BARE_THEN_WORDS})\b)", re.DOTALL)


# Both branches of a condition stated: "If none is open, [] is returned, otherwise a list",
# "0 if the file is open, 1 otherwise" (a return convention: what the reader can conclude either way).
_BRANCHES = re.compile(
    rf"\b(?:{CONDITIONALS})\b[^.;]*?,\s*(?:{ALTERNATIVES})\b|\b(?:{CONDITIONALS})\b[^.;]*?,[^.;]*\b(?:{ALTERNATIVES})[\s.;]*$",
    _I,
)


_OTHER_BRANCH = re.compile(rf",[^,;]*\b(?:{ALTERNATIVES})\b", _I)
# Read for both branches only where the other one is named: most statements name none.
_ALTERNATIVE = re.compile(rf"\b(?:{ALTERNATIVES})\b", _I)


def explicit_conditional(text: str) -> bool:
    branches = _ALTERNATIVE.search(text) and _BRANCHES.search(text)
    return bool(_EXPLICIT.match(text, discourse_end(text)) or branches)


def clause_start(text: str, comma: int) -> int:
    """Where the main clause begins after a leading condition ending at `comma`."""
    at = comma + 1 if text[comma : comma + 1] == "," else comma
    while at < len(text) and text[at].isspace():
        at += 1
    return discourse_end(text, at)
