"""An instruction: a statement that opens with a verb telling the reader what to do ("Check the
seal for leaks …", "Vérifier le joint", "Prüfen Sie die Dichtung", "Verificar el sello",
"Verificare il sigillo", "Periksa segel …"), as manuals, procedures and recommendation lists write them.

A language's verb rule applies only to a sentence in that language (the language most of its
function words belong to): English "plan" never reads a French "Plan de …" as an instruction,
nor a French -er ending a German "Partner des …". English needs a lexicon (its base-form verbs
are also nouns: "Check valves are …", so a noun reading is ruled out by what follows); the other
languages mark the form itself (an infinitive or imperative ending before an article, "Sie"
after the verb, an Indonesian -kan verb). A French infinitive is an instruction only in a clause
with no finite verb of its own ("Cadre du projet est …" is a noun), and one in -re (the ending of
many nouns) only in a list item.
"""

from __future__ import annotations

import re

from ...language import english, french, german, indonesian, italian, spanish
from ...language.lexicon import (
    DOCUMENT_PARTS,
    INSTRUCTION_ENDINGS,
    INSTRUCTION_VERBS,
    WORKED_EXAMPLES,
    alternation,
    languages,
)

_I = re.IGNORECASE

# What cannot follow an imperative verb but follows a noun that looks like one ("Test results
# are …", "Use of …", "Change in …", "Record keeping is …").
_NOUN_READING = re.compile(
    rf"^(?:\S+\s+){{0,2}}?(?:{english.FINITE_FORMS})\b"
    rf"|^(?:{english.AFTER_A_NOUN})\b|^['’]s\b",
    _I,
)
_LABEL = re.compile(r"^\S+:")
# "Look at the table": it points at the text, as "See" does.
_POINTING = re.compile(rf"(?:{english.POINTING})\b", _I)
# "Never open …", "Do not open …": the verb after an adverb, or after "do" and its negation.
_VERB_AFTER = re.compile(r"[a-z]")
_VERB_AFTER_NEGATION = re.compile(rf"(?:{alternation(english.NEGATIONS)})\s+[a-z]")
_NUMBERED = re.compile(r"^(?:\d|[IVXivx]+\b|[A-Z]\b)")
# "Run the statement shown in Example 3": a step of the document's worked example, narrated for
# the reader to follow along, not a rule of the domain.
_WORKED_EXAMPLE = re.compile(rf"\b(?:{WORKED_EXAMPLES})\s+[\dA-Z]", _I)


def narrates_an_example(text: str) -> bool:
    """Whether `text` is a step of the document's own worked example ("Run the statements that are
    shown in Example 3-10.")."""
    return bool(_WORKED_EXAMPLE.search(text))


_OBJECT = re.compile(r"[\"'“‘«(\[]*[^\W_]")
_FRENCH = re.compile(
    rf"^(?:{french.NEGATED_INFINITIVE})?[A-ZÀ-Ý][a-zà-ÿ]+(?:{INSTRUCTION_ENDINGS['fr']})"
    rf"\s+(?:{french.INSTRUCTION_OBJECTS})(?=\s|\w)"
)
# A finite verb of the clause makes the first word a noun. Read up to the first subordinator
# ("Vérifier qu'il n'y a pas de fuite": the finite verb is the subordinate clause's).
_FRENCH_FINITE = re.compile(rf"\b(?:{french.FINITE_FORMS})(?![\w'’])", _I)
_FRENCH_SUBORDINATOR = re.compile(french.SUBORDINATE_CLAUSE, _I)
_SPANISH = re.compile(rf"^[A-ZÁÉÍÓÚ][a-záéíóúñ]+(?:{INSTRUCTION_ENDINGS['es']})\s+(?:{spanish.INSTRUCTION_OBJECTS})\s")
_ITALIAN = re.compile(
    rf"^[A-ZÀ-Ý][a-zà-ÿ]+(?:{INSTRUCTION_ENDINGS['it']})\s+(?:{italian.INSTRUCTION_OBJECTS})(?=\s|\w)"
)
_GERMAN = re.compile(rf"^[A-ZÄÖÜ][a-zäöüß]+(?:{INSTRUCTION_ENDINGS['de']})\s+(?:{german.POLITE_IMPERATIVE})\b")
# A German instruction item ends with its infinitive ("Dichtung auf Lecks prüfen."); German
# capitalises nouns, so a lower-case -en word last is a verb. Only in a German sentence.
_GERMAN_INFINITIVE_LAST = re.compile(rf"\s[a-zäöüß]+(?:{INSTRUCTION_ENDINGS['de']})[.!]?$")
# "Pastikan", "Gunakan": a -kan verb of six letters or more ("Akan", "Bukan" are no verbs).
_INDONESIAN_KAN = re.compile(rf"^[A-Z][a-z]{{2,}}(?:{indonesian.IMPERATIVE_SUFFIX})$")
_INDONESIAN_NOT_VERBS = re.compile(rf"^(?:{indonesian.NOT_IMPERATIVES})$")
_WORD = re.compile(r"[^\W\d_][\w'’-]*")


def imperative_at(text: str, start: int, *, item: bool = False) -> bool:
    """Whether `text` states an instruction from `start` on (after any list marker, connective or
    condition). `item`: the text is a list item, where German writes its infinitive last."""
    head = text[start:]
    first = _WORD.match(head)
    if not first:
        return False
    word = first.group(0)
    rest = head[first.end() :].lstrip()
    lowered = word.casefold()
    language = languages(head)

    def written_in(code: str) -> bool:
        return code in language or not language

    if written_in("en") and lowered in english.INSTRUCTION_ADVERBS:
        negated = lowered in english.NEGATED_AUXILIARIES
        return bool((_VERB_AFTER_NEGATION if negated else _VERB_AFTER).match(rest))
    # Not "RETURN CASE": a line of code or a label in capitals.
    if (
        written_in("en")
        and lowered in INSTRUCTION_VERBS["en"]
        and (start > 0 or word[0].isupper())
        and not word[1:].isupper()
    ):
        # An object follows ("Document.save", "Return type: bool" are names and labels).
        if _POINTING.match(head) or narrates_an_example(rest):
            return False
        if lowered in DOCUMENT_PARTS and _NUMBERED.match(rest):
            return False  # "Figure 3 shows …": a caption or a reference, not "Figure the tax …"
        return bool(_OBJECT.match(rest)) and not _NOUN_READING.match(rest) and not _LABEL.match(rest)
    capitalised = head[:1].upper() + head[1:]
    if "fr" in language and _FRENCH.match(capitalised) and lowered not in french.NOT_INFINITIVES:
        clause = _FRENCH_SUBORDINATOR.split(rest, maxsplit=1)[0]
        # -re is as often a noun's ending ("Lettre du …", "Centre des …"): outside a list, only -er, -ir.
        return not _FRENCH_FINITE.search(clause) and (item or not lowered.endswith("re"))
    if (
        "es" in language
        and _SPANISH.match(capitalised)
        or "it" in language
        and _ITALIAN.match(capitalised)
        or "de" in language
        and _GERMAN.match(head)
    ):
        return True
    if written_in("id") and (
        lowered in INSTRUCTION_VERBS["id"] or _INDONESIAN_KAN.match(word) and not _INDONESIAN_NOT_VERBS.match(word)
    ):
        return bool(rest) and rest[0].islower()
    return item and "de" in language and bool(_GERMAN_INFINITIVE_LAST.search(head.rstrip()))
