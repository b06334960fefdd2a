"""Part-of-speech tagging: one Universal POS tag (UPOS) per word, so the knowledge readers can tell
a verb from a noun ("is called", "the check valve") where a word list cannot.

English, German, French and Spanish use a greedy left-to-right averaged perceptron in the style of
Honnibal's "A good part-of-speech tagger in about 200 lines of Python" (2013), trained offline by
tagger_training.py on Universal Dependencies treebanks. The weights ship as package data in
taggers/<lang>.json.gz: a derived work of the treebanks, under their CC BY-SA 4.0 licence
(taggers/README.md names the treebanks and the accuracy measured on the split not trained on).

Italian is rule-based (a closed-class lexicon and suffix rules, `_tag_italian`): there is no
Italian treebank to train on here, so expect it to be rougher than the trained languages.

Pure standard library and fast (tens of thousands of words a second on one core): the score a
word contributes on its own, as a previous or as a next word, and that of each pair of previous
tags are each summed once and cached, so tagging a word is four cached vectors added and an argmax.

`words` are tokens as printed: words, numbers and punctuation marks as separate tokens, English
clitics ("n't", "'s") and French elisions ("l'", "d'", "qu'") separate, hyphenated words whole.
Capitalisation is kept and read (a capitalised word inside a sentence leans to PROPN, or NOUN in
German); the first word is taken as the start of a sentence, so pass one sentence at a time.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

UPOS: tuple[str, ...] = tuple("ADJ ADP ADV AUX CCONJ DET INTJ NOUN NUM PART PRON PROPN PUNCT SCONJ SYM VERB X".split())
TRAINED_LANGUAGES: frozenset[str] = frozenset({"en", "de", "fr", "es"})
TAGGED_LANGUAGES: frozenset[str] = TRAINED_LANGUAGES | {"it"}

# Sentinels around a sentence: no token as printed is one of these.
START, START2, END = "-START-", "-START2-", "-END-"
# A cache of word vectors is dropped when it grows past this many words (a long document's
# vocabulary), so memory stays bounded; refilling it is cheap.
_CACHE_LIMIT = 200_000


# The features: shared by training (tagger_training.py) and inference, so they cannot drift apart.
def normalise(word: str) -> str:
    """The word as a feature: lowercased, numbers folded into two classes (a number's digits carry
    no part of speech, and there are too many to learn one by one)."""
    if word[:1].isdigit():
        return "!YEAR" if len(word) == 4 and word.isdigit() else "!DIGITS"
    return word.lower()


def shape(word: str) -> str:
    """Xx (capitalised), x (lower), X (upper), d (a number) or mixed; hyphens and apostrophes
    ignored, so "well-known" is x and "O'Neill" is Xx."""
    core = word.replace("-", "").replace("'", "")
    if core.isalpha():
        if core.islower():
            return "x"
        if core.isupper():
            return "X"
        return "Xx" if core[0].isupper() and core[1:].islower() else "mixed"
    if core and core[0].isdigit() and all(c.isdigit() or c in ".,:/" for c in core):
        return "d"
    return "mixed"


def word_features(word: str, first: bool, suffixes: int) -> list[str]:
    """What a word says about its own tag, wherever it stands (its position only as first or not)."""
    low = word.lower()
    features = ["b", "w " + normalise(word), "p " + word[:1], "h " + shape(word)]
    features += [f"s{k} {low[-k:]}" for k in range(1, suffixes + 1)]
    if first:
        features.append("S")
    elif word[:1].isupper():
        features.append("c")
    return features


def neighbour_features(word: str, side: str) -> list[str]:
    """What a word says about the tag of the word after it (side "-1") or before it ("+1")."""
    if word in (START, END):
        return ["w" + side + " " + word]
    return ["w" + side + " " + normalise(word), "x" + side + " " + word.lower()[-3:]]


def history_features(previous: str, before_previous: str) -> list[str]:
    """What the two tags already chosen say about the next one."""
    return ["t " + previous, "tt " + previous + " " + before_previous]


class Perceptron:
    """A trained language's weights, and the caches that make tagging with them fast."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.tags: tuple[str, ...] = tuple(data["tags"])
        self.suffixes: int = data["suffixes"]
        index = {tag: i for i, tag in enumerate(self.tags)}
        self.tagdict: dict[str, int] = {word: index[tag] for word, tag in data["tagdict"].items()}
        # Feature → its non-zero weights as (tag index, weight): the sparse form to sum from.
        self.weights: dict[str, tuple[tuple[int, float], ...]] = {
            feature: tuple((index[tag], weight) for tag, weight in by_tag.items())
            for feature, by_tag in data["weights"].items()
        }
        self._inner: dict[str, list[float]] = {}
        self._first: dict[str, list[float]] = {}
        self._before: dict[str, list[float]] = {}
        self._after: dict[str, list[float]] = {}
        # Indices len(tags) and len(tags) + 1 stand for START and START2.
        names = [*self.tags, START, START2]
        self._history = [[self._vector(history_features(p1, p2)) for p2 in names] for p1 in names]

    def _vector(self, features: list[str]) -> list[float]:
        scores = [0.0] * len(self.tags)
        get = self.weights.get
        for feature in features:
            for i, weight in get(feature, ()):
                scores[i] += weight
        return scores

    def _cached(self, cache: dict[str, list[float]], word: str, features: list[str]) -> list[float]:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        vector = cache[word] = self._vector(features)
        return vector

    def tag(self, words: Sequence[str]) -> list[str]:
        tags = self.tags
        tagdict = self.tagdict
        history = self._history
        inner, first, before, after = self._inner, self._first, self._before, self._after
        last = len(words) - 1
        p1, p2 = len(tags), len(tags) + 1
        out: list[int] = []
        for i, word in enumerate(words):
            best = tagdict.get(word)
            if best is None:
                own_cache = inner if i else first
                own = own_cache.get(word) or self._cached(own_cache, word, word_features(word, not i, self.suffixes))
                left = words[i - 1] if i else START
                right = words[i + 1] if i < last else END
                prev = before.get(left) or self._cached(before, left, neighbour_features(left, "-1"))
                nxt = after.get(right) or self._cached(after, right, neighbour_features(right, "+1"))
                scores = list(map(sum, zip(own, prev, nxt, history[p1][p2])))
                best = scores.index(max(scores))
            out.append(best)
            p1, p2 = best, p1
        return [tags[i] for i in out]


