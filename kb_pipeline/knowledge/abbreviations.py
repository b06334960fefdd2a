"""Abbreviations: what looks like one, whether an expansion spells it, and the two places a
document states them — its abbreviation list and "Full Name (ABBR)" in running text.

The alignment is Schwartz & Hearst's (2003): the abbreviation's letters and digits are found,
in order and right to left, in the expansion, its first character at a word start.
"""

from __future__ import annotations

import re

from ..contracts import Chunk, ParsedDocument
from .findings import Finding, Quote
from .text import Span, key, paragraphs, words

# Headings of an abbreviation list, in the languages of the corpus and its neighbours.
LIST_HEADING = re.compile(
    r"abbreviation|acronym|abr[ée]viation|sigles|abk[üu]rzung|singkatan|akronim|abreviatura|siglas"
    r"|abbreviazion|acr[óo]nimo|afkorting|skr[óo]t|약어|略語|略号|缩略|缩写",
    re.IGNORECASE,
)
# "(II)", "(IV)": list numbering in running text, not abbreviations.
_ROMAN = re.compile(r"^X{0,3}(?:IX|IV|V?I{0,3})$")
_MAX_EXPANSION_WORDS = 12


def is_abbreviation(token: str) -> bool:
    """ALT, HCVcAg, LoD, LMICs, M&E, FIB-4, PEG-IFN, WHO: two capitals, or one with a digit or &;
    mRNA, eGFR, pH: a lower-case prefix before capitals."""
    letters = [c for c in token if c.isalpha()]
    if not letters or len(token) > 12:
        return False
    if not re.fullmatch(r"[\w&/\-.]+", token) or token.endswith((".", "-")):
        return False
    if token[0].islower():
        # One lower-case letter, then capitals: mRNA, eGFR, iSCSI, pH (not cAg, olItem).
        rest = token[1:]
        return token.isalnum() and rest[:1].isupper() and (len(rest) == 1 or sum(c.isupper() for c in rest) >= 2)
    if not token[0].isupper():
        return False
    capitals = sum(c.isupper() for c in letters)
    return capitals >= 2 or (capitals == 1 and re.search(r"[\d&]", token) is not None)


def aligns(abbreviation: str, expansion: str) -> bool:
    wanted = [c.lower() for c in abbreviation if c.isalnum()]
    if len(wanted) < 2 or not expansion:
        return False
    text = expansion.lower()
    j = len(text) - 1
    for i in range(len(wanted) - 1, -1, -1):
        while j >= 0 and (text[j] != wanted[i] or (i == 0 and j > 0 and text[j - 1].isalnum())):
            j -= 1
        if j < 0:
            return False
        j -= 1
    return True


def _list_chunks(document: ParsedDocument) -> list[Chunk]:
    return [c for c in document.chunks if c.kind in ("text", "table") and c.heading and LIST_HEADING.search(c.heading)]


_SEPARATORS = (":", "=", "–", "—", "-")


def _segment(text: str, tokens: list[tuple[Span, int]]) -> list[tuple[list[int], list[int]]]:
    """Best split of a list's tokens into (abbreviation tokens, expansion tokens) pairs, where an
    abbreviation is one or two tokens, then maybe a separator (: = – —), an expansion 0–12 tokens
    in one paragraph that the abbreviation aligns with and that holds no other abbreviation
    (but its own parts: "HCVST HCV self-testing"). A token in neither is an orphan ([], [i]):
    part of an expansion MinerU laid out away from its abbreviation."""
    n = len(tokens)
    word = [s.of(text) for s, _ in tokens]
    abbr = [is_abbreviation(w) for w in word]
    # Dynamic programming from the end: score[i] of the best segmentation of tokens[i:], whose
    # first pair is choice[i] (abbreviation tokens, expansion tokens, where the rest starts).
    score = [0.0] * (n + 1)
    choice: list[tuple[list[int], list[int], int]] = [([], [], n)] * (n + 1)
    for i in range(n - 1, -1, -1):
        score[i], choice[i] = score[i + 1] - 1.0, ([], [i], i + 1)
        for size in (1, 2):
            if i + size > n or not all(abbr[i : i + size]):
                continue
            a = list(range(i, i + size))
            name = " ".join(word[k] for k in a)
            first = i + size + (i + size < n and word[i + size] in _SEPARATORS)
            options: list[tuple[float, tuple[list[int], list[int], int]]] = [(score[first] - 0.5, (a, [], first))]
            for length in range(1, _MAX_EXPANSION_WORDS + 1):
                j = first + length
                if j > n or tokens[j - 1][1] != tokens[first][1]:
                    break
                if abbr[j - 1] and word[j - 1] not in name:
                    break
                if aligns(name, " ".join(word[first:j])):
                    options.append((score[j] + 2.0 - 0.01 * length, (a, list(range(first, j)), j)))
            best = max(options, key=lambda option: option[0])
            if best[0] > score[i]:
                score[i], choice[i] = best
    pairs, i = [], 0
    while i < n:
        a, e, i = choice[i]
        pairs.append((a, e))
    return pairs


