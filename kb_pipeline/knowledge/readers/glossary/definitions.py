"""Definitions a document states plainly: its glossary (a two-column term/definition list, as
MinerU lays it out; ISO-style numbered clauses, "3.1" and the term as a heading or as lines,
then the definition up to its "Note 1 to entry"), a numbered heading naming a term, and
"ABBR means …" sentences.

A definition is always one sentence sliced from the chunk, so it can be verified verbatim. Where
the layout does not say which sentence belongs to a term, the term is proposed without one and
with the sentences it could be (`open_sentences`): choosing is a model's job, guessing is nobody's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ....contracts import Chunk, ParsedDocument
from ...document.text import Span, ends_a_sentence, paragraphs, sentences, text_sentences, words
from ...language.lexicon import (
    ARTICLES,
    COPULAS,
    DEFINITION_DETERMINERS,
    ELIDED_ARTICLE,
    ENTRY_NOTES,
    GLOSSARY_HEADINGS,
    NOTE_LABELS,
    PROSE_OPENERS,
    TERM_DEFINING_VERBS,
    alternation,
    is_function_word,
)
from ..findings import Finding, Quote
from .abbreviations import aligns, is_abbreviation
from .definition_words import opens_with_a_pointer

GLOSSARY_HEADING = re.compile(GLOSSARY_HEADINGS, re.IGNORECASE)
_OPENS_DEFINITION = re.compile(rf"^(?:{TERM_DEFINING_VERBS})\b", re.IGNORECASE)
_MAX_TERM_WORDS = 8
_TRAILING_ABBREVIATION = re.compile(r"\s*\(([^()]+)\)\s*:?$")


def _capitalised(word: str) -> bool:
    """ "Measured", "Open-pit", "A" before a lower-case word: a word that can start a
    sentence or a term; never an all-capitals abbreviation."""
    return len(word) >= 2 and word[0].isupper() and word[1].islower()


def _lowercase(word: str) -> bool:
    return word.isalpha() and word.islower() or bool(re.fullmatch(r"[a-z][a-z\-/]*", word))


def _term_parts(text: str, span: Span) -> list[Span]:
    """A term line split where a new term starts: after "(ABBR)", before its first word
    recurring ("Pump failure Pump trip"), before a capitalised word after a lower-case one
    ("Planned maintenance schedule Inspection")."""
    ws = words(text, span)
    tokens = [w.of(text) for w in ws]
    cuts = [
        k
        for k in range(1, len(ws))
        if (tokens[k - 1].endswith(")") and tokens[k][0].isupper())
        or (len(tokens[0]) > 1 and tokens[k] == tokens[0])
        or (_capitalised(tokens[k]) and _lowercase(tokens[k - 1]))
    ]
    bounds = [0, *cuts, len(ws)]
    return [Span(ws[a].start, ws[b - 1].end) for a, b in zip(bounds, bounds[1:], strict=False)]


@dataclass
class _Term:
    parts: list[Span]


@dataclass
class _Body:
    span: Span
    claimed: set[int] = field(default_factory=set)


def _split_term_line(text: str, para: Span) -> tuple[Span, Span] | None:
    """ "Pump trip Sudden stop of the pump …": a term and its definition on one line.
    The definition starts at the last capitalised word after a lower-case one among the first
    words; an earlier such run is a sub-heading ("Pump types … Centrifugal pump The …")."""
    ws = words(text, para)
    tokens = [w.of(text) for w in ws]
    if tokens and is_function_word(tokens[0]):
        # "Für die Anwendung dieses Dokuments …": a sentence, capitalised nouns and all.
        return None
    starts = []
    for k in range(1, min(len(ws) - 2, _MAX_TERM_WORDS + 1)):
        if tokens[k - 1][-1:] in ",.;:)(":
            break
        if _lowercase(tokens[k - 1]) and (_capitalised(tokens[k]) or (tokens[k] == "A" and _lowercase(tokens[k + 1]))):
            starts.append(k)
    if not starts:
        return None
    k = starts[-1]
    term = Span(ws[starts[-2]].start if len(starts) > 1 else ws[0].start, ws[k - 1].end)
    return term, Span(ws[k].start, para.end)


def _short_term(piece: str) -> bool:
    """A paragraph that can be a term: capitalised, a few words, no comma, not a sentence."""
    return (
        piece[:1].isalpha()
        and not piece[:1].islower()
        and not ends_a_sentence(piece.removesuffix(":"))
        and ", " not in piece
        and len(piece.split()) <= _MAX_TERM_WORDS
    )


def _sentences_until_a_term(text: str, paras: list[Span], start: int) -> int:
    count = 0
    for para in paras[start:]:
        if _short_term(para.of(text)):
            break
        count += len(sentences(text, para))
    return count


def _layout(text: str) -> list[_Term | _Body]:
    """The chunk's paragraphs as terms and definition bodies (consecutive bodies merged: a
    definition runs on over MinerU's line-per-paragraph breaks)."""
    paras = paragraphs(text)
    items: list[_Term | _Body] = []
    i = 0
    while i < len(paras):
        para, piece = paras[i], paras[i].of(text)
        after = paras[i + 1].of(text) if i + 1 < len(paras) else ""
        parts = _term_parts(text, para)
        i += 1
        short = _short_term(piece)
        if short and after[:1].islower():
            if len(after.split()) <= 4 and not ends_a_sentence(after):
                # A term wrapped over two lines ("Mean time between" / "failures").
                items.append(_Term([Span(para.start, paras[i].end)]))
                i += 1
                continue
            # Otherwise it opens a sentence that runs on into the next line: a body.
        elif short or (
            len(parts) > 1
            and all(_short_term(p.of(text)) for p in parts)
            and _sentences_until_a_term(text, paras, i) >= len(parts)
        ):
            items.append(_Term(parts))
            continue
        split = _split_term_line(text, para) if piece[:1].isupper() else None
        previous = items[-1] if items else None
        if split:
            items += [_Term([split[0]]), _Body(split[1])]
        elif isinstance(previous, _Body):
            previous.span = Span(previous.span.start, para.end)
        else:
            items.append(_Body(para))
    return items


