"""The words a definition is made of, in the corpus's languages: the verbs that say "this is what
X means", the copulas and articles of "An X is a …", and the subjects that never name a term.

Only closed word classes live here (articles, copulas, pronouns, defining verbs); what a term is
comes from the layout around it, never from a list of terms.
"""

from __future__ import annotations

import re

# Verbs that by themselves say a sentence defines its subject ("X refers to …"). The definition
# starts after them.
DEFINING_VERB = (
    r"(?:is|are) defined as|(?:is|are) understood as|refers? to|denotes|denote|means(?! of\b| that\b)|stands for"
    r"|(?:est|sont) d[ée]fini(?:e|s|es)? comme|d[ée]signe(?:nt)?|signifie(?:nt)?"
    r"|bezeichne[tn]|(?:ist|sind|wird|werden) definiert als|bedeute[tn]"
    r"|se define(?:n)? como|se refiere(?:n)? a|designa(?:n)?"
    r"|didefinisikan sebagai|diartikan sebagai"
)
# The copula of "An X is a …" in each language (Indonesian has no article, so its copulas are
# only read where the layout says the subject is a term: a section's or a footnote's opening).
COPULA = r"is|are|est|sont|ist|sind|es|son|adalah|merupakan|ialah|yaitu"
# Articles and determiners a classifying noun phrase opens with; "of" for "is of one piece".
DETERMINER = (
    r"an?|the|one|any|each|of|un|une|le|la|les|l['’]|des|du|de|ein|eine|einer|eines|der|die|das|el|los|las|uno|una"
    r"|suatu|sebuah|seorang|salah satu"
)
# Leading articles of a subject, dropped from the term ("The elastic stop nut" → "elastic stop nut").
_ARTICLE = re.compile(
    r"^(?:the|an?|le|la|les|l['’]|un|une|der|die|das|ein|eine|el|los|las|uno|una)\s+|^l['’]", re.IGNORECASE
)
# A subject that is a pronoun, a demonstrative or a pointer at the document's own parts.
_NOT_A_TERM = re.compile(
    r"^(?:it|this|that|these|those|there|here|which|what|who|we|they|he|she|one|each|all|such|both|our|its|their"
    r"|il|elle|ils|elles|cela|ceci|ce|cette|ces|on|nous|es|er|sie|dies|diese|dieser|dieses|das|wir|man"
    r"|esto|esta|este|estos|ello|ella|ellos|nosotros|ini|itu|hal|kami|kita|mereka|ia|dia"
    r"|figure|fig|table|tableau|tabelle|tabla|tabel|gambar|section|chapter|annex|appendix|equation|example|note"
    r"|step|page|paragraph|item|result|results)\b",
    re.IGNORECASE,
)
# What after a subject says nothing about what it is: a modal or auxiliary, or an adverb.
NOT_A_DEFINING_VERB = re.compile(
    r"^(?:can|could|may|might|must|shall|should|will|would|need|needs|has|have|had|was|were|do|does|did|is|are"
    r"|also|often|typically|usually|generally|always|never|still|only|not|require|requires|depend|depends"
    r"|vary|varies|remain|remains|seem|seems|appear|appears|become|becomes|\w+ly"
    r"|doit|doivent|peut|peuvent|sera|seront|était|ont|muss|müssen|kann|können|soll|sollte|sollen|wird|werden"
    r"|hat|haben|war|debe|deben|puede|pueden|tiene|tienen|harus|dapat|bisa|akan|perlu|wajib|boleh|sudah|telah)$",
    re.IGNORECASE,
)
MAX_TERM_WORDS = 6
# A pointer at the document's own parts anywhere in a subject ("A notable feature of Fig. 1").
_POINTER = re.compile(r"\b(?:fig|figure|table|tableau|tabelle|tabla|tabel|gambar|section|equation|eq|chapter)\b", re.I)


def drop_article(subject: str) -> int:
    """How many leading characters of `subject` are an article and its space."""
    m = _ARTICLE.match(subject)
    return m.end() if m else 0


# A finite verb: a phrase holding one is a clause, not a name.
FINITE_VERB = re.compile(
    rf"\b(?:{COPULA}|was|were|has|have|can|may|must|will|should|would|could|doit|peut|muss|kann|soll|wird|debe"
    r"|puede|harus|dapat|akan)\b",
    re.IGNORECASE,
)


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
        and not words[0][:1].isdigit()
    )


def opens_with_a_pointer(sentence: str) -> bool:
    """ "This clause …", "It …", "Note …": a sentence about something already named."""
    return bool(_NOT_A_TERM.match(sentence))


def word_key(text: str) -> list[str]:
    """Casefolded words, a plural's final s dropped: how a subject is matched to a heading."""
    return [w.removesuffix("s") for w in re.findall(r"[^\W_]+(?:[-'’][^\W_]+)*", text.casefold())]


# Words a term never starts with: articles, prepositions, conjunctions, auxiliaries.
FUNCTION_WORD = re.compile(
    r"^(?:the|an?|of|to|in|on|at|for|with|without|within|through|via|between|among|after|before|during|under|over"
    r"|about|by|from|into|and|or|nor|but|not|no|as|is|are|was|were|be|been|does|do|sans|avec|ohne|sin|con|tanpa"
    r"|did|has|have|had|can|may|must|should|will|its|their|our|this|that|these|those|such|any|some|each|every"
    r"|le|la|les|des|du|de|un|une|et|ou|en|par|pour|sur|der|die|das|den|dem|und|oder|von|zu|mit|el|los|las|y|o"
    r"|für|dieses|diese|dieser|des|ces|cet|cette|ce|para|yang|dan|atau|di|ke|dari|untuk|dengan|bagi)$",
    re.IGNORECASE,
)
# Heads of a noun phrase that names no term: "A typical example is …", "One way is …".
_GENERIC_HEAD = re.compile(
    r"(?:example|way|problem|result|reason|question|issue|point|step|advantage|drawback|consequence|solution"
    r"|alternative|option|difference|case|part|thing|feature|aspect|aim|goal|purpose|objective|challenge|limitation"
    r"|benefit|strength|weakness|concern|factor|finding|contribution|task|idea)s?$",
    re.IGNORECASE,
)


def generic(subject: str) -> bool:
    return bool(_GENERIC_HEAD.search(subject))


def holds(whole: list[str], part: list[str]) -> bool:
    """`part` is a run of `whole`'s words."""
    return any(whole[k : k + len(part)] == part for k in range(len(whole) - len(part) + 1))
