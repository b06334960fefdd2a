"""Definitions under a label: run-in labelled bullets ("• Ball valve: The ball valve is a
quarter-turn valve …"), and numbered definitions ("Definition 2 (Haul road). A haul road is …",
"Definition – Payload: the mass …").

A run-in label is only read as a term in a list of them (two labelled paragraphs in one chunk at
least), and only where its body talks about it: the body opens with the label (its copula, or a
verb of its own), or with an indefinite article, never with a pronoun ("Training: We recommend
…"). The definition is the body's first sentence, after the label repeated and its copula.
"""

from __future__ import annotations

import re

from ....contracts import Chunk, ParsedDocument
from ...document.text import Span, paragraphs, sentences, words
from ...language.lexicon import (
    ARTICLES,
    ASIDE_LABELS,
    DEFINITION_LABELS,
    INDEFINITE_ARTICLES,
    PRONOUNS,
    alternation,
    whole_word,
)
from ..findings import Finding, Quote
from .definition_words import COPULA, NOT_A_DEFINING_VERB, can_name_a_term, drop_article, holds, word_key

_BULLET = r"(?:[•▪●◦‣∙·*\-–\uf0a7\uf0b7\uf0d8\uf076]\s*)?"
_LABELLED = re.compile(rf"^{_BULLET}(?P<label>[^\W\d_][^:\n]{{1,60}}?)\s*:\s+(?P<body>\S)")
_NUMBERED = re.compile(
    rf"^(?:{DEFINITION_LABELS})\s*(?:\d+(?:\.\d+)*)?\s*"
    r"(?:[(\[](?P<term>[^()\[\]\n]{2,60})[)\]]\s*[.:]?|[–—:-]\s*(?P<dashed>[^:.\n]{2,60}?)\s*[:.])\s+(?P<body>\S)"
)
# Labels that head a note or a pointer, not a term.
_NOT_A_LABEL = re.compile(
    rf"^(?:{ASIDE_LABELS}"
    # An API reference's fields.
    r"|returns?|param(?:eter)?s?|arguments?|args|type|rtype|raises|default|usage|syntax)\b",
    re.IGNORECASE,
)
_COPULA = re.compile(rf"^(?:{COPULA})$", re.IGNORECASE)
_ARTICLE = re.compile(rf"\s(?:{alternation(ARTICLES)})\s", re.IGNORECASE)
_INDEFINITE = whole_word(INDEFINITE_ARTICLES)
# A body opening with a pronoun (a footnote mark may be glued to it) speaks of something else.
_PRONOUN = re.compile(rf"^\d*(?:{alternation(PRONOUNS)})\b", re.IGNORECASE)


def _definition(text: str, label: str, body: Span, *, listed: bool) -> Span | None:
    """The body's first sentence, after "(The) label (is)"; None where it does not talk about
    the label (a list entry only: a numbered definition always does). A list entry talks about
    its label when it opens with it, then its copula or a verb of its own ("Gate valves: Gate
    valves close the line …"), or with an indefinite article ("Ball valve: A valve that …");
    "The use of …", "Effective maintenance …" are a topic's prose, not a definition."""
    first = sentences(text, body)[0]
    said = first.of(text)
    if _PRONOUN.match(said) or len(said.split()) < 3:
        return None
    tokens = words(text, Span(first.start + drop_article(said), first.end))
    keys = word_key(label)
    n = len(keys)
    if n < len(tokens) and word_key(" ".join(t.of(text) for t in tokens[:n])) == keys:
        verb = tokens[n].of(text)
        if _COPULA.match(verb) and n + 1 < len(tokens):
            after = tokens[n + 1].of(text)
            return None if NOT_A_DEFINING_VERB.match(after) else Span(tokens[n + 1].start, first.end)
        if verb.islower() and not NOT_A_DEFINING_VERB.match(verb):
            return Span(tokens[n].start, first.end)
        return None
    # "A high pressure can …" under "Pressure" describes it; "A valve that …" defines.
    if not listed or (_INDEFINITE.match(said.split()[0]) and not holds(word_key(said), keys)):
        return first
    return None


def _finding(chunk: Chunk, label: Span, body: Span, *, listed: bool) -> list[Finding]:
    text = chunk.text
    label = Span(label.start + drop_article(label.of(text)), label.end)
    name = label.of(text)
    if not can_name_a_term(name) or _NOT_A_LABEL.match(name) or name[-1:].isdigit() or not name[:1].isupper():
        return []
    if _ARTICLE.search(name):
        # "Keeps the line at a pressure: …": a phrase about something, not a term's name.
        return []
    definition = _definition(text, name, body, listed=listed)
    if definition is None:
        return []
    return [Finding(name, Quote(name, chunk), "labelled_definition", definition=Quote(definition.of(text), chunk))]


def read_labelled_definitions(document: ParsedDocument) -> list[Finding]:
    findings = []
    for chunk in document.chunks:
        if chunk.kind != "text":
            continue
        text = chunk.text
        labelled = []
        for para in paragraphs(text):
            piece = para.of(text)
            if m := _NUMBERED.match(piece):
                group = "term" if m.group("term") else "dashed"
                label = Span(para.start + m.start(group), para.start + m.end(group))
                findings += _finding(chunk, label, Span(para.start + m.start("body"), para.end), listed=False)
            elif m := _LABELLED.match(piece):
                label = Span(para.start + m.start("label"), para.start + m.end("label"))
                labelled.append((label, Span(para.start + m.start("body"), para.end)))
        if len(labelled) >= 2:
            for label, body in labelled:
                findings += _finding(chunk, label, body, listed=True)
    return findings
