"""The wording of a rule, in the languages the readers know (English, French, German, Spanish,
Indonesian): what makes a sentence say what a reader must, should or may do (a modal, a passive
requirement, recommendation vocabulary, a verb of obligation, a permission: "may be" + the
participle of something done to a thing), how a value is computed or modelled (an assumption, a
term neglected), and what makes a modal sentence a description instead (reported speech, the
authors' own reasoning, mechanics, a "may" of possibility).

Every function reads a statement's own characters and returns offsets into it, or a verdict;
none changes a text. Imperatives are in imperatives.py, condition clauses in conditions.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from ...language.lexicon import AUTHORS, OPEN_MODALS, OUTCOME_VERBS, RULE_NOUNS, SUBORDINATORS, alternation

Strength = Literal["decided", "open"]


@dataclass(frozen=True)
class Cue:
    """Where a statement's normative wording stands, and whether it settles the statement as a
    rule ("decided") or only makes it one a model should be asked about ("open")."""

    start: int
    end: int
    strength: Strength


_I = re.IGNORECASE
# What one expects, fears or sees: "is to be expected" states no duty.
_EPISTEMIC = r"expected|anticipated|hoped|feared|seen|found|noted|regretted|welcomed|wondered|doubted|believed"
# German adjectives of ease and difficulty that take "zu" + infinitive ("ist leicht zu bedienen").
_GERMAN_EASE = r"(?:einfach|leicht|schwer|schwierig|kompliziert|mühsam|bequem|gut|schlecht|möglich|unmöglich|kaum)"
_ADVERB = r"(?:\w+ly\s+|\w+ment\s+|\w+mente\s+)?"
# "may be" + the participle of something done to a thing is a permission ("The filter may be
# replaced by hand"); a participle of knowing, causing, relating, needing, harming or changing
# makes it a possibility ("may be caused by", "may be damaged", "may be viewed as").
_NOT_DONE_BY_THE_READER = (
    r"caused|explained|attributed|related|associated|linked|correlated|expected|anticipated|seen|found|noted"
    r"|known|identified|regarded|considered|viewed|deemed|thought|believed|described|called|termed|compared"
    r"|needed|required|necessitated|missed|exaggerated|understated|overestimated|underestimated|biased"
    r"|confounded|affected|influenced|driven|determined|damaged|broken|lost|exposed|infected|contaminated"
    r"|impaired|injured|harmed|destroyed|corrupted|compromised|delayed|increased|decreased|reduced|elevated"
    r"|lowered|raised|enhanced|improved|worsened|altered|changed|limited|restricted|involved|included"
    r"|obtained|achieved|reached|observed|detected|measured|estimated|overlooked|tempted"
)
# Irregular participles of handling (the -ed ones are read by their ending).
_IRREGULAR_PARTICIPLES = (
    r"done|made|kept|held|set|put|cut|run|left|sent|laid|fed|hung|shut|split|spread|spun|wound|bent|bound|stuck"
    r"|taken|given|shown|written|rewritten|chosen|worn|sewn|drawn|thrown|withdrawn|overridden|undertaken"
)
_PERMISSION = (
    rf"(?<!\bwhich\s)(?<!\bthat\s)(?<!\bwho\s)\bmay\s+(?:also\s+|then\s+)?be\s+{_ADVERB}"
    rf"(?!(?:{_NOT_DONE_BY_THE_READER})\b)(?:\w{{2,}}ed|{_IRREGULAR_PARTICIPLES})\b"
)
# French "peut être" + participle, German "darf … werden": the same permission, the same exclusions.
_FRENCH_NOT_DONE = (
    r"dû|due?s?|vue?s?|perçue?s?|connue?s?|réduite?s?|compromise?s?|(?:caus|expliqu|attribu|li|associ|corrél"
    r"|attend|trouv|constat|observ|consid[ée]r|regard|estim|jug|affect|influenc|endommag|perd|expos|infect"
    r"|contamin|alt[ée]r|modifi|limit|retard|augment|diminu|nécessit|requ|exig)\w*"
)
_FRENCH_PERMISSION = (
    r"(?<!\bqui\s)\bpeu(?:t|vent)\s+(?:également\s+|aussi\s+)?être\s+"
    rf"(?!(?:{_FRENCH_NOT_DONE}|celui|ceci|ici|parmi|ainsi|lui)(?![\w'’]))"
    r"(?:[a-zà-ÿ]{2,}(?:ée?s?|ie?s?|ue?s?)|[a-zà-ÿ]*(?:mi|pri|fai|ouver|offer|cri)(?:t|s)e?s?)(?![\w'’])"
)
_GERMAN_PERMISSION = (
    r"\b(?:darf|dürfen)\b(?!\s+(?:nicht|kein))[^.;:,]{0,80}?\s(?!(?:erwartet|vermutet|bezweifelt)\b)"
    r"[a-zäöüß]+(?:t|en)\s+werden\b"
)
# "may be considered in/for/when …": a guideline's conditional recommendation; "may be considered
# preliminary" (a complement) is a judgement.
_MAY_BE_CONSIDERED = (
    r"(?<!\bwhich\s)(?<!\bthat\s)(?<!\bwho\s)\bmay\s+(?:also\s+)?be\s+considered"
    r"(?=\s+(?:in|for|when|if|where|whenever|only|after|before|during|as\s+an?)\b|\s*[.;:,])"
)
# "Operators may consider …": an option offered; not the authors' "we may consider" nor a judgement
# "may consider X to be Y".
_MAY_CONSIDER = r"(?<!\bwe\s)(?<!\bone\s)(?<!\bI\s)\bmay\s+(?:also\s+)?consider\b(?!(?:\s+[^\s.;:]+){1,5}?\s+to\s+be\b)"

_APOSTROPHE = r"['’]"

# Obligations, prohibitions, recommendations and permissions that settle a sentence as a rule.
_DECIDED = re.compile(
    "|".join(
        (
            # English
            r"\bshall\b",
            r"\bmust\b",
            r"\bshould\b",
            r"\bought\s+to\b",
            rf"\b(?:is|are|be)\s+{_ADVERB}(?:not\s+)?{_ADVERB}(?:required|mandatory|obligatory|prohibited|forbidden"
            r"|permitted|allowed|recommended|advised|encouraged|discouraged)\b",
            rf"(?<![^\W\d_])(?:we|i)\s+{_ADVERB}recommend\b",  # "2We recommend": a footnote mark glued on
            r"\brecommends?\s+that\b",
            r"\bneeds?\s+to\b",
            r"\b(?:has|have)\s+to\s+be\b",
            rf"\bit\s+is\s+{_ADVERB}(?:important|essential|necessary|critical|crucial|vital|imperative|advisable"
            r"|inadvisable|preferable|mandatory|unreasonable|good\s+practice|best\s+practice)\b"
            r"(?:,[^,.]{1,30},)?\s+(?:to|that)\b",
            # "is to be replaced"; not "is to be expected": an expectation, not a duty.
            rf"\b(?:is|are)\s+(?:not\s+)?to\s+be\b(?!\s+(?:{_EPISTEMIC})\b)",
            _PERMISSION,
            _MAY_BE_CONSIDERED,
            _MAY_CONSIDER,
            r"\b(?:make|be)\s+sure\b",
            # French
            r"\bdoi(?:t|vent|vra|vront)\b",
            r"\bil\s+faut\b",
            rf"\bil\s+convient\s+d(?:e\b|{_APOSTROPHE})",
            rf"\bil\s+(?:est|sera)\s+{_ADVERB}(?:recommandé|conseillé|nécessaire|indispensable|important|essentiel"
            rf"|obligatoire|interdit|impératif|préférable|déconseillé)\s+(?:de\b|d{_APOSTROPHE}|que\b)",
            rf"\b(?:est|sont)\s+{_ADVERB}(?:obligatoires?|interdite?s?|recommandée?s?|exigée?s?|requise?s?"
            r"|prescrite?s?|proscrite?s?|autorisée?s?|déconseillée?s?)\b",
            r"\b(?:est|sont)\s+à\s+\w+(?:er|ir|re)\b",
            r"\bnous\s+recommandons\b",
            r"\b(?:est|sont)\s+tenue?s?\s+de\b",
            _FRENCH_PERMISSION,
            # "La loi impose aux exploitants de déclarer …", "oblige les communes à publier …": the
            # verbs of obligation with their object and infinitive (not "L'objectif est de …").
            rf"\bimpos(?:e|ent|ait|aient|era|eront)\s+(?:à|aux)\b[^.;:]{{0,120}}?\bd(?:e\s+|{_APOSTROPHE})\w+(?:er|ir|re)\b",
            r"\boblig(?:e|ent|eait|eaient|era|eront)\s+(?:les?|la|l['’]|aux?)\b[^.;:]{0,120}?\bà\s+\w+(?:er|ir|re)\b",
            # German
            r"\b(?:muss|müssen|musst|muß|soll|sollen|sollte|sollten)\b",
            r"\b(?:darf|dürfen)\s+(?:nicht|kein\w*)\b",
            _GERMAN_PERMISSION,
            # "Das Ventil ist sofort zu schließen": the modal passive. Not "ist es, … zu" (an
            # infinitive clause after a comma) nor "ist einfach zu verwenden" (how easy a thing is).
            rf"\b(?:ist|sind)\b(?!\s+es\b)(?:\s+(?!{_GERMAN_EASE}\s+zu\b)[^\s,]+){{0,6}}?\s+zu\s+\w+(?:en|ern|eln)\b",
            r"\b(?:ist|sind)\s+(?:\w+\s+)?(?:erforderlich|vorgeschrieben|verboten|unzulässig|zulässig|notwendig"
            r"|verpflichtend|untersagt)\b",
            r"\b(?:wird|werden)\s+(?:\w+\s+){0,3}?empfohlen\b|\bempfehlen\s+wir\b|\bwir\s+empfehlen\b"
            r"|\bes\s+empfiehlt\s+sich\b",
            # Spanish
            r"\b(?:debe|deben|deberá|deberán|debería|deberían|hay\s+que|tiene\s+que|tienen\s+que)\b",
            r"\bse\s+(?:recomienda|recomiendan|aconseja|aconsejan|requiere|requieren|exige|exigen|prohíbe|prohíben)\b",
            rf"\b(?:es|son|está|están|queda|quedan)\s+{_ADVERB}(?:obligatori[oa]s?|prohibid[oa]s?|necesari[oa]"
            r"|recomendable|aconsejable|imprescindible|permitid[oa]s?)\b",
            r"\brecomendamos\b",
            # Indonesian
            r"\b(?:harus|wajib|diwajibkan|diharuskan|dianjurkan|disarankan|direkomendasikan|sebaiknya|hendaknya"
            r"|perlu|dilarang|diperbolehkan|diizinkan)\b",
            r"\btidak\s+(?:boleh|diperbolehkan|diizinkan)\b",
            r"\bkami\s+(?:merekomendasikan|menyarankan|menganjurkan)\b",
        )
    ),
    _I,
)
# Wording that may state a rule or a fact: a capability, a forecast, an option (can, may, could,
# devrait, peut, kann, puede, dapat). A model decides; code alone does not emit these.
_OPEN = re.compile(rf"\b(?:{OPEN_MODALS})\b", _I)

# How a value is computed, sourced, rounded, modelled or expressed in a unit.
_CALCULATED = (
    r"calculated|computed|derived|estimated|evaluated|averaged|summed|rounded(?:\s+(?:up|down|off))?|truncated"
    r"|expressed|measured|converted|normali[sz]ed|weighted|approximated|modell?ed|assumed|neglected|ignored"
    r"|discarded|sourced"
)
_CALCULATION = re.compile(
    "|".join(
        (
            rf"\b(?:is|are|shall\s+be|must\s+be|should\s+be|to\s+be)\s+(?:not\s+)?{_ADVERB}(?:then\s+|first\s+)?"
            rf"(?:{_CALCULATED})\s+(?:as|by|from|using|with|in|to|on|over|per|according|via|through|into|if"
            r"|when)\b",  # not "that": "it is estimated that …" reports a finding
            r"\b(?:is|are)\s+(?:not\s+)?taken\s+(?:as|from|to\s+be|into\s+account)\b",
            # A modelling convention of a method section: an assumption the calculation rests on, a
            # term it leaves out. Not an assumption about the reader ("It is assumed that you …").
            r"\b(?:it\s+is\s+assumed|we\s+assume)\s+that\b(?!\s+(?:you|the\s+readers?|readers)\b)",
            r"\b(?:can|may)\s+(?:safely\s+)?be\s+(?:neglected|ignored|disregarded)\b",
            r"\b(?:is|are)\s+determined\s+(?:from|as|using|according\s+to)\b",
            # French
            rf"\b(?:est|sont)\s+{_ADVERB}(?:calculée?s?|exprimée?s?|arrondie?s?|obtenue?s?|estimée?s?|déterminée?s?"
            r"|mesurée?s?|modélisée?s?|négligée?s?)\s+(?:à\s+partir|en|par|selon|comme|sur\s+la\s+base|avec"
            r"|en\s+fonction)\b",
            r"\bse\s+calculent?\b|\bon\s+calcule\b|\b(?:est|sont)\s+pris(?:e|es)?\s+en\s+compte\b",
            # German
            r"\b(?:wird|werden)\b(?:\s+\S+){0,6}?\s+(?:berechnet|ermittelt|gerundet|angegeben|bestimmt|gemessen"
            r"|abgeschätzt|vernachlässigt)\b",
            r"\bberechnet\s+sich\b|\bergibt\s+sich\s+aus\b",
            # Spanish
            r"\bse\s+(?:calcula|calculan|expresa|expresan|redondea|redondean|determina|determinan|obtiene|obtienen"
            r"|mide|miden|estima|estiman)\b",
            # Indonesian
            r"\b(?:dihitung|dinyatakan\s+dalam|dibulatkan|ditentukan|diukur|dijumlahkan|diperoleh\s+dari"
            r"|diambil\s+dari)\b",
        )
    ),
    _I,
)
_CALCULATION_WORDS = re.compile(
    r"\b(?:calculated|computed|formula|dihitung|perhitungan|rumus|berechnet|calculée?s?|calculad[oa]s?|rounded|arrondie?s?"
    r"|gerundet)\b",
    _I,
)

# Reported speech and related work: a modal there describes what others found or advised.
_CITATION = re.compile(r"\bet\s+al\b|\[\d[\d,\s–-]*\]|\([A-Z][^()]{0,60}\d{4}[a-z]?\)")
_REPORTING = re.compile(
    r"\b(?:found|showed|shown|reported|suggested|suggests|argued|argues|proposed|proposes|concluded|concludes"
    r"|demonstrated|demonstrates|observed|noted|stated|claimed|claims|indicated?|indicates|believe|believes"
    r"|according\s+to)\b",
    _I,
)
# A modal that points the reader at something ("It should be noted that") or that the authors
# use for their own reasoning or expectation ("the two values should then be close").
_POINTER = re.compile(
    r"\b(?:should|must)\s+(?:also\s+)?be\s+(?:noted|mentioned|remembered|emphasi[sz]ed|stressed|pointed\s+out"
    r"|recalled|kept\s+in\s+mind|borne\s+in\s+mind|acknowledged|recogni[sz]ed|understood|observed)\b"
    r"|\b(?:should|must)\s+(?:not\s+)?(?:[\w,]+\s+){0,3}?have\s+(?:been|become|\w+ed|\w+en)\b"
    r"|\bshould\s+(?:then|therefore|thus|normally|probably|ideally|generally)\b"
    r"|\bshould\s+(?:also\s+)?be\s+(?:able|possible|similar|comparable|sufficient|expected|higher|lower|larger"
    r"|smaller|greater|close|more|less|\w+est)\b",
    _I,
)
_AUTHORS = re.compile(rf"\b(?:{alternation(AUTHORS)})\b", _I)
# "I shall", "we shall return to this below": the future, not an obligation.
_FUTURE_SHALL = re.compile(r"\b(?:I|we)\s+$", _I)
# "the gap is so narrow that the film must bend": a modal in a result clause is mechanics.
_RESULT_CLAUSE = re.compile(r"\b(?:so|such)\b[^.;]{0,160}?\bthat\b", _I)
# A subordinator opening the modal's own clause (after the last comma, semicolon or colon).
_IF_CLAUSE = re.compile(rf"\b(?:{SUBORDINATORS})\b", _I)
_CLAUSE_BREAK = re.compile(r"[,;:]")
# "a permit that may be required": a possibility, not a requirement.
_POSSIBLY = re.compile(r"\b(?:may|might|could|would)\s+(?:not\s+)?$", _I)
_PASSIVE_AFTER = re.compile(r"\s+(?:not\s+)?(?:\w+ly\s+)?be\b", _I)


# How far before a modal its clause's own words are read: a bounded window keeps a long statement
# with many modals linear.
_WINDOW = 240


def _descriptive(text: str, cue: re.Match[str]) -> bool:
    """Whether a modal in `text` (not reported speech) describes rather than prescribes."""
    head = text[max(0, cue.start() - _WINDOW) : cue.start()]
    clause = head[max((m.end() for m in _CLAUSE_BREAK.finditer(head)), default=0) :]
    word = cue.group(0).casefold()
    if _POINTER.match(text, cue.start()) or text.rstrip().endswith("?"):
        return True
    if word in ("should", "must") and _AUTHORS.search(head[-60:]):
        return True
    if word == "shall" and _FUTURE_SHALL.search(head):
        return True
    if _IF_CLAUSE.search(clause) or _POSSIBLY.search(head):
        return True  # "… if homogeneity is required", "reasons why it should be": supposed, not required
    if word == "must" and not _PASSIVE_AFTER.match(text, cue.end()) and _RESULT_CLAUSE.search(head):
        return True
    return False


def _reported(text: str) -> bool:
    return bool(_CITATION.search(text) and _REPORTING.search(text))


@lru_cache(maxsize=4096)
def normative_cue(text: str) -> Cue | None:
    """The first wording in `text` that makes it a rule: decided when it settles it, open when
    only a model could tell (a capability or option, a modal in a description). Cached: a
    statement and a lead-in shared by its items are read once."""
    reported = _reported(text)
    first = None
    for cue in _DECIDED.finditer(text):
        if not reported and not _descriptive(text, cue):
            return Cue(cue.start(), cue.end(), "decided")
        first = first or cue
    calculation = None if reported else _CALCULATION.search(text)
    if calculation:
        return Cue(calculation.start(), calculation.end(), "decided")
    weak = first or _OPEN.search(text)
    return Cue(weak.start(), weak.end(), "open") if weak else None


def decides_a_rule(text: str) -> bool:
    """Whether `text`'s own wording settles it as a rule."""
    cue = normative_cue(text)
    return bool(cue and cue.strength == "decided")