def read_weights(data: bytes) -> Perceptron:
    """A model from the bytes of a <lang>.json.gz file (the shipped one, or one just trained)."""
    return Perceptron(json.loads(gzip.decompress(data)))


@cache
def _model(language: str) -> Perceptron:
    path = resources.files(__package__) / "taggers" / f"{language}.json.gz"
    return read_weights(path.read_bytes())


def tag(words: Sequence[str], language: str) -> list[str]:
    """One Universal POS tag (UPOS: NOUN, VERB, AUX, ADJ, ADP, DET, PRON, PROPN, CCONJ, SCONJ, ADV, NUM, PART, PUNCT, SYM, X, INTJ) per word."""
    if language not in TAGGED_LANGUAGES:
        raise ValueError(f"no part-of-speech tagger for language {language!r} (have {sorted(TAGGED_LANGUAGES)})")
    # The treebanks write the apostrophe straight; typeset text often curls it.
    words = [w.replace("\u2019", "'") if "\u2019" in w else w for w in words]
    if not words:
        return []
    if language == "it":
        return _tag_italian(words)
    return _model(language).tag(words)


# Italian, by rule. Word classes as Italian UD treebanks tag them (an articulated preposition,
# "della" = di + la, is ADP; copulas, tense auxiliaries and modals are AUX; "non" is ADV).
def _words(tag: str, words: str) -> dict[str, str]:
    return dict.fromkeys(words.split(), tag)


