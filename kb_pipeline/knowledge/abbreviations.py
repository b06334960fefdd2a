"""Abbreviations: what looks like one, whether an expansion spells it, and the two places a
document states them — its abbreviation list and "Full Name (ABBR)" in running text.

The alignment is Schwartz & Hearst's (2003): the abbreviation's letters and digits are found,
in order and right to left, in the expansion, its first character at a word start.
"""

from __future__ import annotations

import re

from ..contracts import Chunk, ParsedDocument
from .findings import Finding, Quote
from .text import Span, paragraphs, words

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
    """ALT, HCVcAg, LoD, LMICs, M&E, FIB-4, PEG-IFN, WHO: two capitals, or one with a digit or &."""
    letters = [c for c in token if c.isalpha()]
    if not letters or not token[0].isupper() or len(token) > 12:
        return False
    if not re.fullmatch(r"[\w&/\-.]+", token) or token.endswith((".", "-")):
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
    return [c for c in document.chunks if c.kind == "text" and c.heading and LIST_HEADING.search(c.heading)]


def _segment(text: str, tokens: list[tuple[Span, int]]) -> list[tuple[list[int], list[int]]]:
    """Best split of a list's tokens into (abbreviation tokens, expansion tokens) pairs, where an
    abbreviation is one or two tokens, an expansion 0–12 tokens in one paragraph that the
    abbreviation aligns with and that does not end with an abbreviation. A token in neither is
    an orphan ([], [i]): part of an expansion MinerU laid out away from its abbreviation."""
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
            options: list[tuple[float, tuple[list[int], list[int], int]]] = [(score[i + size] - 0.5, (a, [], i + size))]
            for length in range(1, _MAX_EXPANSION_WORDS + 1):
                j = i + size + length
                if j > n or tokens[j - 1][1] != tokens[i + size][1]:
                    break
                if not abbr[j - 1] and aligns(name, " ".join(word[i + size : j])):
                    options.append((score[j] + 2.0 - 0.01 * length, (a, list(range(i + size, j)), j)))
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


def read_abbreviation_lists(document: ParsedDocument) -> list[Finding]:
    findings = []
    for chunk in _list_chunks(document):
        text = chunk.text
        tokens = [(w, k) for k, p in enumerate(paragraphs(text)) for w in words(text, p)]
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
    """The shortest run of words right before `end` (same sentence) that `abbreviation` spells."""
    head = text[:end].rstrip()
    stop = max((m.end() for m in _STOP.finditer(head, max(0, len(head) - 200))), default=0)
    candidates = list(re.finditer(r"\S+", head[stop:]))
    letters = sum(c.isalnum() for c in abbreviation)
    for count in range(1, min(len(candidates), letters + 3) + 1):
        phrase = head[stop + candidates[-count].start() :]
        if phrase[:1].lower() == abbreviation[:1].lower() and aligns(abbreviation, phrase):
            return phrase
    return None


def read_inline_abbreviations(document: ParsedDocument) -> list[Finding]:
    """ "Full Name (ABBR)" anywhere in running text (and headings)."""
    findings = []
    for chunk in document.chunks:
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
