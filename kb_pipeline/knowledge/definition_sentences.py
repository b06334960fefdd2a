"""Definitions stated in running text, one sentence each:

- a defining verb after the subject: "X is defined as / refers to / denotes / means …", in
  French "désigne", German "bezeichnet", Spanish "se define como", Indonesian "didefinisikan
  sebagai", and the inverted "On entend par X, …", "Unter X versteht man …", "Se entiende por
  X, …", "Yang dimaksud dengan X adalah …";
- a generic subject classified by a noun phrase: "An X is a …" (and "1 X is a …", a footnote
  explaining a term marked in the text);
- a restatement: "X (i.e., …)", "X, i.e. …", where X is a phrase the document uses again;
- a section's opening sentence whose subject is what the heading names: "The X is a …" under
  "X", "Containers bundle …" under "Securing Containers".

The definition is the slice after the term and its verb or copula; the term is the subject
as printed, an article dropped, or the ABBR of a subject "Name (ABBR)" (whose expansion the
inline abbreviation reader gives).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..contracts import Chunk, ParsedDocument
from .abbreviations import aligns, is_abbreviation
from .definition_words import (
    COPULA,
    DEFINING_VERB,
    DETERMINER,
    FINITE_VERB,
    FUNCTION_WORD,
    NOT_A_DEFINING_VERB,
    can_name_a_term,
    drop_article,
    generic,
    holds,
    word_key,
)
from .findings import Finding, Quote, Reader
from .mining import mention_counts
from .text import Span, paragraphs, sentences, words

# A subject: a few words, maybe "(ABBR)" and a citation "[51]" after them.
_SUBJECT = r"[^,;:()\[\]\n]{2,80}?(?:\s*\([^()\n]{1,15}\))?(?:\s*\[[\d,–\- ]{1,12}\])*"
_HEDGE = r"(?:\s+(?:commonly|usually|generally|often|typically|also|simply|sometimes|here|thus|now))?"
_EXPLICIT = re.compile(rf"^(?P<subject>{_SUBJECT}){_HEDGE}\s+(?:{DEFINING_VERB})\s+(?P<rest>\S)", re.IGNORECASE)
_INDEFINITE = re.compile(
    rf"^(?P<subject>(?:An?|Un|Une|Ein|Eine|Una|Uno)\s+{_SUBJECT})\s+(?:is|est|ist|es)\s+"
    r"(?P<rest>(?:an?|the|one|un|une|ein|eine|einer|uno|una)\s)"
)
_FOOTNOTE = re.compile(rf"^\d{{1,2}}\s+(?P<subject>[A-Z]{_SUBJECT})\s+(?:{COPULA})\s+(?P<rest>(?:{DETERMINER})\s)")
_INVERTED = re.compile(
    r"^(?:On entend par|Se entiende por)\s+(?P<subject>[^,:\n]{2,80}?)\s*[,:]\s*(?P<rest>\S)"
    r"|^Unter\s+(?:(?:einem|einer|einen|dem|der|den)\s+)?(?P<de>[^,\n]{2,80}?)\s+versteht man\s+(?P<de_rest>\S)"
    r"|^Yang dimaksud dengan\s+(?P<id>[^,\n]{2,80}?)\s+(?:adalah|ialah|yaitu)\s+(?P<id_rest>\S)"
)
_RESTATEMENT = re.compile(r"(?:\s(?P<paren>\()|,\s*)(?:i\.\s?e\.|c['’]est-à-dire|d\.\s?h\.|es decir)\s*,?\s*")
_OPENING_ARTICLE = re.compile(r"^(?:the|an?|le|la|les|l['’]\w*|un|une|der|die|das|ein|eine|el|los|las)$", re.I)
_LEADING = re.compile(
    r"^[•▪●◦‣∙·*\uf0a7\uf0b7]?\s*(?:\d{1,2}\s+(?=[A-Z]))?(?:(?:the term|le terme|der begriff|el término|istilah)\s+)?",
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


def _restated(document: ParsedDocument, chunk: Chunk, sentence: Span, counts: dict[str, int]) -> list[Finding]:
    """ "granular access (i.e., segmenting …)", "the median flow, i.e. the 50th percentile":
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
        # A symbol before it ("the number rv (i.e. …)") is the formula readers'.
        if (
            not rest
            or not before
            or len(rest.group().split()) < 3
            or len(before[-1].of(text)) <= 2
            or FINITE_VERB.search(rest.group())
            or (FUNCTION_WORD.match(opening) and not _OPENING_ARTICLE.match(opening))
        ):
            continue
        for n in range(len(before), 0, -1):
            phrase = Span(before[-n].start, before[-1].end)
            name = phrase.of(text)
            tokens = name.split()
            if (
                FUNCTION_WORD.match(tokens[0])
                or FUNCTION_WORD.match(tokens[-1])
                or not all(re.fullmatch(r"[^\W\d_][\w\-’']*", t) for t in tokens)
                or not (n >= 2 or is_abbreviation(name))
            ):
                continue
            if counts.setdefault(name, mention_counts([name], [c.text for c in document.chunks])[name]) >= 2:
                definition = Span(sentence.start + m.end(), sentence.start + m.end() + rest.end())
                found += _subject_findings(chunk, phrase, definition, "running_definition")
                break
    return found


