"""Definitions stated in running text, one sentence each:

- a defining verb after the subject: "X is defined as / refers to / denotes / means …", in
  French "désigne", German "bezeichnet", Spanish "se define como", Indonesian "didefinisikan
  sebagai", and the inverted "On entend par X, …", "Unter X versteht man …", "Se entiende por
  X, …", "Yang dimaksud dengan X adalah …";
- a generic subject classified by a noun phrase: "An X is a …" (and "1 X is a …", a footnote
  explaining a term marked in the text);
- a restatement: "X (i.e., …)", "X, i.e. …", where X is a phrase the document uses again;
- a section's opening sentence whose subject is what the heading names, classified by a noun
  phrase: "The X is a …" under "X" or "Installing Xs".

The definition is the slice after the term and its verb or copula; the term is the subject
as printed, an article dropped, or the ABBR of a subject "Name (ABBR)" (whose expansion the
inline abbreviation reader gives).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....contracts import Chunk, ParsedDocument
from ...document.text import Span, paragraphs, sentences, words
from ...language.lexicon import (
    ARTICLES,
    BARE_COPULAS,
    CONJUNCTIONS,
    ELIDED_ARTICLE,
    HEDGES,
    IMPLICATION_VERBS,
    INDEFINITE_ARTICLES,
    INDEFINITE_COPULAS,
    INVERTED_DEFINITIONS,
    LEGEND_OPENERS,
    LEGEND_VERBS,
    MARK_VERBS,
    NEGATIONS,
    ONE_OF,
    RESTATEMENT_MARKERS,
    THE_TERM,
    alternation,
    is_function_word,
    whole_word,
)
from ..findings import Finding, Quote, Reader
from .abbreviations import aligns, is_abbreviation
from .definition_words import (
    COPULA,
    DEFINING_VERB,
    DETERMINER,
    FINITE_VERB,
    NOT_A_DEFINING_VERB,
    can_name_a_term,
    drop_article,
    generic,
    holds,
    word_key,
)
from .mining import MentionIndex

# A subject: a few words, maybe "(ABBR)" and a citation "[51]" after them.
_SUBJECT = r"[^,;:()\[\]\n]{2,80}?(?:\s*\([^()\n]{1,15}\))?(?:\s*\[[\d,–\- ]{1,12}\])*"
_HEDGE = rf"(?:\s+(?:{alternation(HEDGES)}))?"
_EXPLICIT = re.compile(rf"^(?P<subject>{_SUBJECT}){_HEDGE}\s+(?:{DEFINING_VERB})\s+(?P<rest>\S)", re.IGNORECASE)
# "An X is a …": an indefinite article (capitalised: the sentence's first word), a copula, a
# determiner.
_INDEFINITE = re.compile(
    rf"^(?P<subject>(?:{alternation(tuple(a.capitalize() for a in INDEFINITE_ARTICLES))})\s+{_SUBJECT})"
    rf"\s+(?:{alternation(INDEFINITE_COPULAS)})\s+(?P<rest>(?:{alternation(ARTICLES + ONE_OF)})\s)"
)
_FOOTNOTE = re.compile(rf"^\d{{1,2}}\s+(?P<subject>[A-Z]{_SUBJECT})\s+(?:{COPULA})\s+(?P<rest>(?:{DETERMINER})\s)")
_INVERTED = tuple(re.compile(wording) for wording in INVERTED_DEFINITIONS)
_PLACEHOLDER = re.compile(
    rf"(?:^|(?<=\s)(?:{LEGEND_OPENERS})\s+|[,;]\s+(?:(?:{CONJUNCTIONS})\s+)?)"
    rf"(?P<name><[^\W\d_][\w.-]{{0,30}}>)\s+(?:{LEGEND_VERBS})\s+(?P<rest>\S)",
    re.IGNORECASE,
)
_MEANS_THAT = re.compile(rf"\s*(?:{IMPLICATION_VERBS})\b", re.IGNORECASE)
# Where a clause of a sentence starts: after a comma or semicolon, and maybe "and".
_CLAUSE_START = re.compile(rf"[,;]\s+(?:(?:{CONJUNCTIONS})\s+)?", re.IGNORECASE)
# A table note's mark and what it indicates: "P indicates that …", "* represents …".
_MARK = re.compile(rf"^(?P<subject>[^\s,;:]{{1,6}})\s+(?:{MARK_VERBS})\s+(?P<rest>\S)", re.IGNORECASE)
_RESTATEMENT = re.compile(rf"(?:\s(?P<paren>\()|,\s*)(?:{RESTATEMENT_MARKERS})\s*,?\s*")
_OPENING_ARTICLE = re.compile(rf"^(?:{alternation(ARTICLES)}|{ELIDED_ARTICLE}\w*)$", re.IGNORECASE)
_LEADING = re.compile(
    rf"^[•▪●◦‣∙·*\uf0a7\uf0b7]?\s*(?:\d{{1,2}}\s+(?=[A-Z]))?(?:(?:{THE_TERM})\s+)?",
    re.I,
)
_CITATION = re.compile(r"(?:\s*\[[\d,–\- ]{1,12}\])+$")
_TRAILING_ABBREVIATION = re.compile(r"\s*\(([^()\s]{2,12})\)$")
_QUOTES = "“”\"‘’'«» "


def _subject_findings(chunk: Chunk, subject: Span, definition: Span, reader: Reader) -> list[Finding]:
    """The term a subject names and its definition; "Name (ABBR)" gives ABBR, full name Name."""
    text = chunk.text
    start, end = subject.start, subject.end
    start += _LEADING.match(text[start:end]).end()  # type: ignore[union-attr]
    if cited := _CITATION.search(text[start:end]):
        end = start + cited.start()
    abbreviation = None
    if (m := _TRAILING_ABBREVIATION.search(text[start:end])) and is_abbreviation(m.group(1)):
        abbreviation = Span(start + m.start(1), start + m.end(1))
        end = start + m.start()
    start += drop_article(text[start:end])
    while start < end and text[start] in _QUOTES:
        start += 1
    while end > start and text[end - 1] in _QUOTES:
        end -= 1
    name = text[start:end]
    if not can_name_a_term(name) or generic(name) or "\n" in name:
        return []
    if len(name.split()) > 1 and len(name.split()[-1]) <= 2 and not is_abbreviation(name.split()[-1]):
        # "the dimensionless number rv": a symbol named in words, the formula readers'.
        return []
    said = Quote(definition.of(text), chunk)
    if abbreviation:
        # The expansion itself is the inline abbreviation reader's; the definition is the ABBR's.
        short = abbreviation.of(text)
        return [Finding(short, Quote(short, chunk), reader, definition=said)] if aligns(short, name) else []
    return [Finding(name, Quote(name, chunk), reader, definition=said)]


def _prose_sentences(document: ParsedDocument) -> Iterator[tuple[Chunk, Span]]:
    """Sentences of text chunks, and of a table's lines that are no row (its notes, footnotes)."""
    for chunk in document.chunks:
        text = chunk.text
        if chunk.kind == "text":
            pieces = paragraphs(text)
        elif chunk.kind == "table":
            pieces = [Span(m.start(), m.end()) for m in re.finditer(r"[^\n|]*\S[^\n|]*(?=\n|$)", text)]
            pieces = [p for p in pieces if (p.start == 0 or text[p.start - 1] == "\n")]
        else:
            continue
        for piece in pieces:
            yield from ((chunk, s) for s in sentences(text, piece))


