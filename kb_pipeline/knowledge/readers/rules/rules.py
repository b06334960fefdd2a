"""The interpretation pack, deterministic part: what a document tells its reader to do, not to
do, or may do (a requirement, recommendation, permission or target), each with its condition,
and how a value is computed, sourced or expressed (rule_type "calculation").

`propose_rules` reads statements (statements.py) and proposes a candidate for each one that a
reader of `RULE_READERS` reads as a rule, the first in their order: its instruction form
(imperatives.py; not a step of the document's own worked example), its wording (normative.py),
its list context, a threshold it states (a criterion) or its condition; the condition clause and
the rest are sliced from it (conditions.py). Where the wording is only possibly a rule (a "can", a "may" not followed
by a participle of handling, a modal in a description, a bare "If …, …"), the candidate is open:
not emitted without a model. `rule_entries` disposes: the span check, then a rule about
the document's own licence or copyright is dropped (copyright wording anywhere; licence,
reproduction or endorsement wording when it names the work itself or stands in the front or
back matter, so "Drivers must hold a valid licence." stays), and a statement the document
repeats word for word is one rule (its first occurrence).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from ....contracts import ParsedDocument
from ...document.text import Span, ends_a_sentence, squash
from ...language.analysis import DocumentAnalysis, document_analysis
from ...language.lexicon import (
    CLASSIFYING_VERBS,
    CONDITIONALS,
    COPYRIGHT,
    EACH_SCOPES,
    LICENSING,
    THE_WORK,
)
from ...model.injection import addresses_a_model
from ...payloads.contracts import RuleEntry, RuleType
from ...payloads.ids import rule_id
from ...payloads.spans import SpanCheck
from ..findings import Quote
from ..glossary.glossary import provenance
from .conditions import (
    clause_start,
    discourse_end,
    explicit_conditional,
    inner_proviso,
    leading_condition,
    normative_condition,
    proviso,
    trailing_condition,
    verb_second_scope,
)
from .imperatives import imperative_at, narrates_an_example
from .normative import (
    Cue,
    announces_rules,
    decides_a_rule,
    is_calculation,
    normative_cue,
    states_an_absolute_outcome,
    states_an_outcome,
)
from .statements import Statement, statements

# What made a statement a rule: a modal or normative phrase, an instruction, an item under a
# lead-in that announces rules, an explicit "If …, then …", or a threshold criterion.
RuleReader = Literal["normative", "imperative", "rule_list", "conditional", "criterion"]

# Wording only a publication's own terms use.
_COPYRIGHT = re.compile(COPYRIGHT, re.IGNORECASE)
# Wording a licence shares with a domain's rules ("a valid licence", "reproductive age").
_LICENSING = re.compile(LICENSING, re.IGNORECASE)
# The work itself named: then licence wording is about the document.
_THE_WORK = re.compile(THE_WORK, re.IGNORECASE)
# Pages at either end of a document where its licence and imprint stand.
_MATTER_PAGES = 2
# Fewer words are a label or a fragment a layout cut ("should be provided."), not a rule.
_MIN_WORDS = 4
# Lines indented far in: a flowchart's or code listing's, where what reads as a sentence may not be one.
_PREFORMATTED = re.compile(r"\n[^\S\n]{6,}")
_END = " \n,;:.!?"
# A bare conditional opens with one of these (not "For …", "At …": those are scopes, and a
# scope without a modal is a description).
_CONDITIONAL_WORD = re.compile(rf"(?:{CONDITIONALS})\b")
# "For each sample, …": a step of a method applied to each member, a rule without a modal.
_EACH = re.compile(rf"(?:{EACH_SCOPES})\b")
# A threshold criterion: a label set to a value compared with a number ("Acidose = pH sanguin
# artériel < 7,38", "Hypertension: systolic pressure ≥ 140 mmHg", a line of its own), or a
# value past a threshold classed as something ("A TA > 16 mmol/L is considered high").
_CRITERION = re.compile(
    r"(?m)^[^\S\n]*[^\W\d_][^\W\d_'’-]*(?:[ \t]+[^\W\d_][^\W\d_'’-]*){0,3}(?:[ \t]*\([^()\n]{1,60}\))?"
    r"[ \t]*[:=][ \t]*[^\W\d_][^\n:=<>≤≥]{0,30}?[ \t]*[<>≤≥][ \t]*\d"
)
_CLASSED = re.compile(rf"[<>≤≥]\s*\d[^.;:]{{0,80}}?\b(?:{CLASSIFYING_VERBS})\b", re.IGNORECASE)
# An aside in brackets that opens in lower case: an instruction there is one to the reader ("(include …)").
_BRACKETED_INSTRUCTION = re.compile(r"\((?=[a-z]+ [a-z])")


@dataclass(frozen=True, eq=False)
class RuleCandidate:
    statement: Quote
    # Where the statement starts in its chunk's text (the rule id's position).
    start: int
    rule_type: RuleType
    reader: RuleReader
    condition: Quote | None = None
    consequence: Quote | None = None
    # False: the wording may or may not state a rule; a model decides, code alone emits nothing.
    decided: bool = True


@dataclass
class _Read:
    """A statement as the rule readers see it: its leading condition, where its main clause
    starts, and what several readers ask of it, found once."""

    statement: Statement
    lead: Span | None
    main: int

    @property
    def text(self) -> str:
        return self.statement.text

    @cached_property
    def cue(self) -> Cue | None:
        return normative_cue(self.text)

    @cached_property
    def trailing(self) -> Span | None:
        return trailing_condition(self.text, self.main)

    @cached_property
    def sentence(self) -> bool:
        """An instruction ends like a sentence or stands in a list: "Export the data as a table"
        alone on its line is a title. A layout may cut one before its stop: a clause after the
        verb ("Use the old tables until you implement") still makes it a sentence."""
        return self.statement.item or ends_a_sentence(self.text) or bool(self.trailing)


# A reader's answer: whether its wording settles the statement as a rule, and where a trailing
# condition may start (after the modal or the instruction's verb, never inside the subject).
_Reading = tuple[bool, int]


def _instruction(s: _Read) -> _Reading | None:
    return (True, s.main) if s.sentence and imperative_at(s.text, s.main, item=s.statement.item) else None


def _settled_wording(s: _Read) -> _Reading | None:
    return (True, s.cue.start) if s.cue and s.cue.strength == "decided" else None


def _item_of_a_rule_list(s: _Read) -> _Reading | None:
    lead_in = s.statement.lead_in
    return (True, s.main) if lead_in and announces_rules(lead_in) and not narrates_an_example(s.text) else None


def _stated_outcome(s: _Read) -> _Reading | None:
    """ "If …, then …", a condition and what follows from it, what a value always comes to."""
    text, main = s.text, s.main
    outcome = states_an_outcome(text, main) and (s.lead or s.trailing)
    return (True, main) if explicit_conditional(text) or outcome or states_an_absolute_outcome(text, main) else None


def _criterion(s: _Read) -> _Reading | None:
    return (True, s.main) if _CRITERION.search(s.text) or _CLASSED.search(s.text) else None


def _each_scope(s: _Read) -> _Reading | None:
    return (True, s.main) if s.lead and _EACH.match(s.text, s.lead.start) else None


def _proviso(s: _Read) -> _Reading | None:
    return (True, s.main) if any(c and proviso(c.of(s.text)) for c in (s.lead, s.trailing)) else None


def _bracketed_instruction(s: _Read) -> _Reading | None:
    """ "Saves a copy (include the path as necessary).": an instruction set in brackets inside a description."""
    inside = _BRACKETED_INSTRUCTION.finditer(s.text, s.main)
    return (True, s.main) if s.sentence and any(imperative_at(s.text, m.end()) for m in inside) else None


def _open_wording(s: _Read) -> _Reading | None:
    return (False, s.cue.start) if s.cue else None


def _bare_conditional(s: _Read) -> _Reading | None:
    return (False, s.main) if s.lead and _CONDITIONAL_WORD.match(s.text, s.lead.start) else None


# The rule readers, in precedence: the first that reads a statement says what makes it a rule.
# Those that settle it come before those that leave it open.
RULE_READERS: tuple[tuple[RuleReader, Callable[[_Read], _Reading | None]], ...] = (
    ("imperative", _instruction),
    ("normative", _settled_wording),
    ("rule_list", _item_of_a_rule_list),
    ("criterion", _criterion),
    ("conditional", _stated_outcome),
    ("conditional", _each_scope),
    ("conditional", _proviso),
    ("imperative", _bracketed_instruction),
    ("normative", _open_wording),
    ("conditional", _bare_conditional),
)


def _candidate(statement: Statement, analysis: DocumentAnalysis) -> RuleCandidate | None:
    text = statement.text
    if addresses_a_model(text) or len(text.split()) < _MIN_WORDS:
        return None
    lead = leading_condition(text)
    main = clause_start(text, lead.end) if lead else discourse_end(text)
    seen = _Read(statement, lead, main)
    reading = next(((reader, r) for reader, read in RULE_READERS if (r := read(seen))), None)
    if reading is None:
        return None
    reader, (decided, after) = reading
    outcome = bool(lead) and states_an_outcome(text, main) or states_an_absolute_outcome(text, main)
    if lead and lead.end > after:
        lead = None  # the modal is inside the opening clause: it is no condition of it
    trail = None if lead else trailing_condition(text, after)
    condition = (
        lead
        or trail
        or verb_second_scope(text, statement.chunk, statement.span.start, analysis)
        or inner_proviso(text, after)
    )
    if not decided and condition and (normative_condition(condition.of(text)) or proviso(condition.of(text))):
        # "If necessary, a spare pump can be installed", "Provided the thread is intact, the nut
        # can be reused": an option given to the reader, or one granted under a proviso.
        decided = True
    if _PREFORMATTED.search(text):
        decided = False
    if lead:
        consequence = Span(clause_start(text, lead.end), len(text.rstrip(_END)))
    elif trail:
        consequence = Span(0, len(text[: trail.start].rstrip(_END)))
    else:
        consequence = Span(0, len(text.rstrip(_END)))
    chunk = statement.chunk
    return RuleCandidate(
        statement=Quote(text, chunk),
        start=statement.span.start,
        rule_type="calculation" if is_calculation(text) or outcome else "interpretation",
        reader=reader,
        condition=Quote(condition.of(text), chunk) if condition else None,
        consequence=Quote(consequence.of(text), chunk) if consequence.end > consequence.start else None,
        decided=decided,
    )


def propose_rules(document: ParsedDocument) -> list[RuleCandidate]:
    with document_analysis(document) as analysis:
        return [c for statement in statements(document, decides_a_rule) if (c := _candidate(statement, analysis))]


def _about_the_publication(document: ParsedDocument, candidate: RuleCandidate) -> bool:
    """A rule of the document's own licence or copyright, not of its domain."""
    said = candidate.statement.text
    if _COPYRIGHT.search(said):
        return True
    page, pages = candidate.statement.chunk.page_idx, document.n_pages
    # In a short document every page is at an end: there only the work named counts.
    matter = pages > 3 * _MATTER_PAGES and (page < _MATTER_PAGES or page >= pages - _MATTER_PAGES)
    return bool(_LICENSING.search(said)) and (matter or bool(_THE_WORK.search(said)))


def rule_entries(document: ParsedDocument, candidates: list[RuleCandidate], check: SpanCheck) -> list[RuleEntry]:
    rules = []
    seen: set[str] = set()
    for candidate in candidates:
        said = candidate.statement.text
        if not candidate.decided or squash(said) in seen or _about_the_publication(document, candidate):
            continue
        span = check.keep(candidate.statement, entry=said[:40], field="provenance.span", branch="rule")
        if span is None:
            continue
        seen.add(squash(said))
        rules.append(
            RuleEntry(
                rule_id=rule_id(document.doc_id, candidate.statement.chunk.chunk_id, candidate.start),
                rule_type=candidate.rule_type,
                statement=span,
                condition=check.keep(candidate.condition, entry=said[:40], field="condition", branch="rule"),
                consequence=check.keep(candidate.consequence, entry=said[:40], field="consequence", branch="rule"),
                provenance=provenance(document, span, candidate.statement),
            )
        )
    return rules
