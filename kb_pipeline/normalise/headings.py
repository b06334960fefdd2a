"""Section headings: what is one, its numbering and depth, and the breadcrumb of open sections.

MinerU's flash tier gives nearly every title the same `text_level`, so depth comes from the
document's own signals: the PDF outline when it has one (see `outline`), else the numbering it
prints: `2.` → 1, `2.1.` → 2, `2.1.1` → 3; `III.`, `CHAPTER 5`, `Appendix A` → 1; `A.` and
`(1)` one level below the current numbered section.

Not every line MinerU calls a title is a heading. `heading_rejection` says why one is not:
no words ("3.1", "6 0", "= 0"), a table-of-contents line, a caption ("Figure 3:"), a sentence
fragment, a reference, an address or the run-in label of a theorem-like paragraph. Such a line stays in the text, so nothing is lost.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from .item_text import ItemText

_SPACE = r"[ \t\u00a0]"
_ARABIC = re.compile(rf"^(?P<no>\d{{1,2}}(?:\.\d{{1,3}})*)(?:\.?{_SPACE}+|\.(?=[^\W\d_]))(?P<title>\S.*)$", re.S)
_ROMAN = re.compile(rf"^(?P<no>[IVXL]{{1,6}})\.{_SPACE}+(?P<title>\S.*)$", re.S)
_LETTER = re.compile(rf"^(?P<no>[A-Z])\.{_SPACE}+(?P<title>\S.*)$", re.S)
_PAREN = re.compile(rf"^\((?P<no>\d{{1,2}}|[a-z])\){_SPACE}*(?P<title>\S.*)$", re.S)
# "CHAPTER 5.", "Chapter 2:", "CHAPITRE I :", "Part 3 –", "Appendix A" and their kin.
_CHAPTER = re.compile(
    rf"^(?P<word>chapter|chapitre|kapitel|capítulo|capitolo|bab|part|partie|teil|appendix|annex|annexe|"
    rf"anhang|lampiran){_SPACE}+(?P<no>\d{{1,2}}|[IVXL]{{1,6}}|[A-Z])\b[.:]?(?:{_SPACE}*[:.\u2013\u2014-])?"
    rf"{_SPACE}*(?P<title>.*)$",
    re.S | re.I,
)
_PAGE_NUMBER = re.compile(r"^\s*(?:page\s+|hal(?:aman)?\.?\s+)?\d{1,4}\s*$", re.I)
# Unnumbered headings that open a top-level section even inside a numbered document.
_TOP_LEVEL_NAMES = re.compile(
    r"^\s*(abstract|abstrak|summary|acknowledge?ments?|references|bibliography|daftar pustaka|appendix|"
    r"appendices|annex(es)?|lampiran|ethical considerations|conclusions?|kesimpulan|glossary|index)\b",
    re.I,
)
# The standard names of a report's or paper's sections (in the languages of the corpus and its
# neighbours): alone on a line, unnumbered, they open a section even when MinerU typed them as
# body text (set in the body font, "Résultats" is read as a paragraph).
_SECTION_NAMES = (
    r"(?:introduction|introducción|einleitung|pendahuluan|background|contexte|methods?|methodology|"
    r"materials and methods|méthodes?|méthodologie|methoden|métodos?|metodología|metode|results?|résultats?|"
    r"ergebnisse|resultados?|hasil|discussion|discusión|diskussion|pembahasan|conclusions?|conclusiones|"
    r"fazit|kesimpulan|acknowledge?ments?|remerciements|references|références|bibliographie|literatur|"
    r"referencias|bibliografía|résumé|zusammenfassung|resumen|summary|abstract)"
)
_SECTION_NAME = re.compile(rf"^\s*{_SECTION_NAMES}\s*[:.]?\s*$", re.I)
# One opening a paragraph or following a sentence's end inside it: MinerU may have joined them.
SECTION_NAME_INSIDE = re.compile(rf"(?:^|[.!?:]\s+){_SECTION_NAMES}\s", re.I)
# A caption MinerU typed as a title: it belongs to its figure or table, as text.
CAPTION = re.compile(
    r"^\s*(figure|fig\.|abbildung|abb\.|table|tableau|tabelle|tabla|tabel|gambar|listing|chart|graph|"
    r"plate|exhibit|map|carte|figura|schema|scheme|diagram)\s*[A-Z]?\d+(?:[.\-–]\d+)*[a-z]?\s*[.:\-–—)]?(\s|$)",
    re.I,
)
# The run-in label of a theorem-like paragraph ("Definition 6 ((", "Proposition 3.", "Proof.",
# "Théorème 2 (Banach)"): numbered and followed by nothing but a full stop or a parenthesis, or
# unnumbered and followed by a full stop alone. A label with a title after it ("Example: Cleaning
# up a PDF", "Observation 1. Lack of segregation of duties") is left to the other rules: manuals
# and audit reports title sections that way.
_THEOREM_LABEL = re.compile(
    r"^(?:definition|theorem|lemma|proposition|corollary|remark|example|proof|claim|conjecture|"
    r"assumption|notation|observation|"
    r"définition|théorème|lemme|corollaire|remarque|exemple|preuve|démonstration|"
    r"satz|korollar|bemerkung|beispiel|beweis|folgerung|"
    r"definición|teorema|lema|proposición|corolario|observación|ejemplo|demostración|prueba)"
    r"(?:\s+\d{1,3}(?:\.\d{1,3})*\s*(?:\.?\s*$|\()|\s*\.\s*$)",
    re.I,
)
DOT_LEADER = re.compile(r"(?:\.\s?){4,}|…{2,}|(?:_\s?){4,}")
_TOC_LINE = re.compile(r"\S\s*(?:\.\s?){2,}\s*\d{1,4}\s*$|\s\d{1,4}$")
_LETTERS = re.compile(r"[^\W\d_]{3,}")
_WORD_START = re.compile(r"[^\W\d_]|[\"“'‘(«「]")
_CJK = re.compile(r"[\u1100-\u11ff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}")
_WEB = re.compile(r"https?://|www\.|@\w|\bdoi:", re.I)
_MAX_HEADING_CHARS = 160
_MAX_HEADING_WORDS = 24
_PLAIN_HEADING_MAX_CHARS = 90


@dataclass(frozen=True)
class Heading:
    line: str  # the whole heading line, verbatim: a breadcrumb entry
    title: str  # the title after its number, verbatim: `Chunk.heading`
    section_no: str | None
    depth: int
    scheme: str | None = None  # "arabic" | "roman" | "letter" | "paren" | "chapter"; None when unnumbered
    from_outline: bool = False


def looks_like_page_number(text: str, bbox: list[int] | None) -> bool:
    """A bare number in the top or bottom band of the page: a page number MinerU typed as text."""
    return bool(_PAGE_NUMBER.match(text)) and (bbox is None or bbox[1] >= 850 or bbox[3] <= 150)


def numbered(line: str) -> tuple[str, str, str] | None:
    """(scheme, number, title) when `line` starts with a section number followed by words."""
    line = line.strip()
    m = _CHAPTER.match(line)
    if m:
        return "chapter", m["no"], m["title"] or line
    for scheme, pattern in (("arabic", _ARABIC), ("roman", _ROMAN), ("letter", _LETTER), ("paren", _PAREN)):
        m = pattern.match(line)
        if m and _WORD_START.match(m["title"]):
            return scheme, m["no"].rstrip("."), m["title"]
    return None


def is_section_name(line: str) -> bool:
    """Whether the line is nothing but a standard section name ("Results", "Résultats")."""
    return bool(_SECTION_NAME.match(line))


def has_words(line: str) -> bool:
    """Whether the line, once its number is removed, holds a word: 3 letters in a row (2 in CJK
    scripts, where two characters make a word)."""
    parsed = numbered(line)
    rest = unicodedata.normalize("NFKC", parsed[2] if parsed else line)
    return bool(_LETTERS.search(rest) or _CJK.search(rest))


def heading_rejection(line: str) -> str | None:
    """Why a line MinerU calls a title is not a section heading, or None when it may be one."""
    text = " ".join(line.split())
    if not has_words(text):
        return "no words"
    if DOT_LEADER.search(text) or (_TOC_LINE.search(text) and numbered(text) is not None):
        return "table of contents"
    if CAPTION.match(text):
        return "caption"
    if _THEOREM_LABEL.match(text):
        return "theorem-like label"
    if len(text) > _MAX_HEADING_CHARS or len(text.split()) > _MAX_HEADING_WORDS:
        return "too long"
    if _WEB.search(text):
        return "address or reference"
    if text[-1] in "-,;:":
        return "fragment or label"
    if numbered(text) is None and (text[0].islower() or text[0] in "\"“‘'«"):
        return "sentence fragment"
    if " = " in text or "=" in text.split()[0]:
        return "formula or legend"
    return None


_ROMAN_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50}


def _ordinal(scheme: str, number: str) -> int:
    if number.isdigit():
        return int(number)
    # "Chapter iv" and "Appendix b": the chapter pattern matches its number in either case.
    number = number.upper()
    if scheme in ("roman", "chapter") and set(number) <= set(_ROMAN_VALUES):
        values = [_ROMAN_VALUES[ch] for ch in number]
        return sum(-v if v < after else v for v, after in zip(values, values[1:] + [0]))
    return ord(number.upper()) - ord("A") + 1


class HeadingTracker:
    """Walks the headings of one document in reading order and keeps the open sections."""

    def __init__(self) -> None:
        self._open: list[Heading] = []

    @property
    def current(self) -> Heading | None:
        return self._open[-1] if self._open else None

    @property
    def path(self) -> list[str]:
        return [h.line for h in self._open]

    def _last(self, scheme: str) -> Heading | None:
        return next((h for h in reversed(self._open) if h.scheme == scheme), None)

    def _last_number(self, scheme: str) -> str | None:
        last = self._last(scheme)
        return last.section_no if last else None

    def make(self, line: str, *, outline_level: int | None = None) -> Heading:
        """The heading `line` would open, with its depth, without entering it."""
        parsed = numbered(line)
        scheme, number, title = parsed if parsed else (None, "", line)
        if outline_level is not None:
            depth = outline_level
        elif scheme == "arabic":
            depth = number.count(".") + 1
            chapter = self._last("chapter")
            if chapter is not None and "." in number:
                depth = max(depth, chapter.depth + number.count("."))
        elif scheme in ("roman", "chapter"):
            depth = 1
        elif scheme in ("letter", "paren"):
            depth = self._child_depth(scheme)
        elif _TOP_LEVEL_NAMES.match(line) or not any(h.section_no for h in self._open):
            depth = 1
        else:
            depth = self._child_depth()
        # Inside an outline section, a heading the outline does not list sits below it.
        outlined = next((h for h in reversed(self._open) if h.from_outline), None)
        if outline_level is None and outlined is not None:
            depth = max(depth, outlined.depth + 1)
        return Heading(line, title.strip() or line, number or None, depth, scheme, outline_level is not None)

    def enter(self, line: str, *, outline_level: int | None = None) -> Heading:
        return self.push(self.make(line, outline_level=outline_level))

    def push(self, heading: Heading) -> Heading:
        while self._open and self._open[-1].depth >= heading.depth:
            self._open.pop()
        self._open.append(heading)
        return heading

    def pop_current(self) -> None:
        self._open.pop()

    def goes_backwards(self, line: str) -> bool:
        """A top-level number lower than the open one ("2 x" from a formula after chapter 4):
        not the document's next section. A restart at 1 is allowed (a new part)."""
        parsed = numbered(line)
        if parsed is None or parsed[0] not in ("arabic", "roman", "chapter"):
            return False
        scheme, number, _title = parsed
        last = self._last_number(scheme)
        if last is None:
            return False
        last_value = _ordinal(scheme, last.split(".")[0])
        value = _ordinal(scheme, number.split(".")[0])
        return value != 1 and value < last_value

    def continues_numbering(self, line: str) -> bool:
        """Whether a plain line is really a heading MinerU did not mark as a title: a short line
        that carries the next number in the document's own sequence (after 2.1.2 comes 2.1.3,
        2.2 or 3; after II comes III; after A comes B; after (1) comes (2)). Numbered list items
        rarely fit that sequence, and a sentence does not fit the length and punctuation."""
        parsed = numbered(line)
        if (
            parsed is None
            or len(line) > _PLAIN_HEADING_MAX_CHARS
            or line.rstrip()[-1] in ".:;,"
            or heading_rejection(line)
        ):
            return False
        scheme, number, _title = parsed
        last = self._last_number(scheme)
        if scheme == "arabic":
            # After 2.1.3: its first child or the next sibling at any enclosing level (2.1.3.1, 2.1.4, 2.2, 3).
            current = [int(n) for n in last.split(".")] if last else []
            successors = [current + [1]] + [current[:k] + [current[k] + 1] for k in range(len(current))]
            chapter = self._last("chapter")
            if not current and chapter is not None and chapter.section_no and chapter.section_no.isdigit():
                successors.append([int(chapter.section_no), 1])  # after "Chapter 5" comes 5.1 (or 1)
            return [int(n) for n in number.split(".")] in successors
        if scheme in ("roman", "chapter"):
            return _ordinal(scheme, number) == (_ordinal(scheme, last) + 1 if last else 1)
        if scheme == "paren":
            if not number.isdigit():
                return False  # "(a)", "(b)": subfigure labels and list items far more often than sections
            # (1) opens a run under the current section; (k+1) follows (k) inside the same section.
            if last is None or (self.current is not None and self.current.scheme != "paren"):
                return _ordinal(scheme, number) == 1
            return _ordinal(scheme, number) == _ordinal(scheme, last) + 1
        if not any(h.scheme in ("arabic", "roman") for h in self._open):
            return False
        return number == (chr(ord(last) + 1) if last else "A")

    def _child_depth(self, scheme: str | None = None) -> int:
        """One below the innermost open section of another numbering, so siblings (`A.`, `B.`;
        `(1)`, `(2)`) stay siblings."""
        parents = [h for h in self._open if h.scheme is not None and h.scheme != scheme]
        if scheme is None:
            parents = [h for h in self._open if h.scheme in ("arabic", "roman", "chapter")]
        return parents[-1].depth + 1 if parents else 1


