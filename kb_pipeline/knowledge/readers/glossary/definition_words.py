"""The words a definition is made of, in the corpus's languages: the verbs that say "this is what
X means", the copulas and articles of "An X is a …", and the subjects that never name a term.

The words themselves (articles, copulas, pronouns, defining verbs) are the lexicon's
(language/); what a term is comes from the layout around it, never from a list of terms.
"""

from __future__ import annotations

import re

from ...language.lexicon import (
    ARTICLES,
    COPULAS,
    DEFINING_VERBS,
    DETERMINERS,
    DOCUMENT_PARTS,
    ELIDED_ARTICLE,
    GENERIC_HEADS,
    MODALS,
    NON_TERM_SUBJECTS,
    NOT_DEFINING_WORDS,
    PRONOUNS,
    alternation,
)

# Verbs that by themselves say a sentence defines its subject ("X refers to …"). The definition
# starts after them.
DEFINING_VERB = DEFINING_VERBS
# The copula of "An X is a …" in each language (Indonesian has no article, so its copulas are
# only read where the layout says the subject is a term: a section's or a footnote's opening).
COPULA = alternation(COPULAS)
# Articles and determiners a classifying noun phrase opens with.
DETERMINER = rf"{alternation(DETERMINERS)}|{ELIDED_ARTICLE}"
# Leading articles of a subject, dropped from the term ("The ball valve" → "ball valve").
_ARTICLE = re.compile(rf"^(?:{alternation(ARTICLES)}|{ELIDED_ARTICLE})\s+|^{ELIDED_ARTICLE}", re.IGNORECASE)
# A subject that is a pronoun, a demonstrative or a pointer at the document's own parts.
_NOT_A_TERM = re.compile(
    rf"^(?:{alternation(PRONOUNS)}|{alternation(NON_TERM_SUBJECTS)}|{alternation(DOCUMENT_PARTS)})\b",
    re.IGNORECASE,
)
# What after a subject says nothing about what it is: a modal or auxiliary, or an adverb.
NOT_A_DEFINING_VERB = re.compile(
    rf"^(?:{alternation(MODALS)}|{NOT_DEFINING_WORDS})$",
    re.IGNORECASE,
)
MAX_TERM_WORDS = 6
# A pointer at the document's own parts anywhere in a subject ("A notable feature of Fig. 1").
_POINTER = re.compile(rf"\b(?:{alternation(DOCUMENT_PARTS)})\b", re.I)


def drop_article(subject: str) -> int:
    """How many leading characters of `subject` are an article and its space."""
    m = _ARTICLE.match(subject)
    return m.end() if m else 0


# A finite verb: a phrase holding one is a clause, not a name.
FINITE_VERB = re.compile(rf"\b(?:{COPULA}|{alternation(MODALS)})\b", re.IGNORECASE)


def can_name_a_term(subject: str) -> bool:
    """A few words, at least one letter, no clause punctuation or verb, not a pronoun or a pointer,
    no capitalised word twice ("Constitutional Feedback Constitutional AI": a run-in label and
    the term after it)."""
    words = subject.split()
    return (
        0 < len(words) <= MAX_TERM_WORDS
        and not FINITE_VERB.search(subject)
        and not re.search(r"[=<>{}#%$@|\\]|\w\.\w|\(\)|\.\s", subject)
        and not _POINTER.search(subject)
        and len({w for w in words if w[:1].isupper()}) == sum(w[:1].isupper() for w in words)
        and any(c.isalpha() for c in subject)
        and not re.search(r"[,;:!?()\[\]“”\"]", subject)
        and not _NOT_A_TERM.match(subject)
        # A number names nothing; a code that starts with one does ("12K-M3", "4WD").
        and not (words[0][:1].isdigit() and not any(c.isupper() for c in words[0]))
    )


def opens_with_a_pointer(sentence: str) -> bool:
    """ "This clause …", "It …", "Note …": a sentence about something already named."""
    return bool(_NOT_A_TERM.match(sentence))


def word_key(text: str) -> list[str]:
    """Casefolded words, a plural's final s dropped: how a subject is matched to a heading."""
    return [w.removesuffix("s") for w in re.findall(r"[^\W_]+(?:[-'’][^\W_]+)*", text.casefold())]


# Heads of a noun phrase that names no term: "A typical example is …", "One way is …".
_GENERIC_HEAD = re.compile(rf"(?:{alternation(GENERIC_HEADS)})s?$", re.IGNORECASE)


def generic(subject: str) -> bool:
    return bool(_GENERIC_HEAD.search(subject))


def holds(whole: list[str], part: list[str]) -> bool:
    """`part` is a run of `whole`'s words."""
    return any(whole[k : k + len(part)] == part for k in range(len(whole) - len(part) + 1))