def _term_of(text: str, part: Span) -> tuple[str, Span]:
    """The term a part names ("Root cause analysis (RCA)" → "Root cause analysis") and
    where it stands."""
    piece = part.of(text)
    m = _TRAILING_ABBREVIATION.search(piece)
    name = piece[: m.start()] if m and is_abbreviation(m.group(1)) else piece.removesuffix(":")
    return " ".join(name.split()), Span(part.start, part.start + len(name))


def _proposals(chunk: Chunk, part: Span, sentence: Span | None, open_: tuple[Span, ...] = ()) -> list[Finding]:
    """The term of a glossary line and its definition; for "Root cause analysis (RCA)" also
    RCA, with the term as its full name and the same definition."""
    text = chunk.text
    term, anchor = _term_of(text, part)
    if not term:
        return []
    definition = Quote(sentence.of(text), chunk) if sentence else None
    named = Quote(anchor.of(text), chunk)
    candidates = tuple(Quote(s.of(text), chunk) for s in open_)
    found = [Finding(term, named, "definition_list", definition=definition, open_sentences=candidates)]
    m = _TRAILING_ABBREVIATION.search(part.of(text))
    if m and is_abbreviation(m.group(1)) and aligns(m.group(1), term):
        abbreviation = Quote(m.group(1), chunk)
        found.append(
            Finding(
                m.group(1),
                abbreviation,
                "definition_list",
                full_name=named,
                definition=definition,
                open_sentences=candidates,
            )
        )
    return found


