"""The wording of a rule, in the languages the readers know (English, French, German, Spanish,
Italian, Indonesian): what makes a sentence say what a reader must, should or may do (a modal, a passive
requirement, recommendation vocabulary, a verb of obligation, a permission: "may be" + the
participle of something done to a thing), how a value is computed or modelled (an assumption, a
term neglected), and what makes a modal sentence a description instead (reported speech, the
authors' own reasoning, mechanics, a "may" of possibility).

The words and wording are the lexicon's (language/: RULE_WORDING, CALCULATION_WORDING, …).
Every function reads a statement's own characters and returns offsets into it, or a verdict;
none changes a text. Imperatives are in imperatives.py, condition clauses in conditions.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from ...document.text import open_ended
from ...language.lexicon import (
    ABSOLUTE_OUTCOMES,
    AUTHORS,
    CALCULATION_WORDING,
    CALCULATION_WORDS,
    FIRST_PERSON,
    FUTURE_MODALS,
    MECHANICS_MODALS,
    OPEN_MODALS,
    OUTCOME_VERBS,
    POINTERS,
    POSSIBILITY_MODALS,
    REASONING_MODALS,
    REPORTING_VERBS,
    RESULT_CLAUSES,
    RULE_NOUNS,
    RULE_WORDING,
    SUBORDINATORS,
    alternation,
)

Strength = Literal["decided", "open"]


@dataclass(frozen=True)
class Cue:
    """Where a statement's normative wording stands, and whether it settles the statement as a
    rule ("decided") or only makes it one a model should be asked about ("open")."""

    start: int
    end: int
    strength: Strength


_I = re.IGNORECASE


# Obligations, prohibitions, recommendations and permissions that settle a sentence as a rule.
_DECIDED = re.compile("|".join(RULE_WORDING), _I)
# Wording that may state a rule or a fact: a capability, a forecast, an option (can, may, could,
# devrait, peut, kann, puede, dapat). A model decides; code alone does not emit these.
_OPEN = re.compile(rf"\b(?:{OPEN_MODALS})\b", _I)

# How a value is computed, sourced, rounded, modelled or expressed in a unit.
_CALCULATION = re.compile("|".join(CALCULATION_WORDING), _I)
_CALCULATION_WORDS = re.compile(rf"\b(?:{CALCULATION_WORDS})\b", _I)


# Reported speech and related work: a modal there describes what others found or advised.
_CITATION = re.compile(r"\bet\s+al\b|\[\d[\d,\s–-]*\]|\([A-Z][^()]{0,60}\d{4}[a-z]?\)")
_REPORTING = re.compile(rf"\b(?:{REPORTING_VERBS})\b", _I)
# A modal that points the reader at something ("It should be noted that") or that the authors
# use for their own reasoning or expectation ("the two values should then be close").
_POINTER = re.compile(POINTERS, _I)
_AUTHORS = re.compile(rf"\b(?:{alternation(AUTHORS)})\b", _I)
# "I shall", "we shall return to this below": the future, not an obligation.
_FUTURE_SHALL = re.compile(rf"\b(?:{FIRST_PERSON})\s+$", _I)
# "the gap is so narrow that the film must bend": a modal in a result clause is mechanics.
_RESULT_CLAUSE = re.compile(RESULT_CLAUSES, _I)
# A subordinator opening the modal's own clause (after the last comma, semicolon or colon).
_IF_CLAUSE = re.compile(rf"\b(?:{SUBORDINATORS})\b", _I)
_CLAUSE_BREAK = re.compile(r"[,;:]")
# "a permit that may be required": a possibility, not a requirement.
_POSSIBLY = re.compile(rf"\b(?:{POSSIBILITY_MODALS})\s+(?:not\s+)?$", _I)
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
    if word in REASONING_MODALS and _AUTHORS.search(head[-60:]):
        return True
    if word in FUTURE_MODALS and _FUTURE_SHALL.search(head):
        return True
    if _IF_CLAUSE.search(clause) or _POSSIBLY.search(head):
        return True  # "… if homogeneity is required", "reasons why it should be": supposed, not required
    if word in MECHANICS_MODALS and not _PASSIVE_AFTER.match(text, cue.end()) and _RESULT_CLAUSE.search(head):
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
    # "The load was computed as:", "La portata si calcola con" (its formula on the next line)
    # introduces a formula, which the formula reader reads.
    calculation = None if reported or _introduces_a_formula(text) else _CALCULATION.search(text)
    if calculation:
        return Cue(calculation.start(), calculation.end(), "decided")
    weak = first or _OPEN.search(text)
    return Cue(weak.start(), weak.end(), "open") if weak else None


def _introduces_a_formula(text: str) -> bool:
    """A lead-in that stops on a colon or on a function word, its formula set below it."""
    return text.rstrip().endswith(":") or open_ended(text)


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


_ABSOLUTE_OUTCOME = re.compile(ABSOLUTE_OUTCOMES, _I)


def states_an_absolute_outcome(text: str, start: int) -> bool:
    """Whether the clause from `start` says what a value always or never comes to."""
    return bool(_ABSOLUTE_OUTCOME.search(text, start))


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