def _restated(chunk: Chunk, sentence: Span, mentions: MentionIndex) -> list[Finding]:
    """ "remote access (i.e., logging in from …)", "the median flow, i.e. the 50th percentile":
    the longest phrase before "i.e." (up to four words, two at least or an abbreviation) that
    the document uses again names what follows, up to the parenthesis' end or the next comma.
    A restatement holding a verb ("i.e. Q50 is …", "i.e. the picture will be mirrored") or
    opening with a preposition ("i.e. without using a file") restates a clause, not a term."""
    text, found = chunk.text, []
    said = sentence.of(text)
    for m in _RESTATEMENT.finditer(said):
        rest = re.match(r"[^()]*[^()\s](?=\))" if m.group("paren") else r"[^,;()]*[^,;()\s.]", said[m.end() :])
        before = words(text, Span(sentence.start, sentence.start + m.start()))[-4:]
        opening = rest.group().split()[0] if rest else ""
        # A symbol before it ("the number k (i.e. …)") is the formula readers'.
        if (
            not rest
            or not before
            or len(rest.group().split()) < 3
            or len(before[-1].of(text)) <= 2
            or FINITE_VERB.search(rest.group())
            or (is_function_word(opening) and not _OPENING_ARTICLE.match(opening))
        ):
            continue
        for n in range(len(before), 0, -1):
            phrase = Span(before[-n].start, before[-1].end)
            name = phrase.of(text)
            tokens = name.split()
            if (
                is_function_word(tokens[0])
                or is_function_word(tokens[-1])
                or not all(re.fullmatch(r"[^\W\d_][\w\-’']*", t) for t in tokens)
                or not (n >= 2 or is_abbreviation(name))
            ):
                continue
            if mentions.count(name) >= 2:
                definition = Span(sentence.start + m.end(), sentence.start + m.end() + rest.end())
                found += _subject_findings(chunk, phrase, definition, "running_definition")
                break
    return found