# What a value comes to under a condition: "If the queue is empty, the call returns None",
# "For small angles, the sine reduces to the angle". Without the condition it is a description
# ("The call returns a list").
_OUTCOME = re.compile(rf"\b(?:{OUTCOME_VERBS})\b", _I)


def states_an_outcome(text: str, start: int) -> bool:
    """Whether the clause from `start` says what a value comes to."""
    return bool(_OUTCOME.search(text, start))


def is_calculation(text: str) -> bool:
    """How a value is computed, sourced or expressed, rather than how to act or read one."""
    return bool(_CALCULATION.search(text) or _CALCULATION_WORDS.search(text))


# A lead-in that announces rules, requirements or steps: the items it introduces are rules even
# when each is a plain statement ("the steps to follow are these: – …").
_RULES_LEAD_IN = re.compile(rf"\b(?:{RULE_NOUNS})\b", _I)


# "(conditional recommendation)": an aside, not what the list holds.
_PARENTHESIS = re.compile(r"\([^()]*\)")


def announces_rules(lead_in: str) -> bool:
    """Whether the clause that opens the list names rules ("the steps are as follows:"); a lead-in
    that states a rule itself ("Guards should be fitted, on these grounds:") makes its
    fragments part of it (statements.py), not each sentence under it a rule."""
    said = _PARENTHESIS.sub("", lead_in)
    clause = said[max(said.rfind(mark) for mark in ",;.!?") + 1 :]
    return bool(_RULES_LEAD_IN.search(clause))
