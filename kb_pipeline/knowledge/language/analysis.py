"""One analysis of every sentence, the one thing every language-reading reader reads: sentences,
tokens with offsets into the chunk's verbatim text, a part of speech per token (tagger.py, trained
on Universal Dependencies), and noun-phrase spans.

Offsets, never copies: `text[token.start:token.end]` is the token as printed, and a phrase's
slice is the source's characters, so whatever a reader quotes from the analysis passes the span
check unchanged.

The language of a chunk is the one with the most of its function words that no other language
shares (English, German, French, Spanish, Italian); a chunk with none takes its document's.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from ...contracts import Chunk, ParsedDocument
from ..document.document_scope import DocumentScoped
from ..document.text import Span, paragraphs, sentences
from . import english, french, german, italian, spanish
from .lexicon import DEFINITION_LABELS
from .tagger import tag

# The lexicon leaves the words Italian shares with French and Spanish ("la", "un", "si") to them;
# telling the languages apart reads each one's distinctive words, so they count here.
_ITALIAN_FUNCTION_WORDS = frozenset(italian.FUNCTION_WORDS) | frozenset(
    "la le un uno una e si ci come deve devono può possono viene vengono".split()
)
# The Spanish lexicon lists fewer function words than telling Spanish from French and Italian needs.
_SPANISH_FUNCTION_WORDS = frozenset(spanish.FUNCTION_WORDS) | frozenset(
    """a de la en lo el los las del al y o u que es son un una unos unas por para con sin sobre entre se su sus este esta
    estos estas como cuando donde pero muy más también ya""".split()
)
_FUNCTION_WORDS = {
    "en": frozenset(english.FUNCTION_WORDS),
    "de": frozenset(german.FUNCTION_WORDS),
    "fr": frozenset(french.FUNCTION_WORDS),
    "es": _SPANISH_FUNCTION_WORDS,
    "it": _ITALIAN_FUNCTION_WORDS,
}

# "la", "de", "un" are French, Spanish and Italian alike: only a word one language alone has tells.
_DISTINCTIVE = {
    code: words - frozenset().union(*(other for c, other in _FUNCTION_WORDS.items() if c != code))
    for code, words in _FUNCTION_WORDS.items()
}

# Tokens as the treebanks cut them: French and Italian elisions ("l'", "dell'") and English
# clitics ("n't", "'s") apart, hyphenated words whole, a number with its decimal separator whole,
# any other mark on its own.
_ELISION = r"(?:[^\W\d_]{0,4}[lLdDjJmMnNsStTcC]|[qQ]u|[uU]n|[dD]ell|[aA]ll|[nN]ell|[sS]ull|[dD]all)['’](?=[^\W\d_])"
_REST = (
    r"(?P<number>\d+(?:[.,]\d+)*(?!\w))"
    r"|(?P<word>[^\W\d_]+?(?=n['’]t\b)|n['’]t\b|['’](?:s|re|ve|ll|d|m)\b|\w+(?:[-‐]\w+)*)"
    r"|(?P<mark>\S)"
)
_TOKEN = re.compile(_REST)
_ROMANCE_TOKEN = re.compile(rf"(?P<elision>{_ELISION})|{_REST}")
_NOMINAL = frozenset({"NOUN", "PROPN"})
# The tags of words that are never part of a term: marks, conjunctions, auxiliaries, determiners,
# prepositions, particles.
CLOSED_CLASS_TAGS = frozenset({"PUNCT", "CCONJ", "SCONJ", "AUX", "DET", "ADP", "PART"})
# A verb or an auxiliary.
VERBAL_TAGS = frozenset({"VERB", "AUX"})
# Words that may stand inside a noun phrase before its head.
_MODIFIERS = frozenset({"ADJ", "NOUN", "PROPN", "NUM"})


@dataclass(frozen=True, slots=True)
class Token:
    start: int
    end: int
    text: str
    lower: str
    pos: str


@dataclass(frozen=True, eq=False)
class Sentence:
    """One sentence of a chunk: its span, tokens and noun phrases (token index ranges, end
    exclusive) in order. Compared and hashed by identity: a reader may key what it found on it."""

    chunk: Chunk
    span: Span
    language: str
    tokens: tuple[Token, ...]
    noun_phrases: tuple[tuple[int, int], ...] = field(default=())

    @property
    def text(self) -> str:
        return self.span.of(self.chunk.text)

    def slice(self, first: int, end: int) -> Span:
        """The characters of tokens `first` up to `end` (exclusive), as printed."""
        return Span(self.tokens[first].start, self.tokens[end - 1].end)

    def phrase_at(self, index: int) -> tuple[int, int] | None:
        """The noun phrase that starts at token `index`, or None."""
        return next((p for p in self.noun_phrases if p[0] == index), None)

    def complements_end(self, end: int, of: frozenset[str]) -> int:
        """Where a noun phrase ending at token `end` ends with its complements, each a word of
        `of` and the noun phrase after it ("the speed of sound"), or opening one ("die Ankunftszeit
        des n-ten Kunden", where the article is the link)."""
        while end < len(self.tokens) and self.tokens[end].lower in of:
            following = self.phrase_at(end) or self.phrase_at(end + 1)
            if following is None:
                break
            end = following[1]
        return end

    def phrase_ending(self, end: int) -> tuple[int, int] | None:
        """The noun phrase that ends just before token `end`, or None."""
        return next((p for p in self.noun_phrases if p[1] == end), None)


def tokenize(text: str, span: Span, language: str) -> list[tuple[int, int]]:
    """Token offsets of `text[span]`, cut as the language's treebank cuts them."""
    pattern = _ROMANCE_TOKEN if language in ("fr", "it") else _TOKEN
    return [(m.start(), m.end()) for m in pattern.finditer(text, span.start, span.end)]


def language_of(text: str, default: str = "en") -> str:
    """The tagged language with the most of the text's function words that no other language
    shares ("la" and "de" are French and Spanish both); `default` without any, or on a tie it is in."""
    words = re.findall(r"[^\W\d_]+", text.lower())
    counts = Counter({code: sum(w in fw for w in words) for code, fw in _DISTINCTIVE.items()})
    best, n = counts.most_common(1)[0]
    if n == 0 or counts[default] == n:
        return default
    return best


def noun_phrases(tokens: list[Token], language: str) -> list[tuple[int, int]]:
    """Base noun phrases: an optional determiner, modifiers and a nominal head ("the scientific
    method", "die mittlere Wartezeit"), in Romance languages also the adjectives after the head
    ("la durée moyenne"); a phrase holds at least one noun or proper noun."""
    found: list[tuple[int, int]] = []
    romance = language in ("fr", "es", "it")
    i, n = 0, len(tokens)
    while i < n:
        start = i
        if tokens[i].pos == "DET" or (tokens[i].pos == "PRON" and tokens[i].lower in _POSSESSIVES):
            i += 1
        j = i
        while j < n and (tokens[j].pos in _MODIFIERS or (tokens[j].pos == "ADV" and _before_adjective(tokens, j))):
            j += 1
        # The head is the last nominal of the run; an adjective after it belongs to the phrase
        # only in a Romance language.
        head = max((k for k in range(i, j) if tokens[k].pos in _NOMINAL), default=-1)
        if head < 0:
            i = max(start + 1, j)
            continue
        end = j if romance else head + 1
        found.append((start, end))
        i = end
    return found


# A numbered environment's label ("Definition 2.1.", "Définition 3.1", "Definition 2 (Haul truck).")
# is no part of the sentence it opens: the definition's own sentence starts after it.
_ENVIRONMENT = re.compile(rf"(?:{DEFINITION_LABELS})\s+\d+(?:\.\d+)*\.?(?:\s*\([^()\n]{{1,60}}\))?\.?(?=\s)")


def _without_labels(text: str, spans: list[Span]) -> list[Span]:
    out = []
    for span in spans:
        label = _ENVIRONMENT.match(text, span.start)
        rest = len(text[label.end() : span.end]) - len(text[label.end() : span.end].lstrip()) if label else 0
        if label is None or label.end() + rest >= span.end:
            out.append(span)
            continue
        out += [Span(span.start, label.end()), Span(label.end() + rest, span.end)]
    return out


_POSSESSIVES = frozenset(
    "its their our his her my your sein seine ihr ihre son sa ses leur leurs su sus suo sua suoi".split()
)


def _before_adjective(tokens: list[Token], j: int) -> bool:
    return j + 1 < len(tokens) and tokens[j + 1].pos == "ADJ"


def analyse(chunk: Chunk, span: Span, language: str) -> Sentence:
    text = chunk.text
    offsets = tokenize(text, span, language)
    words = [text[a:b] for a, b in offsets]
    tags = tag(words, language) if words else []
    tokens = [Token(a, b, w, w.lower(), p) for (a, b), w, p in zip(offsets, words, tags)]
    return Sentence(chunk, span, language, tuple(tokens), tuple(noun_phrases(tokens, language)))


class DocumentAnalysis:
    """Every sentence of a document's prose, analysed on first use and kept for the other readers."""

    def __init__(self, document: ParsedDocument):
        self._language = language_of(" ".join(c.text for c in document.chunks[:200] if c.kind == "text"))
        self._sentences: dict[str, list[Sentence]] = {}

    @property
    def language(self) -> str:
        return self._language

    def sentences(self, chunk: Chunk) -> list[Sentence]:
        if chunk.chunk_id not in self._sentences:
            language = language_of(chunk.text, self._language)
            self._sentences[chunk.chunk_id] = [
                analyse(chunk, sentence, language)
                for para in paragraphs(chunk.text)
                for sentence in _without_labels(chunk.text, sentences(chunk.text, para))
            ]
        return self._sentences[chunk.chunk_id]


@contextmanager
def _open_analysis(document: ParsedDocument) -> Iterator[DocumentAnalysis]:
    yield DocumentAnalysis(document)


# Made once per extraction however many readers ask.
document_analysis = DocumentScoped("document_analysis", _open_analysis)