def _pair(chunk: Chunk, items: list[_Term | _Body]) -> list[Finding]:
    text, findings = chunk.text, []

    def propose(part: Span, sentence: Span | None, open_: tuple[Span, ...] = ()) -> None:
        findings.extend(_proposals(chunk, part, sentence, open_))

    for index, item in enumerate(items):
        if not isinstance(item, _Term):
            continue
        following = items[index + 1] if index + 1 < len(items) else None
        preceding = items[index - 1] if index else None
        if isinstance(following, _Body):
            said = sentences(text, following.span)
            if len(item.parts) == 1 and 0 not in following.claimed:
                following.claimed.add(0)
                propose(item.parts[0], said[0])
            elif len(item.parts) > 1 and len(said) >= len(item.parts) and not following.claimed:
                # Several terms on one line, their definitions one sentence each, in order.
                for k, part in enumerate(item.parts):
                    following.claimed.add(k)
                    propose(part, said[k])
            else:
                unclaimed = tuple(s for k, s in enumerate(said) if k not in following.claimed)
                for part in item.parts:
                    propose(part, None, unclaimed or tuple(said))
        elif isinstance(preceding, _Body):
            # A term laid out after its definition: the one unclaimed sentence that starts a
            # definition in the body before it, if there is exactly one.
            said = sentences(text, preceding.span)
            open_ = [k for k, s in enumerate(said) if k not in preceding.claimed and s.of(text)[:1].isupper()]
            if len(item.parts) == 1 and len(open_) == 1:
                preceding.claimed.add(open_[0])
                propose(item.parts[0], said[open_[0]])
            elif open_:
                for part in item.parts:
                    propose(part, None, tuple(said[k] for k in open_))
    return findings


_SECTION = re.compile(r"^\s*(\d+(?:\.\d+)*)\.?\s")


def _level(heading: str) -> tuple[int, int]:
    """How high a heading stands, as far as its print says (chunks.json chains headings without
    levels): (0, depth) numbered "3.1 …"; (1, 0) ALL CAPITALS; (2, 0) anything else."""
    m = _SECTION.match(heading)
    if m:
        return 0, m.group(1).count(".") + 1
    return (1, 0) if heading.isupper() else (2, 0)


def _below(heading: str, glossary: str) -> bool:
    """`heading` is a sub-heading of `glossary`: deeper numbering under its number, or an
    unnumbered heading under a numbered or capitalised one. Same style, same level: the
    glossary section has ended."""
    (kind, depth), (g_kind, g_depth) = _level(heading), _level(glossary)
    if kind == g_kind == 0:
        number, g_number = _SECTION.match(heading), _SECTION.match(glossary)
        return depth > g_depth and bool(number and g_number and number.group(1).startswith(g_number.group(1) + "."))
    return g_kind < kind


def _in_glossary(chunk: Chunk) -> bool:
    """A glossary chunk: its own heading names one, or the nearest heading above it that names
    one has only its own sub-headings after it in the path (the next heading of the same or a
    higher level ends the glossary section)."""
    if chunk.heading and GLOSSARY_HEADING.search(chunk.heading):
        return True
    path = chunk.heading_path
    for k in range(len(path) - 1, -1, -1):
        if GLOSSARY_HEADING.search(path[k]):
            return all(_below(h, path[k]) for h in path[k + 1 :])
    return False


# "Term: definition", "Term – definition": a glossary written one entry a line.
_TERM_LINE = re.compile(
    r"^[ \t]*(?:[•*·-][ \t]+)?(?P<term>[^\s:–—|][^:\n–—|]{0,79}?)[ \t]*(?::|[ \t][–—-])[ \t]+(?P<definition>\S[^\n]*)$",
    re.MULTILINE,
)
# "Note 1 to entry:", "EXAMPLE:": a line about the entry above it.
_NOTE_LABEL = re.compile(rf"(?:{alternation(NOTE_LABELS)})\b", re.IGNORECASE)
_TABLE_ROW = re.compile(r"^(?P<term>[^|\n]+?) \| (?P<definition>[^|\n]+?)[ \t]*$", re.MULTILINE)
# ISO 704 style: "3.1.2" (alone or before the term), the term, then its definition.
_ISO_NUMBER = re.compile(r"^[ \t]*\d+(?:\.\d+)+\.?(?:[ \t]+(?P<term>\S[^\n]*?))?[ \t]*$", re.MULTILINE)