_IT_ARTICLES = frozenset("il lo la i gli le l' un uno una un'".split())
_IT_ARTICULATED = frozenset(
    f"{p}{a}" for p in ("de", "a", "da", "ne", "su") for a in ("l", "llo", "lla", "i", "gli", "lle", "ll'")
) | {"col", "coi"}
_IT_LEXICON: dict[str, str] = {
    **_words("DET", "il lo la i gli le l' un uno una un' questo questa questi queste quest' quello quella"),
    **_words("DET", "quelli quelle quell' ogni ciascun ciascuna qualche alcuni alcune nessun nessuna tale tali"),
    **_words("DET", "tutto tutta tutti tutte tutt' suo sua suoi sue mio mia miei mie nostro nostra nostri"),
    **_words("DET", "nostre vostro vostra loro qualsiasi"),
    **dict.fromkeys(_IT_ARTICULATED, "ADP"),
    **_words("ADP", "di d' a ad da in con su per tra fra senza sotto sopra verso presso durante entro"),
    **_words("ADP", "contro secondo oltre tramite mediante attraverso lungo circa"),
    **_words("PRON", "io tu lui lei noi voi esso essa essi esse si s' ci c' ne n' mi m' ti t' vi v' me te sé"),
    **_words("PRON", "cui quale quali chi ciò ognuno ciascuno nessuno qualcuno qualcosa niente nulla"),
    **_words("CCONJ", "e ed o od ma né oppure bensì"),
    **_words("SCONJ", "che se perché poiché affinché sebbene benché mentre quando come com' qualora"),
    **_words("AUX", "è e' sono era erano sarà saranno sia siano fosse fossero essere stato stata stati"),
    **_words("AUX", "state ha hanno ho hai abbiamo avete aveva avevano avrà avranno abbia abbiano avere"),
    **_words("AUX", "deve devono dovrà dovranno dovrebbe dovrebbero può possono potrà potranno potrebbe"),
    **_words("AUX", "potrebbero vuole vogliono viene vengono verrà verranno venire"),
    **_words("ADV", "non più molto poco anche anch' già ancora sempre mai solo soltanto spesso così inoltre"),
    **_words("ADV", "quindi pertanto dove dov' qui qua lì là bene male meno tanto troppo almeno invece"),
    **_words("ADV", "comunque dunque ora oggi prima poi dopo insieme appena ecco infatti sempre"),
    **_words("NUM", "zero due tre quattro cinque sei sette otto nove dieci venti cento mille"),
}
_IT_HAVE = frozenset("ha hanno ho hai abbiamo avete aveva avevano avrà avranno abbia abbiano avere".split())
_IT_COME = frozenset("viene vengono verrà verranno venire".split())
_IT_CLITICS = frozenset("lo la le li gli l'".split())
_IT_PARTICIPLE = ("ato", "ata", "ati", "ate", "ito", "ita", "iti", "ite", "uto", "uta", "uti", "ute")
# Longest ending first wins within a class; the classes are tried in this order (-mente before -ente).
_IT_SUFFIXES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ADV", ("mente",)),
    ("VERB", ("are", "ere", "ire", "ando", "endo", *_IT_PARTICIPLE, "iamo", "ranno", "rebbe", "rebbero")),
    ("VERB", ("avano", "evano", "ivano")),
    ("ADJ", ("ale", "ali", "ile", "ili", "oso", "osa", "osi", "ose", "ivo", "iva", "ivi", "ive", "ico", "ica")),
    ("ADJ", ("ici", "iche", "ario", "aria", "ari", "arie", "ente", "enti", "ante", "anti")),
)
_IT_SYMBOLS = frozenset("% € $ £ ° § + = < > ± ×".split())


def _tag_italian_word(word: str, first: bool, previous: str) -> str:
    low = word.lower()
    if low in _IT_LEXICON:
        return _IT_LEXICON[low]
    if word in _IT_SYMBOLS:
        return "SYM"
    if not any(c.isalnum() for c in word):
        return "PUNCT"
    if word[0].isdigit() and all(c.isdigit() or c in ".,:/-" for c in word):
        return "NUM"
    if "'" in low[:-1]:  # an elision the caller left joined ("l'acqua"): the content word decides
        head, _, rest = low.partition("'")
        if head + "'" in _IT_LEXICON and rest:
            return _tag_italian_word(rest, first=False, previous=head + "'")
    if not first and word[0].isupper():
        return "PROPN"
    for upos, endings in _IT_SUFFIXES:
        for ending in endings:
            if low.endswith(ending) and len(low) >= len(ending) + 3:
                # Right after an article the word is the noun: "il risultato", "il potere", "un componente".
                if upos != "ADV" and (previous in _IT_ARTICLES or previous in _IT_ARTICULATED):
                    return "NOUN"
                return upos
    return "NOUN"


def _tag_italian(words: Sequence[str]) -> list[str]:
    lows = [w.lower() for w in words]
    tags = [_tag_italian_word(w, i == 0, lows[i - 1] if i else "") for i, w in enumerate(words)]
    for i, low in enumerate(lows):
        following = tags[i + 1] if i + 1 < len(tags) else ""
        # "la chiude", "lo è": before a verb an article is an object pronoun.
        if low in _IT_CLITICS and following in ("VERB", "AUX"):
            tags[i] = "PRON"
        # "ha chiuso" (AUX) vs "ha una valvola" (VERB); "viene chiusa" vs "viene qui".
        elif low in _IT_HAVE or low in _IT_COME:
            j = i + 2 if following == "ADV" and i + 2 < len(tags) else i + 1
            participle = j < len(tags) and tags[j] == "VERB" and lows[j].endswith(_IT_PARTICIPLE)
            tags[i] = "AUX" if participle else "VERB"
    return tags