def _defining_clause(chunk: Chunk, said: str, start: int) -> re.Match[str] | None:
    """A clause at `start` that defines its subject by a verb; in a table's note also a mark's
    "P indicates that …", "* represents …" (one token: a mark, a code)."""
    rest = said[start:]
    m = _EXPLICIT.match(rest)
    if m is None and chunk.kind == "table":
        m = _MARK.match(rest)
    if m is None or _MEANS_THAT.match(rest, m.end("subject")):
        return None
    if not start:
        return m
    # Inside a sentence, a clause's subject is a noun phrase opening with its article, a code
    # ("12K-M3": a capital or digit after its first character, so not "Smith") or a table note's
    # mark: "while it refers to", "please refer to" name nothing.
    subject = m.group("subject").split()
    if _OPENING_ARTICLE.match(subject[0]):
        return m
    code = len(subject) == 1 and (chunk.kind == "table" or any(c.isupper() or c.isdigit() for c in subject[0][1:]))
    return m if code else None


def _defining_clauses(chunk: Chunk, said: str) -> list[tuple[int, int, re.Match[str]]]:
    """The sentence's clauses after a comma or semicolon that define a term ("For large models,
    8x7B denotes …, the hidden size denotes …"): where each one's connector starts, where the
    clause starts, its match."""
    return [
        (c.start(), c.end(), m) for c in _CLAUSE_START.finditer(said) if (m := _defining_clause(chunk, said, c.end()))
    ]


def _placeholders(chunk: Chunk, sentence: Span) -> list[Finding]:
    """ "… "D:<TS><TZ>", where <TS> is the timestamp …, and <TZ> is a time zone …": a placeholder
    in angle brackets at the head of a sentence or of a legend's clause (after "where" or a
    comma), then a legend verb; its meaning runs to the next such clause."""
    said = sentence.of(chunk.text)
    clauses = list(_PLACEHOLDER.finditer(said))
    ends = [m.start() for m in clauses[1:]] + [len(said)] if clauses else []
    return [
        Finding(
            m.group("name"),
            Quote(m.group("name"), chunk),
            "running_definition",
            definition=Quote(said[m.start("rest") : end].rstrip(" ,;"), chunk),
        )
        for m, end in zip(clauses, ends, strict=True)
    ]