def _term_lines(chunk: Chunk) -> list[Finding]:
    """Entries of a one-entry-a-line glossary, or of a two-cell table: only when most of the
    chunk's lines are so (else a colon in a definition would make a term)."""
    text = chunk.text
    lines = [line for line in text.splitlines() if line.strip()]
    found = [
        m
        for m in (_TABLE_ROW if chunk.kind == "table" else _TERM_LINE).finditer(text)
        if len(m.group("term").split()) <= _MAX_TERM_WORDS
        and not ends_a_sentence(m.group("term"))
        and not _NOTE_LABEL.match(m.group("term"))
        and any(c.isalpha() for c in m.group("definition"))
    ]
    if not found or len(found) * 2 < len(lines):
        return []
    findings = []
    for m in found:
        term, definition = Span(m.start("term"), m.end("term")), Span(m.start("definition"), m.end("definition"))
        findings += _proposals(chunk, term, definition)
    return findings


def _iso_terms(chunk: Chunk) -> list[Finding]:
    """ "3.1.2 haul road / road used by …" or "3.1.2 / haul road / road used by …": the term
    after its number, its definition the first sentence of the lines up to the next number."""
    text = chunk.text
    numbers = list(_ISO_NUMBER.finditer(text))
    findings = []
    for k, m in enumerate(numbers):
        end = numbers[k + 1].start() if k + 1 < len(numbers) else len(text)
        rest = [
            Span(m.end() + x.start(), m.end() + x.end()) for x in re.finditer(r"[^\n]*\S[^\n]*", text[m.end() : end])
        ]
        if m.group("term"):
            term, body = Span(m.start("term"), m.end("term")), rest
        elif rest:
            term, body = rest[0], rest[1:]
        else:
            continue
        name = term.of(text).strip()
        if not body or len(name.split()) > _MAX_TERM_WORDS or ends_a_sentence(name):
            continue
        start = term.start + len(term.of(text)) - len(term.of(text).lstrip())
        findings += _proposals(chunk, Span(start, start + len(name)), _entry_definition(text, body[0], body[-1]))
    return findings


# What follows a terminology entry's definition (ISO 704 / ISO 10241): its notes, examples and
# source, in the languages of the corpus. The definition itself carries no final stop, so the
# sentence splitter would run it into them.
_ENTRY_NOTE = re.compile(rf"\s(?:{ENTRY_NOTES})")


def _entry_definition(text: str, first: Span, last: Span) -> Span | None:
    """The first sentence of an entry's body, up to its first note."""
    said = sentences(text, Span(first.start, last.end))
    if not said:
        return None
    note = _ENTRY_NOTE.search(said[0].of(text))
    if note is None:
        return said[0]
    kept = said[0].of(text)[: note.start()].rstrip()
    return Span(said[0].start, said[0].start + len(kept)) if kept else None


_BARE_NUMBER = re.compile(r"^\d+(?:\.\d+)+\.?$")
_CLAUSE_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)+\.?(?:\s|$)")
# Words a definition may open with although they are function words.
_ARTICLE = re.compile(
    rf"^(?:{alternation(ARTICLES)}|{alternation(DEFINITION_DETERMINERS)}|{ELIDED_ARTICLE}\w*)$", re.IGNORECASE
)
# What opens a sub-section's prose, as printed: "The following …", "the following …".
_PROSE_OPENERS = tuple(form for opener in PROSE_OPENERS for form in (opener[:1].upper() + opener[1:], opener))


