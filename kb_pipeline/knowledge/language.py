"""The closed word classes of the languages the readers know — English, French, German, Spanish,
Indonesian: articles, determiners, copulas, modals and auxiliaries, pronouns, negations and
function words. One list per class, so every reader agrees on what an article or a copula is.

Only closed classes live here: what a term is comes from the layout around it, never from a
list of words.
"""

from __future__ import annotations

import re

DEFINITE_ARTICLES = ("the", "le", "la", "les", "der", "die", "das", "den", "dem", "des", "el", "los", "las")
INDEFINITE_ARTICLES = ("a", "an", "un", "une", "ein", "eine", "uno", "una", "suatu", "sebuah")
# French elides "le"/"la" before a vowel: "l'eau", "l’usine".
ELIDED_ARTICLE = r"l['’]"
ARTICLES = DEFINITE_ARTICLES + INDEFINITE_ARTICLES
# What a classifying noun phrase opens with ("is a …", "is one of …", "ist einer der …").
DETERMINERS = (*ARTICLES, "one", "any", "each", "des", "du", "de", "einer", "eines", "seorang", "salah satu")
COPULAS = ("is", "are", "est", "sont", "ist", "sind", "es", "son", "adalah", "merupakan", "ialah", "yaitu")
# The copulas of a language without articles: their noun phrase opens with the noun itself.
BARE_COPULAS = ("adalah", "merupakan", "ialah", "yaitu")
# Modals and auxiliaries: a verb phrase holding one says what a thing can or must do, or did.
MODALS = (
    "can", "could", "may", "might", "must", "shall", "should", "will", "would", "need", "needs",
    "has", "have", "had", "was", "were", "do", "does", "did",
    "doit", "doivent", "peut", "peuvent", "sera", "seront", "était", "ont",
    "muss", "müssen", "kann", "können", "soll", "sollte", "sollen", "wird", "werden", "hat", "haben", "war",
    "debe", "deben", "puede", "pueden", "tiene", "tienen",
    "harus", "dapat", "bisa", "akan", "perlu", "wajib", "boleh", "sudah", "telah",
)  # fmt: skip
PRONOUNS = (
    "i", "you", "it", "this", "that", "these", "those", "there", "here", "which", "what", "who", "we", "they",
    "he", "she", "our", "its", "their",
    "il", "elle", "ils", "elles", "cela", "ceci", "ce", "cette", "ces", "on", "nous",
    "es", "er", "sie", "dies", "diese", "dieser", "dieses", "wir", "man",
    "esto", "esta", "este", "estos", "ello", "ella", "ellos", "nosotros",
    "ini", "itu", "kami", "kita", "mereka", "ia", "dia",
)  # fmt: skip
NEGATIONS = ("not", "pas", "ne", "nicht", "kein", "keine", "no", "tidak", "bukan")

# Function words: articles, prepositions, conjunctions, pronouns, auxiliaries. A term never
# starts or ends with one; a noun phrase stops at one; none of them is a symbol. The Spanish
# "sin" (without) is left out: in a formula it is the sine.
FUNCTION_WORDS = frozenset(
    """a an the of in on at to for from by with as and or but nor if is are was were be been being it its this that
    these those we our they their he she his her which who whom whose what when where while since because than then
    so such not no all any each both per via see let use into onto over under up out about after before between through during
    without within among also can may must shall should will would do does did has have had there here only some every
    le la les l un une des du de d et ou où en au aux par pour sur dans avec sans est sont été être que qui dont ce
    cet cette ces se sa son ses leur leurs il elle ils elles nous vous on ne pas plus comme
    der die das den dem des ein eine einer einem einen eines und oder im am an auf aus bei mit nach von vom zu zum
    zur für über unter ist sind wird werden wurde als wie wenn dass es er sie wir ihr nicht auch durch bis ohne
    dieses diese dieser
    el los las lo unos unas y o u e del al con por para sobre son está están ser su sus donde cuando
    yang dan di ke dari untuk dengan pada adalah ialah dalam atau ini itu oleh sebagai bagi tanpa""".split()
)


def alternation(words: tuple[str, ...]) -> str:
    """A regex alternative of the words, longest first (so "une" is tried before "un")."""
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True))


def whole_word(words: tuple[str, ...]) -> re.Pattern[str]:
    """Matches a token that is one of the words, case aside."""
    return re.compile(rf"^(?:{alternation(words)})$", re.IGNORECASE)


def is_function_word(token: str) -> bool:
    return token.casefold() in FUNCTION_WORDS