def _slice(text: str, tokens: list[tuple[Span, int]], indices: list[int]) -> str:
    return text[tokens[indices[0]][0].start : tokens[indices[-1]][0].end]


# One abbreviation per line, with a separator: "ALT: alanine …", "ALT – alanine …", "FY = …",
# "ALT<tab>alanine …", "- ALT: …".
_SEPARATED_LINE = re.compile(
    r"^[ \t]*(?:[•*·-][ \t]+)?(?P<abbreviation>[^\s:=–—]+(?: [^\s:=–—]+)?)"
    r"(?:[ \t]*[:=–—][ \t]*|[ \t]+-[ \t]+|[ \t]*\t[ \t]*)(?P<expansion>\S[^\n]*?)[ \t]*[;,.]?[ \t]*$",
    re.MULTILINE,
)
# A table row "ALT | alanine aminotransferase", as chunks.json writes a table's rows.
_TABLE_ROW = re.compile(r"^(?P<abbreviation>[^|\n]+?) \| (?P<expansion>[^|\n]+?)[ \t]*$", re.MULTILINE)


def _separated(chunk: Chunk) -> tuple[list[Finding], list[Span]]:
    """The list's lines of the form ABBR, separator, expansion (or two-cell table rows): their
    findings and where they stand (not to be read again)."""
    findings, taken = [], []
    for m in (_TABLE_ROW if chunk.kind == "table" else _SEPARATED_LINE).finditer(chunk.text):
        name, expansion = m.group("abbreviation").strip(), m.group("expansion")
        if not all(is_abbreviation(part) for part in name.split()) or not any(c.isalpha() for c in expansion):
            continue
        if len(expansion.split()) > 2 * _MAX_EXPANSION_WORDS:
            continue
        anchor = Quote(name, chunk)
        findings.append(Finding(name, anchor, "abbreviation_list", full_name=Quote(expansion, chunk)))
        taken.append(Span(m.start(), m.end()))
    return findings, taken


def _list_tokens(text: str, taken: list[Span]) -> list[tuple[Span, int]]:
    """The words of each paragraph not already read, a separator glued to an abbreviation
    ("ALT:") split off as a token of its own; with their paragraph's index."""
    tokens = []
    for k, para in enumerate(paragraphs(text)):
        for w in words(text, para):
            if any(t.start <= w.start < t.end for t in taken):
                continue
            piece = w.of(text)
            if len(piece) > 1 and piece[-1] in ":=" and is_abbreviation(piece[:-1]):
                tokens += [(Span(w.start, w.end - 1), k), (Span(w.end - 1, w.end), k)]
            else:
                tokens.append((w, k))
    return tokens


