"""What a document calls a formula: the lead-in sentence that introduces it.

"The head loss is given by", "Efficiency is computed as", "La puissance est donnée
par", "Die Leistung wird berechnet als", "La potencia se calcula como", "Produksi dihitung dengan
rumus berikut:": the subject before such a verb is the formula's name. A lead-in that ends in a
named quantity ("… is represented by the pump head") names it with that; one that ends in
a word for any formula ("the following formula") or a pronoun ("this gives") names nothing.
The lead-in is the sentence right before the formula (or, inline, the same sentence before it).
"""

from __future__ import annotations

import re

from ....contracts import Chunk
from ...document.math_text import is_symbol
from ...document.text import Span, paragraphs, sentences
from ...language.lexicon import (
    ARTICLES,
    COPULAS,
    ELIDED_ARTICLE,
    FOLLOWING,
    FORMULA_ARTICLES,
    FORMULA_LEAD_INS,
    FORMULA_NOUNS,
    FORMULA_OF,
    PRONOUNS,
    SUBORDINATORS,
    alternation,
    whole_word,
)
from ..findings import Quote

_VERB_PHRASE = re.compile(
    # "The formula for the load factor is:": a bare copula ending the lead-in.
    rf"(?:\s+|(?<=,))(?:{FORMULA_LEAD_INS}|(?:{alternation(COPULAS)})(?=\s*:?\s*$))(?=\s|[:,.]|$)",
    re.IGNORECASE,
)
# A lead-in's end that names no quantity: a word for any formula, "following", a condition.
_GENERIC_TAIL = re.compile(
    rf"^(?:[,(]|(?:{SUBORDINATORS})\b|$)|(?:^|\s)(?:the\s+)?(?:{FOLLOWING}|{FORMULA_NOUNS})\b", re.IGNORECASE
)
_ARTICLE_TAIL = re.compile(rf"^(?:(?:{alternation(ARTICLES)})\s+|{ELIDED_ARTICLE})\S", re.IGNORECASE)
_PRONOUN = whole_word(PRONOUNS)
# "The formula for the load factor is:" names the load factor.
_FORMULA_FOR = re.compile(
    rf"^(?:(?:{alternation(FORMULA_ARTICLES)})\s+)?(?:{FORMULA_NOUNS})\s+(?:{FORMULA_OF})\s+", re.IGNORECASE
)
_MAX_NAME_WORDS = 20
_MAX_TAIL_WORDS = 6


def _lead_sentence(chunk: Chunk, start: int) -> Span | None:
    """The sentence that ends where the formula starts (display) or holds it (inline)."""
    text = chunk.text
    pieces = [p for p in paragraphs(text[:start]) if p.of(text).strip()]
    if not pieces:
        return None
    last = pieces[-1]
    said = sentences(text, Span(last.start, min(last.end, start)))
    return said[-1] if said else None


def _name_in(text: str, sentence: Span, inline: bool) -> Span | None:
    piece = sentence.of(text)
    body = piece.rstrip(" \t\r\n:,.")
    for m in _VERB_PHRASE.finditer(body):
        tail = body[m.end() :].strip()
        if inline and tail:
            continue  # inline, the verb must lead straight into the formula
        head = body[: m.start()]
        # A leading clause ("In this case, the flow …") is not part of the name.
        cut = max(head.rfind(", "), head.rfind(",")) + 1
        if cut and head[cut:].strip():
            head_start = cut
        else:
            head_start = 0
        if tail and not _GENERIC_TAIL.search(tail) and _ARTICLE_TAIL.match(tail):
            if len(tail.split()) <= _MAX_TAIL_WORDS and "," not in tail:
                at = body.index(tail, m.end())
                return Span(sentence.start + at, sentence.start + at + len(tail))
        name = head[head_start:].strip()
        if generic := _FORMULA_FOR.match(name):
            name = name[generic.end() :]
        if not name or _PRONOUN.match(name) or is_symbol(name) or len(name.split()) > _MAX_NAME_WORDS:
            return None
        at = head.index(name, head_start)
        return Span(sentence.start + at, sentence.start + at + len(name))
    return None


def lead_in_name(chunk: Chunk, start: int, inline: bool) -> Quote | None:
    """The formula's name, from the lead-in before `start` (where the formula starts)."""
    text = chunk.text
    sentence = _lead_sentence(chunk, start)
    if sentence is None:
        return None
    if inline:
        sentence = Span(sentence.start, start)
    elif text[sentence.end : start].strip(" \t\r\n:,.\x00-\x1f"):
        return None  # something stands between the lead-in and the formula
    name = _name_in(text, sentence, inline)
    return Quote(name.of(text), chunk) if name else None
