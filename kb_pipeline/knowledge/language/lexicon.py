"""The lexicon: every word class of every language the readers know, joined into one list per
class (english.py, french.py, german.py, spanish.py, italian.py, indonesian.py). Every
reader takes its words from here, so they all agree on what an article, a modal or a condition
opener is; a new language is one module with the same names, added to `LANGUAGES`.

Only closed classes live here: what a term is comes from the layout around it, never from a
list of words.
"""

from __future__ import annotations

import re
from types import ModuleType

from . import (
    chinese,
    dutch,
    english,
    french,
    german,
    indonesian,
    italian,
    japanese,
    korean,
    polish,
    portuguese,
    spanish,
)

LANGUAGES: tuple[ModuleType, ...] = (english, french, german, spanish, italian, indonesian)
# Languages recognised only where a document names its own parts and itself (the headings of its
# glossary, abbreviation list and purpose; the phrase it calls itself by) and in the few wordings
# the readers read in every language recognised (a numbered definition's label, a listed term's
# defining verb, a unit's preposition, "if … then"): no other reader reads their sentences, so each fills only the
# classes joined by `_recognised`. Filling every class moves one into `LANGUAGES`.
RECOGNISED_ONLY: tuple[ModuleType, ...] = (portuguese, dutch, polish, korean, japanese, chinese)


def _every(name: str) -> tuple[str, ...]:
    """The class `name` of every language, in the order of `LANGUAGES`."""
    return tuple(word for language in LANGUAGES for word in getattr(language, name))


def _either(name: str, languages: tuple[ModuleType, ...] = LANGUAGES) -> str:
    """The regex alternatives of the class `name` of every language, in the order of `LANGUAGES`."""
    return "|".join(alternatives for language in languages if (alternatives := getattr(language, name)))


def _recognised(name: str) -> str:
    """`_either` over every language recognised, `RECOGNISED_ONLY`'s too."""
    return _either(name, LANGUAGES + RECOGNISED_ONLY)