def read_abbreviation_lists(document: ParsedDocument) -> list[Finding]:
    findings = []
    for chunk in _list_chunks(document):
        text = chunk.text
        separated, taken = _separated(chunk)
        findings += separated
        if chunk.kind == "table":
            continue
        tokens = _list_tokens(text, taken)
        pairs: list[tuple[str, str | None]] = []
        orphans: list[list[int]] = []
        for a, e in _segment(text, tokens):
            if a:
                pairs.append((_slice(text, tokens, a), _slice(text, tokens, e) if e else None))
            elif orphans and orphans[-1][-1] == e[0] - 1 and tokens[e[0]][1] == tokens[orphans[-1][-1]][1]:
                orphans[-1].append(e[0])
            else:
                orphans.append(e)
        # An expansion laid out away from its abbreviation goes to the first one it spells.
        for run in orphans:
            phrase = _slice(text, tokens, run)
            for k, (name, expansion) in enumerate(pairs):
                if expansion is None and aligns(name, phrase):
                    pairs[k] = (name, phrase)
                    break
        for name, expansion in pairs:
            findings.append(
                Finding(
                    term=name,
                    anchor=Quote(name, chunk),
                    reader="abbreviation_list",
                    full_name=Quote(expansion, chunk) if expansion else None,
                )
            )
    return findings


_PARENTHESISED = re.compile(r"\(([^()\s]{2,12})\)")
_STOP = re.compile(r"[.;:!?()\[\]\n]")


def expansion_before(text: str, end: int, abbreviation: str) -> str | None:
    """The shortest run of words right before `end` (same sentence) that `abbreviation` spells;
    for a capitalised abbreviation, the shortest such run that starts with a capital when there
    is one ("Office of Management and Budget (OMB)", not "of Management and Budget")."""
    head = text[:end].rstrip()
    stop = max((m.end() for m in _STOP.finditer(head, max(0, len(head) - 200))), default=0)
    candidates = list(re.finditer(r"\S+", head[stop:]))
    letters = sum(c.isalnum() for c in abbreviation)
    found = []
    for count in range(1, min(len(candidates), letters + 3) + 1):
        phrase = head[stop + candidates[-count].start() :]
        if (
            phrase[:1].lower() == abbreviation[:1].lower()
            and key(phrase) != key(abbreviation)
            and aligns(abbreviation, phrase)
        ):
            found.append(phrase)
    capitalised = [p for p in found if p[:1].isupper()] if abbreviation[:1].isupper() else []
    return next(iter(capitalised or found), None)


# "FY = Financial Year", "CI = confidence interval;": a legend, anywhere (table notes, captions).
_LEGEND = re.compile(
    r"(?<![\w&/-])(?P<abbreviation>[^\W_][\w&/-]{0,11}) ?= ?(?P<expansion>[^\W\d_][^;=\n]{1,120}?)"
    r"(?=\s*(?:;|\n|$|\.(?:\s|$)|,\s*[^\W_][\w&/-]{0,11} ?=))"
)


def _initials(abbreviation: str, expansion: str) -> bool:
    """A legend's expansion spells an all-capitals abbreviation with its words' initials, in
    order ("FY = Financial Year ending …"); a mixed-case one (mRNA) as `aligns` does."""
    if any(c.islower() for c in abbreviation):
        return aligns(abbreviation, expansion)
    initials = iter(w[0].lower() for w in re.findall(r"[^\W_]+", expansion))
    return all(any(c == i for i in initials) for c in abbreviation.lower() if c.isalpha())


def read_legends(chunk: Chunk) -> list[Finding]:
    findings = []
    for m in _LEGEND.finditer(chunk.text):
        name, expansion = m.group("abbreviation"), m.group("expansion").rstrip(" ,")
        if is_abbreviation(name) and len(expansion.split()) <= _MAX_EXPANSION_WORDS and _initials(name, expansion):
            findings.append(Finding(name, Quote(name, chunk), "inline", full_name=Quote(expansion, chunk)))
    return findings


def read_inline_abbreviations(document: ParsedDocument) -> list[Finding]:
    """ "Full Name (ABBR)" anywhere in running text (and headings), and "ABBR = Full Name" legends."""
    findings = []
    for chunk in document.chunks:
        if chunk.kind in ("text", "table"):
            findings += read_legends(chunk)
        if chunk.kind != "text":
            continue
        for source in (chunk.text, chunk.heading or ""):
            for m in _PARENTHESISED.finditer(source):
                name = m.group(1)
                if not is_abbreviation(name) or _ROMAN.match(name):
                    continue
                expansion = expansion_before(source, m.start(), name)
                if expansion:
                    findings.append(Finding(name, Quote(name, chunk), "inline", full_name=Quote(expansion, chunk)))
    return findings
