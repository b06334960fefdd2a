"""One document's knowledge payloads: readers propose, the span check disposes, the link stage
connects, the review queue projects. Reads the `ParsedDocument`, never changes it.

Every branch has that shape, its readers an ordered list: the glossary's are any
`(document) -> list[Finding]` (`DETERMINISTIC_READERS`); the formulas' are the layouts a formula
is found in (`math_text.FORMULA_READERS`), the rules' what reads a statement as a rule
(`rules.RULE_READERS`, the first that does wins), the brief's its title's and its purpose's
(`brief.PURPOSE_READERS`); each proposes candidates of its branch, each value a quote for the
span check. With a `model`, what code left open is put to
it in the steps it is asked in (model_steps.py): an escalated term's definition, an open rule or
formula; its answers are choices among the document's own text, join the candidates as another
proposer's and go through the same span check; its calls are `usage`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..contracts import ParsedDocument
from ..layout_contract import LAYOUT_NAME, ParsedLayout
from ..llm.model import LanguageModel
from .document.layout import WITHOUT_LAYOUT, DocumentLayout, document_layout
from .language.analysis import document_analysis
from .link import link
from .model.choice import Choices
from .model.definition_picker import pick_definitions
from .model.model_steps import FORMULAS, RULES, asked_steps, decide_open
from .payloads.contracts import MissingArtifact, Payloads
from .payloads.review import review_queue
from .payloads.spans import SpanCheck
from .readers.brief.brief import build_brief, propose_brief
from .readers.findings import Finding
from .readers.formulas.formulas import formula_entries, propose_formulas
from .readers.formulas.legend import document_math, read_symbol_legends
from .readers.glossary.abbreviations import read_abbreviation_lists, read_inline_abbreviations
from .readers.glossary.api_reference import read_api_reference
from .readers.glossary.constructions import read_stated_definitions
from .readers.glossary.definition_sentences import read_running_definitions, read_section_definitions
from .readers.glossary.definition_tables import read_definition_tables
from .readers.glossary.definitions import read_defining_sentences, read_definition_lists, read_numbered_headings
from .readers.glossary.glossary import glossary_entry
from .readers.glossary.labelled_definitions import read_labelled_definitions
from .readers.glossary.mining import cluster
from .readers.rules.rules import propose_rules, rule_entries

Reader = Callable[[ParsedDocument], list[Finding]]

DETERMINISTIC_READERS: tuple[Reader, ...] = (
    read_abbreviation_lists,
    read_numbered_headings,
    read_definition_lists,
    read_definition_tables,
    read_api_reference,
    read_labelled_definitions,
    read_section_definitions,
    read_running_definitions,
    read_stated_definitions,
    read_symbol_legends,
    read_defining_sentences,
    read_inline_abbreviations,
)


def extract_document(
    document: ParsedDocument,
    readers: Sequence[Reader] = DETERMINISTIC_READERS,
    model: LanguageModel | None = None,
    layout: ParsedLayout | None = None,
) -> Payloads:
    """`layout`: the document's layout artifact; without it, `usage` says what its readers lost.
    `ModelFailed` when the model's endpoint does not answer: nothing is half-written."""
    check = SpanCheck()
    steps = asked_steps(model.endpoint) if model is not None else frozenset()
    asked: list[Choices] = []
    # Every proposal first: the pages' layout, the formulas' index and the sentence analysis are
    # made once for them all.
    pages = DocumentLayout(layout) if layout is not None else None
    with document_layout.given(document, pages), document_math(document), document_analysis(document):
        findings = [finding for read in readers for finding in read(document)]
        brief = propose_brief(document)
        formula_candidates = propose_formulas(document)
        rule_candidates = propose_rules(document)
    clusters = cluster(document, findings)
    if model is not None and "definitions" in steps:
        picked, choices = pick_definitions(clusters, model)
        asked.append(choices)
        if picked:
            clusters = cluster(document, findings + picked)
    glossary = [e for c in clusters if (e := glossary_entry(document, c, check))]
    if model is not None and "formulas" in steps:
        formula_candidates, choices = decide_open(formula_candidates, model, FORMULAS, lambda c: c.formula)
        asked.append(choices)
    if model is not None and "rules" in steps:
        rule_candidates, choices = decide_open(rule_candidates, model, RULES, lambda c: c.statement)
        asked.append(choices)
    for choices in asked:
        check.rejected += choices.rejected
    formulas = formula_entries(document, formula_candidates, check)
    rules = rule_entries(document, rule_candidates, check)
    link(glossary, formulas, rules)
    missing = [] if layout is not None else [MissingArtifact(missing_artifact=LAYOUT_NAME, lost=list(WITHOUT_LAYOUT))]
    return Payloads(
        glossary=glossary,
        interpretation_pack=rules,
        formulas=formulas,
        brief_context=build_brief(document, brief, glossary, check),
        review_queue=review_queue(glossary, check.rejected),
        rejected=check.rejected,
        usage=[*(call for choices in asked for call in choices.usage), *missing],
    )