DEFINITE_ARTICLES = _every("DEFINITE_ARTICLES")
INDEFINITE_ARTICLES = _every("INDEFINITE_ARTICLES")
ELIDED_ARTICLE = french.ELIDED_ARTICLE
ARTICLES = DEFINITE_ARTICLES + INDEFINITE_ARTICLES
# What a classifying noun phrase opens with ("is a …", "is one of …", "ist einer der …").
DETERMINERS = (*ARTICLES, *_every("DETERMINERS"))
COPULAS = _every("COPULAS")
# The copulas of a language without articles: their noun phrase opens with the noun itself.
BARE_COPULAS = _every("BARE_COPULAS")
# Modals and auxiliaries: a verb phrase holding one says what a thing can or must do, or did.
MODALS = _every("MODALS")
PRONOUNS = _every("PRONOUNS")
# The authors' own "we": a modal of theirs is their reasoning, not a rule for the reader.
AUTHORS = _every("AUTHORS")
NEGATIONS = _every("NEGATIONS")
# Function words: articles, prepositions, conjunctions, pronouns, auxiliaries. A term never
# starts or ends with one; a noun phrase stops at one; none of them is a symbol.
FUNCTION_WORDS = frozenset(_every("FUNCTION_WORDS"))
# What a sentence points at in the document itself: a subject holding one names no term.
DOCUMENT_PARTS = _every("DOCUMENT_PARTS")
# Nouns for what any symbol is, singular and plural, casefolded.
KIND_NOUNS = frozenset(word.casefold() for word in _every("KIND_NOUNS"))
# Verbs a procedure, checklist or recommendation opens with, by language code: a language's
# verbs count only in a sentence in that language (the others mark an instruction by the verb's
# form, and have none listed).
INSTRUCTION_VERBS = {language.CODE: frozenset(language.INSTRUCTION_VERBS) for language in LANGUAGES}
# The endings of the verb form an instruction is written in, by language code (an infinitive's,
# French's imperative -ez; none where the form is unmarked).
INSTRUCTION_ENDINGS = {language.CODE: language.INSTRUCTION_ENDINGS for language in LANGUAGES}
# Verbs that by themselves say a sentence defines its subject ("X refers to …").
DEFINING_VERBS = _either("DEFINING_VERBS")
DISCOURSE_MARKERS = _either("DISCOURSE_MARKERS")
CONDITION_OPENERS = _either("CONDITION_OPENERS")
TRAILING_CONDITIONS = _either("TRAILING_CONDITIONS")
# "If necessary", "when possible": a reader's option, not a fact.
AS_NEEDED = _either("AS_NEEDED")
# A leading scope over every member ("For each sample, …"): a step applied to each, a rule.
EACH_SCOPES = _either("EACH_SCOPES")
# A proviso ("provided …", "à condition que …", "sofern …"): the consequence holds only under it.
PROVISOS = _either("PROVISOS")
CONDITIONALS = _either("CONDITIONALS")
# The other branch of a condition ("… 0 otherwise", "… sinon …").
ALTERNATIVES = _either("ALTERNATIVES")
# A publication's own terms: copyright, licence wording, the work itself named.
COPYRIGHT = _either("COPYRIGHT")
LICENSING = _either("LICENSING")
THE_WORK = _either("THE_WORK")
OPEN_MODALS = _either("OPEN_MODALS")
# The wording that settles a sentence as a rule; how a value is computed (regex alternatives).
RULE_WORDING = _every("RULE_WORDING")
CALCULATION_WORDING = _every("CALCULATION_WORDING")
# What a value past a threshold is classed as (a criterion).
CLASSIFYING_VERBS = _either("CLASSIFYING_VERBS")
CALCULATION_WORDS = _either("CALCULATION_WORDS")
SUBORDINATORS = _either("SUBORDINATORS")
RULE_NOUNS = _either("RULE_NOUNS")
OUTCOME_VERBS = _either("OUTCOME_VERBS")
# What a value always or never comes to ("It never returns null"): a convention without a condition.
ABSOLUTE_OUTCOMES = _either("ABSOLUTE_OUTCOMES")
FORMULA_NOUNS = _either("FORMULA_NOUNS")
FOLLOWING = _either("FOLLOWING")
FORMULA_OF = _either("FORMULA_OF")
FORMULA_LEAD_INS = _either("FORMULA_LEAD_INS")
LEGEND_VERBS = _either("LEGEND_VERBS")
LEGEND_OPENERS = _either("LEGEND_OPENERS")
WITH = _either("WITH")
SYMBOL_DEFINING_VERBS = _either("SYMBOL_DEFINING_VERBS")
SYMBOL_READING_VERBS = _either("SYMBOL_READING_VERBS")
CONJUNCTIONS = _either("CONJUNCTIONS")
# "or": names of one thing listed together ("USER or SESSION_USER").
DISJUNCTIONS = _either("DISJUNCTIONS")
# "and", "or" without a variant for the sound that follows (Spanish "e", "u").
PLAIN_CONJUNCTIONS = _every("PLAIN_CONJUNCTIONS")
PLAIN_DISJUNCTIONS = _every("PLAIN_DISJUNCTIONS")
PARAMETER_LABELS = _either("PARAMETER_LABELS")
RELATIVE_PRONOUNS = _either("RELATIVE_PRONOUNS")
MARK_VERBS = _either("MARK_VERBS")
VERSION_LABELS = _either("VERSION_LABELS")
# An adverb between a subject and its defining verb ("X is commonly defined as").
HEDGES = _every("HEDGES")
# The copula after an indefinite subject ("An X is a …") and the numeral its noun phrase may
# open with ("is one of …").
INDEFINITE_COPULAS = _every("INDEFINITE_COPULAS")
ONE_OF = _every("ONE_OF")
# Definitions with the term inside the wording ("On entend par X, …"), one regex each, its
# groups `subject` and `rest`.
INVERTED_DEFINITIONS = _every("INVERTED_DEFINITIONS")
# What a note or example under a glossary's entry opens with, as a line and as ISO 704 prints it.
NOTE_LABELS = _every("NOTE_LABELS")
ENTRY_NOTES = _either("ENTRY_NOTES")
# "i.e.", "c'est-à-dire"; "the term" before a term defined; a note's, source's or step's label.
RESTATEMENT_MARKERS = _either("RESTATEMENT_MARKERS")
THE_TERM = _either("THE_TERM")
ASIDE_LABELS = _either("ASIDE_LABELS")
FORMULA_ARTICLES = _every("FORMULA_ARTICLES")
BIBLIOGRAPHY_HEADINGS = _either("BIBLIOGRAPHY_HEADINGS")
# What a document names its own parts and itself with: headings (regexes searched in a heading),
# and the words of a sentence in which the document speaks of itself or names its aim.
GLOSSARY_HEADINGS = _recognised("GLOSSARY_HEADINGS")
LIST_HEADINGS = _recognised("LIST_HEADINGS")
PURPOSE_HEADINGS = _recognised("PURPOSE_HEADINGS")
SELF_REFERENCES = _recognised("SELF_REFERENCES")
# How a sentence defining a listed term goes on after it ("PA means …", "X si intende …"); the
# preposition before a legend's unit ("… in m3/h", "… em kW"); what opens an "if … then" and the
# "then" after the condition's comma, or with or without one ("Apabila … maka …"). Read in every
# language recognised: these few wordings are read even in a language no other reader reads.
# The label of a numbered definition ("Definition 2 (X).", "Definizione 3 – X:").
DEFINITION_LABELS = _recognised("DEFINITION_LABELS")
TERM_DEFINING_VERBS = _recognised("TERM_DEFINING_VERBS")
UNIT_PREPOSITIONS = _recognised("UNIT_PREPOSITIONS")
IF_THEN_OPENERS = _recognised("IF_THEN_OPENERS")
THEN_WORDS = _recognised("THEN_WORDS")
BARE_THEN_WORDS = _recognised("BARE_THEN_WORDS")
SELF_PREPOSITIONS = _every("SELF_PREPOSITIONS")
SELF_DETERMINERS = _every("SELF_DETERMINERS")
DOCUMENT_NOUNS = _every("DOCUMENT_NOUNS")
POSTPOSED_DEMONSTRATIVES = _every("POSTPOSED_DEMONSTRATIVES")
AIM_DETERMINERS = _every("AIM_DETERMINERS")
AIM_QUALIFIERS = _every("AIM_QUALIFIERS")
AIM_NOUNS = _every("AIM_NOUNS")
AIM_COPULAS = _every("AIM_COPULAS")
BARE_AIM_NOUNS = _every("BARE_AIM_NOUNS")
BARE_AIM_COPULAS = _every("BARE_AIM_COPULAS")