# A dotted section number alone ("4.1", "4.2.1."): a page number is never written that way.
_SECTION_NUMBER_ALONE = re.compile(r"^\s*\d{1,2}(?:\.\d{1,3})+\.?\s*$")
_LINE_KINDS = ("text", "header")


def numbers_set_apart(items: list[dict], texts: list[ItemText]) -> dict[int, int]:
    """{number item: title item} for headings whose dotted section number stands apart from its
    title on the same line (set off by a tab: MinerU reads "4.1" and "Pipe network" as two
    items, neither a title). The title is the nearest item to the number's right on its line:
    one line of words with no number of its own."""
    on_page: dict[int, list[int]] = {}
    for index, item in enumerate(items):
        if item["type"] in _LINE_KINDS and item.get("bbox") and texts[index].text.strip():
            on_page.setdefault(item["page_idx"], []).append(index)
    pairs: dict[int, int] = {}
    for indices in on_page.values():
        for number in indices:
            if not _SECTION_NUMBER_ALONE.match(texts[number].text):
                continue
            box = items[number]["bbox"]
            beside = [
                i
                for i in indices
                if i != number and items[i]["bbox"][0] >= box[2] and _same_line(box, items[i]["bbox"])
            ]
            if not beside:
                continue
            title = min(beside, key=lambda i: items[i]["bbox"][0])
            line = texts[title].text.strip()
            if (
                "\n" not in line
                and numbered(line) is None
                and has_words(line)
                and len(line) <= _PLAIN_HEADING_MAX_CHARS
            ):
                pairs[number] = title
    return pairs


def _same_line(a: list[int], b: list[int]) -> bool:
    """Whether two boxes stand on one line: their vertical centres within half the lower's height."""
    return abs((a[1] + a[3]) - (b[1] + b[3])) / 2 <= min(a[3] - a[1], b[3] - b[1]) / 2