def _opens_entry(definition: str) -> bool:
    """A definition opens with its genus ("road built for …", "Mass of material …") or an
    article; a sub-section's prose opens with a preposition or a pointer ("For the purposes of
    …", "This clause …", "The following …")."""
    first = definition.split()[0] if definition.split() else ""
    if definition.startswith(_PROSE_OPENERS) or opens_with_a_pointer(definition):
        return False
    return bool(first) and (_ARTICLE.match(first) is not None or not is_function_word(first))


def _clause(chunk: Chunk) -> list[Finding]:
    """A numbered clause of a definitions section, titled by its term ("3.3 cycle time" as the
    heading, the definition the text's first sentence), or by its number alone ("3.3" as the
    heading, the term the text's first line, the definition the next one's)."""
    text, heading = chunk.text, _NUMBERED.sub("", chunk.heading or "").strip()
    # Its body ends where the text's own numbered entries start (headings MinerU did not see).
    numbered = _ISO_NUMBER.search(text)
    paras = [p for p in paragraphs(text) if numbered is None or p.end <= numbered.start()]
    if not paras or not _CLAUSE_NUMBER.match(chunk.heading_path[-1]) or GLOSSARY_HEADING.search(heading):
        return []
    if _BARE_NUMBER.match(heading):
        term, definition = paras[0].of(text), _entry_definition(text, paras[1], paras[-1]) if len(paras) > 1 else None
        if not definition or len(term.split()) > _MAX_TERM_WORDS or ends_a_sentence(term) or "\n" in term:
            return []
        return _proposals(chunk, paras[0], definition) if _opens_entry(definition.of(text)) else []
    if len(heading.split()) > _MAX_TERM_WORDS or ends_a_sentence(heading) or "\n" in heading:
        return []
    definition = _entry_definition(text, paras[0], paras[-1])
    if definition is None or not _opens_entry(definition.of(text)):
        return []
    m = _TRAILING_ABBREVIATION.search(heading)
    abbreviation = m.group(1) if m and is_abbreviation(m.group(1)) else None
    name = " ".join((heading[: m.start()] if m and abbreviation else heading).split())
    said = Quote(definition.of(text), chunk)
    found = [Finding(name, Quote(name, chunk), "definition_list", definition=said)]
    if abbreviation and aligns(abbreviation, name):
        found.append(
            Finding(
                abbreviation,
                Quote(abbreviation, chunk),
                "definition_list",
                full_name=Quote(name, chunk),
                definition=said,
            )
        )
    return found


def _term_titled_clauses(document: ParsedDocument) -> set[str]:
    """Numbered clauses titled in lower case ("3.2 cycle time"), three siblings at least: a
    definitions section as ISO writes its terms, even where its own heading is not in the
    path (MinerU gave it another level, or it is named in no language known here)."""
    siblings: dict[str, set[str]] = {}
    for chunk in document.chunks:
        printed = chunk.heading_path[-1] if chunk.heading_path else ""
        name = _NUMBERED.sub("", chunk.heading or "")
        if chunk.kind == "text" and _CLAUSE_NUMBER.match(printed) and name[:1].islower():
            if len(name.split()) <= _MAX_TERM_WORDS and not ends_a_sentence(name):
                siblings.setdefault(printed.split()[0].rstrip(".").rsplit(".", 1)[0], set()).add(printed)
    return {printed for group in siblings.values() if len(group) >= 3 for printed in group}


def read_definition_lists(document: ParsedDocument) -> list[Finding]:
    findings: list[Finding] = []
    clauses: set[str] = set()
    titled = _term_titled_clauses(document)
    for chunk in document.chunks:
        if chunk.kind not in ("text", "table"):
            continue
        if not _in_glossary(chunk):
            if chunk.heading_path and chunk.heading_path[-1] in titled - clauses:
                clauses.add(chunk.heading_path[-1])
                findings += _clause(chunk)
            continue
        iso = _iso_terms(chunk)
        # A text of "Term: definition" lines is a list under its heading, not the heading's definition.
        lines = [] if iso else _term_lines(chunk)
        read = iso or lines
        if chunk.kind == "text" and chunk.heading_path and chunk.heading_path[-1] not in clauses:
            clauses.add(chunk.heading_path[-1])
            if not lines:
                read = _clause(chunk) + iso
        if chunk.kind == "text" and not read:
            read = _pair(chunk, _layout(chunk.text))
        findings += [f for f in read if "\n" not in f.term]
    return findings