# A subject stating a consequence ("X means that …"), no meaning.
IMPLICATION_VERBS = _either("IMPLICATION_VERBS")
# "if"/"when" after a verb of asking or a noun of time: a question or a relative clause.
WHETHER_CONJUNCTIONS = frozenset(_every("WHETHER_CONJUNCTIONS"))
ASKING_WORDS = _either("ASKING_WORDS")
# What opens a trailing condition whole in itself ("as needed", "where applicable").
SET_PHRASE_OPENERS = _either("SET_PHRASE_OPENERS")
# What makes a modal describe: reporting verbs, pointers at the text or the authors' reasoning,
# a result clause (regexes).
REPORTING_VERBS = _either("REPORTING_VERBS")
POINTERS = _either("POINTERS")
RESULT_CLAUSES = _either("RESULT_CLAUSES")
# Modals read in their own clause: of possibility; the authors' reasoning; the future after the
# first person; mechanics in a result clause.
POSSIBILITY_MODALS = _either("POSSIBILITY_MODALS")
REASONING_MODALS = frozenset(_every("REASONING_MODALS"))
FUTURE_MODALS = frozenset(_every("FUTURE_MODALS"))
FIRST_PERSON = _either("FIRST_PERSON")
MECHANICS_MODALS = frozenset(_every("MECHANICS_MODALS"))
# Heads of a noun phrase that names no term ("A typical example is …").
GENERIC_HEADS = _every("GENERIC_HEADS")
# Subjects that name no term beside pronouns and the document's parts; what after a subject says
# nothing about what it is.
NON_TERM_SUBJECTS = _every("NON_TERM_SUBJECTS")
NOT_DEFINING_WORDS = _either("NOT_DEFINING_WORDS")
# A term | description table's headers: its meaning column's; a first column of abbreviations,
# symbols or units.
MEANING_COLUMN_HEADINGS = _either("MEANING_COLUMN_HEADINGS")
NOT_TERM_COLUMN_HEADINGS = _either("NOT_TERM_COLUMN_HEADINGS")
# What a definition may open with although a function word; what opens a sub-section's prose.
DEFINITION_DETERMINERS = _every("DEFINITION_DETERMINERS")
PROSE_OPENERS = _every("PROSE_OPENERS")
# A step of the document's own worked example ("shown in Example 3").
WORKED_EXAMPLES = _either("WORKED_EXAMPLES")

_WORDS_OF = {language.CODE: frozenset(language.FUNCTION_WORDS) for language in LANGUAGES}
# A word, hyphenated ones whole ("de-ionised" is no French "de").
_TOKEN = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def languages(text: str) -> frozenset[str]:
    """The languages (codes) most of `text`'s function words belong to (more than one on a tie);
    empty when it has none, as a terse item may ("Check seal.")."""
    tokens = [t.casefold() for t in _TOKEN.findall(text)]
    counts = {code: sum(t in words for t in tokens) for code, words in _WORDS_OF.items()}
    best = max(counts.values())
    return frozenset(code for code, n in counts.items() if n == best and best > 0)


def alternation(words: tuple[str, ...]) -> str:
    """A regex alternative of the words, longest first (so "une" is tried before "un")."""
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True))


def whole_word(words: tuple[str, ...]) -> re.Pattern[str]:
    """Matches a token that is one of the words, case aside."""
    return re.compile(rf"^(?:{alternation(words)})$", re.IGNORECASE)


def is_function_word(token: str) -> bool:
    return token.casefold() in FUNCTION_WORDS
