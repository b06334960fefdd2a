"""Abbreviations: what looks like one, whether an expansion spells it, and the two places a
document states them — its abbreviation list and "Full Name (ABBR)" in running text.

The alignment is Schwartz & Hearst's (2003): the abbreviation's letters and digits are found,
in order and right to left, in the expansion, its first character at a word start.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from ....contracts import Chunk, ParsedDocument
from ...document.layout import DocumentLayout, document_layout
from ...document.list_layout import list_rows
from ...document.text import Span, find_squashed, key, paragraphs, words
from ...language.lexicon import FUNCTION_WORDS, LIST_HEADINGS, PLAIN_DISJUNCTIONS, alternation
from ..findings import Finding, Quote

# Headings of an abbreviation list.
LIST_HEADING = re.compile(LIST_HEADINGS, re.IGNORECASE)
# "(II)", "(IV)": list numbering in running text, not abbreviations.
_ROMAN = re.compile(r"^X{0,3}(?:IX|IV|V?I{0,3})$")
_MAX_EXPANSION_WORDS = 12


def is_abbreviation(token: str) -> bool:
    """PLC, PoE, QoS, KPIs, R&D, ISO-9001, CO2, UN: two capitals, or one with a digit or &;
    eMMC, eWMS, pH: a lower-case prefix before capitals."""
    letters = [c for c in token if c.isalpha()]
    if not letters or len(token) > 12:
        return False
    if not re.fullmatch(r"[\w&/\-.]+", token) or token.endswith((".", "-")):
        return False
    if token[0].islower():
        # One lower-case letter, then capitals: eMMC, eWMS, iOS, pH (not kWh, olItem).
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
    (but its own parts: "PLCST PLC self-test"). A token in neither is an orphan ([], [i]):
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
            # A term never holds a line break: two tokens on two lines are two rows.
            if size == 2 and "\n" in text[tokens[i][0].end : tokens[i + 1][0].start]:
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


# One abbreviation per line, with a separator: "PLC: programmable …", "PLC – programmable …",
# "FY = …", "PLC<tab>programmable …", "- PLC: …".
_SEPARATED_LINE = re.compile(
    r"^[ \t]*(?:[•*·-][ \t]+)?(?P<abbreviation>[^\s:=–—]+(?: [^\s:=–—]+)?)"
    r"(?:[ \t]*[:=–—][ \t]*|[ \t]+-[ \t]+|[ \t]*\t[ \t]*)(?P<expansion>\S[^\n]*?)[ \t]*[;,.]?[ \t]*$",
    re.MULTILINE,
)
# A table row "PLC | programmable logic controller", as chunks.json writes a table's rows.
_TABLE_ROW = re.compile(r"^(?P<abbreviation>[^|\n]+?) \| (?P<expansion>[^|\n]+?)[ \t]*$", re.MULTILINE)


def _separated(chunk: Chunk) -> tuple[list[Finding], list[Span]]:
    """The list's lines of the form ABBR, separator, expansion (or two-cell table rows): their
    findings and where they stand (not to be read again)."""
    findings, taken = [], []
    for m in (_TABLE_ROW if chunk.kind == "table" else _SEPARATED_LINE).finditer(chunk.text):
        name, expansion = m.group("abbreviation").strip(), m.group("expansion")
        with_a_word = _abbreviated_with_a_word(name, expansion) if chunk.kind != "table" else None
        if with_a_word is False:
            # "ABBR Word – …": the line's form is the list's, its term is not one abbreviation;
            # read word by word, the abbreviation would take the word as its expansion's start.
            taken.append(Span(m.start(), m.end()))
            continue
        if not (with_a_word or all(is_abbreviation(part) for part in name.split())):
            continue
        if not any(c.isalpha() for c in expansion):
            continue
        if len(expansion.split()) > 2 * _MAX_EXPANSION_WORDS:
            continue
        anchor = Quote(name, chunk)
        findings.append(Finding(name, anchor, "abbreviation_list", full_name=Quote(expansion, chunk)))
        taken.append(Span(m.start(), m.end()))
    return findings, taken


def _abbreviated_with_a_word(name: str, expansion: str) -> bool | None:
    """For a list line's name of an abbreviation and a word ("TA Luft"): whether it is one term
    whose expansion spells the abbreviation and ends in the word kept whole ("Technische
    Anleitung zur Reinhaltung der Luft"); None for a name of any other shape."""
    parts = name.split()
    if len(parts) != 2 or not is_abbreviation(parts[0]) or is_abbreviation(parts[1]):
        return None
    head, _, last = expansion.rstrip(" ;,.").rpartition(" ")
    return last.casefold() == parts[1].casefold() and aligns(parts[0], head)


def _list_tokens(text: str, taken: list[Span]) -> list[tuple[Span, int]]:
    """The words of each paragraph not already read, a separator glued to an abbreviation
    ("PLC:") split off as a token of its own; with their paragraph's index."""
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


def _is_term(text: str) -> bool:
    """A list's term by itself: one or two abbreviations ("PLC", "AC DC"); "TA Luft" is one only
    with its expansion (`_is_row`)."""
    parts = text.split()
    return 0 < len(parts) <= 2 and all(is_abbreviation(p) for p in parts)


def _is_row(term: str, expansion: str) -> bool:
    """Whether a list's row is a term and its expansion: an abbreviation, or an abbreviation and
    a word the expansion ends in ("TA Luft" – "… der Luft")."""
    return _is_term(term) or bool(_abbreviated_with_a_word(term, expansion))


def _laid_out(chunk: Chunk, layout: DocumentLayout | None) -> list[Finding]:
    """The list's rows as the page lays them out in two columns (list_layout.py), each quoted
    from the chunk; [] when it is not so laid out."""
    if layout is None or chunk.kind != "text":
        return []
    rows = list_rows(chunk, layout, _is_term)
    if not rows:
        # One column, a separator on each line ("ABC – long form"), which MinerU may have run
        # together into one line: the text layer's lines.
        lines = [m for s in layout.chunk_segments(chunk) if (m := _SEPARATED_LINE.fullmatch(s.text))]
        rows = [(m.group("abbreviation"), m.group("expansion")) for m in lines]
    rows = [(term, expansion) for term, expansion in rows if _is_row(term, expansion)]
    findings = []
    for term, expansion in rows if len(rows) >= 2 else []:
        name, full_name = find_squashed(term, chunk.text), find_squashed(expansion, chunk.text)
        # Squashed, "AB CD" is also "AB\nCD": a term never holds a line break (two rows' ends).
        if name and "\n" not in name and full_name and any(c.isalpha() for c in full_name):
            findings.append(Finding(name, Quote(name, chunk), "abbreviation_list", full_name=Quote(full_name, chunk)))
    return findings


def read_abbreviation_lists(document: ParsedDocument) -> list[Finding]:
    chunks = _list_chunks(document)
    if not chunks:
        return []
    with document_layout(document) as layout:
        return [finding for chunk in chunks for finding in _read_list(chunk, layout)]


def _read_list(chunk: Chunk, layout: DocumentLayout | None) -> list[Finding]:
    if laid_out := _laid_out(chunk, layout):
        return laid_out
    findings = []
    text = chunk.text
    separated, taken = _separated(chunk)
    findings += separated
    if chunk.kind == "table":
        return findings
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


# "(ABBR)", "[ABBR]", "(ABBR1 or ABBR2)"; or, after an abbreviation, "(Long Form Words)".
_BRACKETED = re.compile(r"\((?P<round>[^()\[\]\n]{2,80})\)|\[(?P<square>[^()\[\]\n]{2,80})\]")
_ALTERNATIVES = re.compile(rf"\s+(?:{alternation(PLAIN_DISJUNCTIONS)})\s+")
_STOP = re.compile(r"[.;:!?()\[\]\n]")
_INNER_PAIR = re.compile(r"^\s*(?P<long>[^\W\d_][^,;]{3,78}?),\s+(?P<short>\S{2,12})\s*$")
_MAX_INLINE_WORDS = 16
# "Long Form (LF, Author et al., 2024)": the abbreviation, then the work that introduced it.
_CITATION_AFTER = re.compile(r"^(?P<name>[^,;]+)[,;]\s+[^()]*?\D(?:1[5-9]|20)\d\d[a-z]?$")


def _plain(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _spelling_words(text: str) -> list[tuple[str, frozenset[int]]]:
    """Words as an abbreviation spells them, accents and case aside, hyphenated parts and elided
    articles (d’, l’) apart; with where a letter may start its word's share: its initial, or a
    capital inside it ("eXtensible Markup Language")."""
    return [
        (w.casefold(), frozenset([0] + [k for k, c in enumerate(w) if c.isupper()]))
        for w in re.findall(r"[^\W_]+", _plain(text))
    ]


def _subsequence(wanted: str, word: str) -> bool:
    rest = iter(word)
    return all(c in rest for c in wanted)


def spells(abbreviation: str, phrase: str) -> bool:
    """Whether the phrase's words spell the abbreviation, letter by letter: each word in turn
    gives the next letters, starting with its initial and then others of its own, in order
    ("sound navigation and ranging", "Mixture-of-Experts", "Société nationale des chemins de fer"
    for SNCF). The first word gives letters; a function word (of, de, und …) may give none, and
    so may one other word after the first ("Regional Water Quality Board" for RWB,
    "electro-magnetic sensors" for EMSs). Trailing digits may stand apart ("mean time to repair"
    for MTTR2)."""
    words = _spelling_words(phrase)
    letters = "".join(c for c in _plain(abbreviation).casefold() if c.isalnum())
    # Each letter its word, and about as many words it need not spell.
    if not words or len(words) > 2 * len(letters) + 2:
        return False
    options = [letters, letters.rstrip("0123456789")]
    return any(len(o) >= 2 and _spelled(o, tuple(words)) for o in dict.fromkeys(options))


def _spelled(letters: str, words: tuple[tuple[str, frozenset[int]], ...]) -> bool:
    @cache
    def rest(i: int, w: int, skipped: bool) -> bool:
        if w == len(words):
            return i == len(letters)
        word, entries = words[w]
        if w > 0 and (word in _UNSPELT or not skipped):
            if rest(i, w + 1, skipped or word not in _UNSPELT):
                return True
        if i == len(letters):
            return False
        return any(
            word[e] == letters[i] and _subsequence(letters[i + 1 : j], word[e + 1 :]) and rest(j, w + 1, skipped)
            for e in entries
            for j in range(len(letters), i, -1)
        )

    return rest(0, 0, False)


# Words a long form need not spell, as `_spelling_words` writes them (accents aside).
_UNSPELT = frozenset(_plain(w) for w in FUNCTION_WORDS)


def expansion_before(text: str, end: int, abbreviation: str) -> str | None:
    """The shortest run of words right before `end` (same sentence) that spells `abbreviation`,
    one not starting with a function word if there is one ("Department of Water and
    Sanitation (DWS)", not "of Water and Sanitation"; but "in situ measurements (ISMs)")."""
    head = text[:end].rstrip()
    stop = max((m.end() for m in _STOP.finditer(head, max(0, len(head) - 300))), default=0)
    # Each word's first letter or digit: where a long form may start.
    starts = [stop + m.start(1) for m in re.finditer(r"\S*?([^\W_]\S*)", head[stop:])]
    found = [
        phrase
        for start in reversed(starts[-_MAX_INLINE_WORDS:])
        if key(phrase := head[start:]) != key(abbreviation) and spells(abbreviation, phrase)
    ]
    content = [p for p in found if _spelling_words(p)[0][0] not in _UNSPELT]
    return next(iter(content or found), None)


def _named_before(head: str) -> str:
    """The word before a bracket, or the abbreviation a date or a function word or two stand
    between ("the XYZ of 2015 (Long Form)", "la loi ABC de 2015 (…)")."""
    tokens = head.split()[-3:]
    for k in range(len(tokens) - 1, -1, -1):
        if is_abbreviation(tokens[k]) or not (tokens[k].isdigit() or tokens[k].casefold() in _UNSPELT):
            return tokens[k] if k == len(tokens) - 1 or is_abbreviation(tokens[k]) else ""
    return ""


def _inline(chunk: Chunk, source: str) -> list[Finding]:
    """ "Long Form (LF)", "Long Form [LF]", "long form (LF1 or LF2)", "LF (Long Form)",
    "Long Form (LF, Author, 2024)"."""
    findings = []
    for m in _BRACKETED.finditer(source):
        inside = m.group("round") or m.group("square")
        if m.group("round") and (cited_by := _CITATION_AFTER.match(inside)):
            inside = cited_by.group("name")
        names = _ALTERNATIVES.split(inside.strip())
        # A citation key in square brackets ("[Mit97]", "[42]") is no abbreviation.
        cited = m.group("square") and any(c.isdigit() for c in inside)
        if not cited and all(is_abbreviation(n) and not _ROMAN.match(n) for n in names):
            expansion = expansion_before(source, m.start(), names[0])
            if expansion and all(spells(n, expansion) for n in names):
                findings += [Finding(n, Quote(n, chunk), "inline", full_name=Quote(expansion, chunk)) for n in names]
            continue
        name = _named_before(source[: m.start()])
        if m.group("round") and is_abbreviation(name) and not _ROMAN.match(name) and spells(name, inside):
            findings.append(Finding(name, Quote(name, chunk), "inline", full_name=Quote(inside.strip(), chunk)))
        elif m.group("round") and (inner := _INNER_PAIR.match(inside)):
            # "(Solvency Capital Requirement, SCR)": the long form and its abbreviation both inside.
            short, long = inner.group("short"), inner.group("long")
            if is_abbreviation(short) and not _ROMAN.match(short) and spells(short, long):
                findings.append(Finding(short, Quote(short, chunk), "inline", full_name=Quote(long, chunk)))
    return findings


# "FY = Financial Year", "SD = standard deviation;": a legend, anywhere (table notes, captions).
_LEGEND = re.compile(
    r"(?<![\w&/-])(?P<abbreviation>[^\W_][\w&/-]{0,11}) ?= ?(?P<expansion>[^\W\d_][^;=\n]{1,120}?)"
    r"(?=\s*(?:;|\n|$|\.(?:\s|$)|,\s*[^\W_][\w&/-]{0,11} ?=))"
)


def _initials(abbreviation: str, expansion: str) -> bool:
    """A legend's expansion spells an all-capitals abbreviation with its words' initials, in
    order ("FY = Financial Year ending …"); a mixed-case one (eMMC) as `aligns` does."""
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


# "(YYYY - year, MM - month, DD - day)", "W : width, H : height, D : depth": a key legend, three
# pairs or more in one run; the run, not the spelling, says each key stands for its words.
_KEY_PAIR = r"[^\W_][\w]{0,5}(?:\s[-–]|\s?[:=])\s[^\W\d_][^\W\d_ ]*(?: [^\W\d_]+){0,4}"
_KEY_RUN = re.compile(rf"(?<![\w-])(?:{_KEY_PAIR}[,;]\s+){{2,}}{_KEY_PAIR}(?=\s*(?:[.;)\n]|$))")
_KEY_SPLIT = re.compile(r"^(?P<key>\S+)(?:\s[-–]|\s?[:=])\s(?P<meaning>.+)$")
# "U, uniform; W, winter dominated; S, summer dominated" (a table's note): a comma between a key
# and its words where semicolons part the pairs.
_COMMA_PAIR = r"[^\W_][\w]{0,5},\s[^\W\d_]+(?: [^\W\d_]+){0,4}"
_COMMA_RUN = re.compile(rf"(?<![\w-])(?:{_COMMA_PAIR}\s?;\s+){{2,}}{_COMMA_PAIR}(?=\s*(?:[.;)\n]|$))")
_COMMA_SPLIT = re.compile(r"^(?P<key>\S+),\s(?P<meaning>.+)$")


def _is_key(token: str) -> bool:
    """A symbol or code, not a word: "W", "hh", "YYYY", "Qmax"; never a capitalised word ("May")."""
    return any(c.isalpha() for c in token) and not (len(token) >= 3 and token.istitle())


def read_key_legends(chunk: Chunk) -> list[Finding]:
    findings = []
    runs = [(run, _KEY_SPLIT, r"[,;]\s+") for run in _KEY_RUN.finditer(chunk.text)]
    runs += [(run, _COMMA_SPLIT, r"\s?;\s+") for run in _COMMA_RUN.finditer(chunk.text)]
    for run, split, between in runs:
        pairs = [split.match(p) for p in re.split(between, run.group())]
        if not all(p and _is_key(p.group("key")) for p in pairs):
            continue
        findings += [
            Finding(p.group("key"), Quote(p.group("key"), chunk), "inline", full_name=Quote(p.group("meaning"), chunk))
            for p in pairs
            if p
        ]
    return findings


def read_inline_abbreviations(document: ParsedDocument) -> list[Finding]:
    """Inline expansions anywhere in running text (and headings), and "ABBR = Full Name" legends."""
    findings = []
    for chunk in document.chunks:
        if chunk.kind in ("text", "table"):
            findings += read_legends(chunk) + read_key_legends(chunk)
        if chunk.kind == "text":
            findings += [f for source in (chunk.text, chunk.heading or "") for f in _inline(chunk, source)]
    return findings