def read_running_definitions(document: ParsedDocument) -> list[Finding]:
    findings: list[Finding] = []
    mentions = MentionIndex([c.text for c in document.chunks])
    for chunk, sentence in _prose_sentences(document):
        said, at = sentence.of(chunk.text), sentence.start
        clauses = _defining_clauses(chunk, said)
        opening = _defining_clause(chunk, said, 0)
        if opening is None and (m := _INDEFINITE.match(said) or _FOOTNOTE.match(said)):
            opening = m
        if opening:
            clauses.insert(0, (0, 0, opening))
        # A definition ends where the next clause defines a term of its own.
        ends = [connector for connector, _, _ in clauses[1:]] + [len(said)]
        for (_, start, m), end in zip(clauses, ends, strict=False):
            subject = Span(at + start + m.start("subject"), at + start + m.end("subject"))
            definition = Span(at + start + m.start("rest"), at + end)
            findings += _subject_findings(chunk, subject, definition, "running_definition")
        if not opening and (inverted := next((m for wording in _INVERTED if (m := wording.match(said))), None)):
            subject = Span(at + inverted.start("subject"), at + inverted.end("subject"))
            definition = Span(at + inverted.start("rest"), sentence.end)
            findings += _subject_findings(chunk, subject, definition, "running_definition")
        findings += _restated(chunk, sentence, mentions)
        findings += _placeholders(chunk, sentence)
    return findings


_COPULA = re.compile(rf"^(?:{COPULA})$", re.IGNORECASE)
_DETERMINER = re.compile(rf"^(?:{DETERMINER})$", re.IGNORECASE)
# Copulas of languages without articles: their noun phrase opens with the noun itself.
_BARE_COPULA = whole_word(BARE_COPULAS)
_NEGATION = whole_word(NEGATIONS)
_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s+")


def _heading_words(heading: str) -> tuple[list[str], list[str]]:
    """The heading's words, and the same without a leading verb ("Installing Pumps")."""
    keys = word_key(_TRAILING_ABBREVIATION.sub("", _NUMBER.sub("", heading)))
    return keys, keys[1:] if len(keys) > 1 and keys[0].endswith("ing") else keys


def _opening_definition(chunk: Chunk, sentence: Span) -> list[Finding]:
    """ "The ball valve is a quarter-turn valve …" under "Ball Valve": its subject is what the
    heading names (all of it, or two words of it at least), then a copula and a noun phrase that
    opens with a determiner (or, in a language without articles, the noun itself, for the
    heading's whole name). A copula and a participle ("Pumps are installed in …") or any other
    verb ("Pumps move water …") describe the thing: what it is is not said."""
    text = chunk.text
    if not chunk.heading:
        return []
    tokens = words(text, Span(sentence.start + drop_article(sentence.of(text)), sentence.end))
    whole, named = _heading_words(chunk.heading)
    # The longest subject first: "Ball" is part of the heading, but the subject goes on to
    # "valve".
    for n in range(min(len(tokens) - 1, 6), 0, -1):
        subject = Span(tokens[0].start, tokens[n - 1].end)
        keys = word_key(subject.of(text))
        exact = keys in (whole, named)
        if not (exact or (len(keys) >= 2 and holds(whole, keys))):
            continue
        verb, after = tokens[n].of(text), tokens[n + 1].of(text) if n + 1 < len(tokens) else ""
        if not _COPULA.match(verb) or not after or _NEGATION.match(after) or NOT_A_DEFINING_VERB.match(after):
            return []
        if _DETERMINER.match(after) or (_BARE_COPULA.match(verb) and exact):
            return _subject_findings(chunk, subject, Span(tokens[n + 1].start, sentence.end), "section_definition")
        return []
    return []


def read_section_definitions(document: ParsedDocument) -> list[Finding]:
    """The first sentence under each heading, when it defines what the heading names."""
    findings, seen = [], set()
    for chunk in document.chunks:
        if chunk.kind != "text" or not chunk.heading or not chunk.heading_path or chunk.heading_path[-1] in seen:
            continue
        seen.add(chunk.heading_path[-1])
        paras = paragraphs(chunk.text)
        if paras:
            findings += _opening_definition(chunk, sentences(chunk.text, paras[0])[0])
    return findings