def read_running_definitions(document: ParsedDocument) -> list[Finding]:
    findings: list[Finding] = []
    counts: dict[str, int] = {}
    for chunk, sentence in _prose_sentences(document):
        said, at = sentence.of(chunk.text), sentence.start
        m = _EXPLICIT.match(said) or _INDEFINITE.match(said) or _FOOTNOTE.match(said)
        if m and not re.match(r"means? that\b", said[m.end("subject") :].strip(), re.IGNORECASE):
            subject = Span(at + m.start("subject"), at + m.end("subject"))
            findings += _subject_findings(
                chunk, subject, Span(at + m.start("rest"), sentence.end), "running_definition"
            )
        elif inverted := _INVERTED.match(said):
            group = next(g for g in ("subject", "de", "id") if inverted.group(g))
            rest = {"subject": "rest", "de": "de_rest", "id": "id_rest"}[group]
            subject = Span(at + inverted.start(group), at + inverted.end(group))
            definition = Span(at + inverted.start(rest), sentence.end)
            findings += _subject_findings(chunk, subject, definition, "running_definition")
        findings += _restated(document, chunk, sentence, counts)
    return findings


_COPULA = re.compile(rf"^(?:{COPULA})$", re.IGNORECASE)
_DETERMINER = re.compile(rf"^(?:{DETERMINER})$", re.IGNORECASE)
# Copulas of languages without articles: their noun phrase opens with the noun itself.
_BARE_COPULA = re.compile(r"^(?:adalah|merupakan|ialah|yaitu)$", re.IGNORECASE)
_NEGATION = re.compile(r"^(?:not|pas|ne|nicht|kein|keine|no|tidak|bukan)$", re.IGNORECASE)
_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s+")
# "Results are shown in Table 2": where the document puts a thing, not what it is.
_REPORTED = re.compile(
    r"^(?:shown|given|listed|presented|summari[sz]ed|described|discussed|illustrated|displayed|reported|depicted"
    r"|located|found|based|included|detailed|outlined|explained|covered|mentioned|expected|needed|required)$",
    re.IGNORECASE,
)
# Verbs of what a thing does for someone, not what it is: "Separation of duties helps …".
_BENEFIT = re.compile(
    r"^(?:help|allow|enable|improve|reduce|ensure|protect|increase|decrease|make|play|affect|impact|support"
    r"|facilitate|prevent|cause|lead|pose|benefit|simplif(?:y|ie)|mitigate|give|offer|provide|serve|work)s?$",
    re.IGNORECASE,
)


def _heading_words(heading: str) -> tuple[list[str], list[str]]:
    """The heading's words, and the same without a leading verb ("Securing Containers")."""
    keys = word_key(_TRAILING_ABBREVIATION.sub("", _NUMBER.sub("", heading)))
    return keys, keys[1:] if len(keys) > 1 and keys[0].endswith("ing") else keys


def _opening_definition(chunk: Chunk, sentence: Span) -> list[Finding]:
    """ "The elastic stop nut is a standard nut …" under "Elastic Stop Nut": its subject is what
    the heading names (all of it, or two words of it at least), then a copula and a noun phrase
    (a determiner; a participle or, only for the heading's whole name, another verb)."""
    text = chunk.text
    if not chunk.heading:
        return []
    tokens = words(text, Span(sentence.start + drop_article(sentence.of(text)), sentence.end))
    whole, named = _heading_words(chunk.heading)
    # The longest subject first: "Boots self-locking" is part of the heading, but the subject
    # goes on to "nut".
    for n in range(min(len(tokens) - 1, 6), 0, -1):
        subject = Span(tokens[0].start, tokens[n - 1].end)
        keys = word_key(subject.of(text))
        exact = keys in (whole, named)
        if not (exact or (len(keys) >= 2 and holds(whole, keys))):
            continue
        verb, after = tokens[n].of(text), tokens[n + 1].of(text) if n + 1 < len(tokens) else ""
        if _COPULA.match(verb):
            if not after or _NEGATION.match(after) or NOT_A_DEFINING_VERB.match(after):
                return []
            participle = exact and re.fullmatch(r"[a-z]+(?:ed|en)", after) is not None and not _REPORTED.match(after)
            if _DETERMINER.match(after) or participle or (_BARE_COPULA.match(verb) and exact):
                return _subject_findings(chunk, subject, Span(tokens[n + 1].start, sentence.end), "section_definition")
            return []
        # "Containers bundle …": another verb, for the heading's whole name only; not a modal, an
        # adverb or a benefit, and no later verb ("Output capabilities of MuPDF … are limited":
        # "capabilities" was a noun).
        clause = text[tokens[n].end : sentence.end].split(",")[0]
        if (
            exact
            and re.fullmatch(r"[a-z]+", verb)
            and not (NOT_A_DEFINING_VERB.match(verb) or _BENEFIT.match(verb) or FUNCTION_WORD.match(verb))
            and not FINITE_VERB.search(clause)
        ):
            return _subject_findings(chunk, subject, Span(tokens[n].start, sentence.end), "section_definition")
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
