"""Reading chunk text without changing it: every function returns offsets into the chunk's own
string, so a value sliced from them is the source's characters, never a cleaned copy.

`squash` and `key` are the yardstick's normalisations (shared/knowledge/score_glossary.py): a
value is compared after them, but always stored as sliced.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from ...contracts import Chunk, ParsedDocument

# The formula and legend readers' function words (a noun phrase stops at one; none is a symbol).
from ..language.lexicon import FUNCTION_WORDS

_ASCII = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
        "\u2010": "-",
        "\u2011": "-",
    }
)
_INVISIBLE = ("Cc", "Cf", "Co", "Cs", "Cn")


def squash(text: str) -> str:
    """For locating a value: layout (whitespace, hyphens, soft hyphens, table bars) aside."""
    text = unicodedata.normalize("NFKC", text).translate(_ASCII)
    return "".join(
        ch
        for ch in text
        if not ch.isspace() and ch not in "-|\u00ad\ufffe" and unicodedata.category(ch) not in _INVISIBLE
    )


def key(text: str | None) -> str:
    """For matching names: case and punctuation aside."""
    return re.sub(r"[^\w]+", "", unicodedata.normalize("NFKC", text or "").translate(_ASCII).casefold())


def canonical(term: str) -> str:
    """A cluster's canonical form, the input of its term_id: NFKC, casefolded, spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", term).casefold().split())


@dataclass(frozen=True)
class Span:
    """`text[start:end]` of one chunk's text."""

    start: int
    end: int

    def of(self, text: str) -> str:
        return text[self.start : self.end]


_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


def paragraphs(text: str) -> list[Span]:
    """Blank-line separated pieces (chunks.json joins MinerU's items with a blank line), trimmed."""
    spans, start = [], 0
    for brk in [*_PARAGRAPH_BREAK.finditer(text), None]:
        end = brk.start() if brk else len(text)
        piece = text[start:end]
        if piece.strip():
            lead = len(piece) - len(piece.lstrip())
            spans.append(Span(start + lead, start + len(piece.rstrip())))
        start = brk.end() if brk else len(text)
    return spans


def words(text: str, span: Span) -> list[Span]:
    return [Span(span.start + m.start(), span.start + m.end()) for m in re.finditer(r"\S+", span.of(text))]


# A sentence ends at . ! ? (or the Arabic, Devanagari, Urdu forms) before whitespace and a letter
# that is not lower-case (upper-case, or a script without case: Korean, Arabic, …), a digit, a
# quote or a bullet; and right after the CJK full stops 。！？, which take no space — not after
# one capital letter or an inner-dot abbreviation (e.g., "(i.e."). A full stop the text layer
# glued to the next sentence ends one too when a capitalised function word follows it ("… the
# last step.The next …"; not "module.Class", a name). A sentence set in brackets ends at its
# bracket ("(If so, it must be logged.) The …").
_SENTENCE_END = re.compile(
    r"(?<=[.!?؟।۔])\s+(?=[\"'“‘(\[•\d\w])|(?<=[.!?][)\]])\s+(?=[A-Z])|(?<=[。！？])|(?<=[^\s\d.]\.)(?=[A-Z][a-z]*\s)"
)
_NOT_AN_END = re.compile(
    r"(?:^|[\s(\[])(?:\w|\w\.\w|e\.g|i\.e|etc|vs|cf|No|Dr|Mr|Mrs|Fig|Eqs?|al|approx|Tab|yth|dll|dsb|ca|bzw|z\.B|d\.h)\.$"
)
# One digit after a lower-case word is a count, not a label like "Fig. 1." or "Table 2.": "… in
# step 2. Then …" ends there.
_COUNT_END = re.compile(r"(?:^|\s)[a-z]+\s\d\.$")
_GLUED_WORD = re.compile(r"[A-Z][a-z]*")
# A note's letter marker run into the text after a stop ("… of record. b Total flow …"): table
# and figure notes, each a sentence of its own though it opens in lower case.
_NOTE_MARKER = re.compile(r"[a-z] (?=[A-Z][a-z])")


def sentences(text: str, span: Span) -> list[Span]:
    """Sentences of `text[span]`, in order; the last one may be cut (no final stop)."""
    piece, out, start = span.of(text), [], 0
    for m in _SENTENCE_END.finditer(piece):
        head = piece[start : m.start()]
        nxt = piece[m.end() : m.end() + 1]
        if m.end() == m.start() and piece[m.start() - 1 : m.start()] == ".":
            glued = _GLUED_WORD.match(piece, m.end())
            if not glued or glued.group(0).casefold() not in FUNCTION_WORDS:
                continue
        if _NOT_AN_END.search(head) and not (_COUNT_END.search(head) and nxt.isupper()):
            continue
        if nxt.islower() and not _NOTE_MARKER.match(piece, m.end()):
            continue
        if head.strip():
            out.append(Span(span.start + start, span.start + m.start()))
        start = m.end()
    if piece[start:].strip():
        out.append(Span(span.start + start, span.start + len(piece.rstrip())))
    return out


def ends_a_sentence(piece: str) -> bool:
    return piece.rstrip().endswith(SENTENCE_STOPS + (":", ";"))


def open_ended(text: str) -> bool:
    """A clause that stops on a word no clause ends with ("make sure that", "prüfen, ob", "si
    calcola con"), no stop after it: what follows completes it, as it would after a colon."""
    words = text.split()
    return bool(words) and not ends_a_sentence(text) and words[-1].casefold() in FUNCTION_WORDS


SENTENCE_STOPS = (".", "!", "?", "。", "！", "？", "؟", "।", "۔")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def word_count(text: str) -> int:
    """Space-separated words; in Chinese or Japanese, which put no space between words, about
    one word per two characters (Korean spaces its words, so counts as split)."""
    return max(len(text.split()), len(_CJK.findall(text)) // 2)


def text_sentences(document: ParsedDocument) -> Iterator[tuple[Chunk, Span, str]]:
    """Every sentence of the document's text chunks, paragraph by paragraph: its chunk, its
    position in the chunk's text, and its characters."""
    for chunk in document.chunks:
        if chunk.kind != "text":
            continue
        for para in paragraphs(chunk.text):
            for sentence in sentences(chunk.text, para):
                yield chunk, sentence, sentence.of(chunk.text)


def find_squashed(value: str, source: str) -> str | None:
    """The slice of `source` that reads as `value` once both are squashed (layout aside: the
    text layer and MinerU may space or hyphenate a line differently), or None."""
    wanted = squash(value)
    if not wanted:
        return None
    pieces, origin = [], []
    for index, ch in enumerate(source):
        for out in squash(ch):
            pieces.append(out)
            origin.append(index)
    at = "".join(pieces).find(wanted)
    if at < 0:
        return None
    return source[origin[at] : origin[at + len(wanted) - 1] + 1]