_NUMBERED = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s+")


def read_numbered_headings(document: ParsedDocument) -> list[Finding]:
    """ "2.1.2. Quantity (Qty)" over "Adalah jumlah …": term Qty, full name Quantity, the heading
    as printed its source wording, the section's first sentence its definition when that
    sentence defines (starts with a defining verb, or with the term and one)."""
    findings, seen = [], set()
    for chunk in document.chunks:
        if chunk.kind != "text" or not chunk.section_no or not chunk.heading or not chunk.heading_path:
            continue
        printed = chunk.heading_path[-1]
        if printed in seen or not _NUMBERED.match(printed):
            continue
        seen.add(printed)
        heading = chunk.heading
        m = _TRAILING_ABBREVIATION.search(heading)
        # "(Qty)": any parenthesised word the name before it spells is its abbreviation here.
        abbreviation = m.group(1) if m and " " not in m.group(1) and aligns(m.group(1), heading[: m.start()]) else None
        name = heading[: m.start()] if m and abbreviation else heading
        full_name = name if abbreviation else None
        term = abbreviation or heading
        first = sentences(chunk.text, paragraphs(chunk.text)[0])[0] if chunk.text.strip() else None
        opening = first.of(chunk.text) if first else ""
        lead = re.match(rf"^(?:{re.escape(term)}|{re.escape(name)})\s+", opening)
        defines = bool(_OPENS_DEFINITION.match(opening[lead.end() :] if lead else opening))
        if not (defines or full_name) or len(term.split()) > _MAX_TERM_WORDS or term.isupper() and not abbreviation:
            continue
        findings.append(
            Finding(
                term,
                Quote(heading, chunk),
                "numbered_heading",
                full_name=Quote(full_name, chunk) if full_name else None,
                definition=Quote(opening, chunk) if defines else None,
                source_wording=printed,
            )
        )
    return findings


_DEFINING_SENTENCE = re.compile(
    rf"^(?:The term\s+)?(?P<term>[“\"‘'][^”\"’']{{2,60}}[”\"’']|[^\s,;:]{{2,12}})\s+(?:{TERM_DEFINING_VERBS})\s",
    re.IGNORECASE,
)


_COPULA_AFTER = re.compile(rf"\s+(?:{alternation(COPULAS)})\s", re.IGNORECASE)


def read_defining_sentences(document: ParsedDocument) -> list[Finding]:
    """ "PA menyatakan …", "“Haul road” means …": a sentence whose subject is an abbreviation
    or a quoted term, followed by a defining verb. The whole sentence is the definition."""
    findings = []
    for chunk, _sentence, said in text_sentences(document):
        m = _DEFINING_SENTENCE.match(said)
        if not m:
            continue
        term = m.group("term")
        quoted = term[0] in "“\"‘'"
        if not quoted and not is_abbreviation(term):
            continue
        name = term[1:-1] if quoted else term
        if _COPULA_AFTER.match(said, m.end("term")):
            # "ABBR is a …" classifies as often as it defines (on the half this reader was not
            # written for, 0 of 1 right: docs/QUALITY.md): the sentence is proposed open.
            findings.append(
                Finding(name, Quote(name, chunk), "definition_sentence", open_sentences=(Quote(said, chunk),))
            )
        else:
            findings.append(Finding(name, Quote(name, chunk), "definition_sentence", definition=Quote(said, chunk)))
    return findings
