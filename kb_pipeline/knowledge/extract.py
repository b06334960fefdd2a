"""One document's knowledge payloads: readers propose, the span check disposes, the link stage
connects, the review queue projects. Reads the `ParsedDocument`, never changes it.

A reader is any `(document) -> list[Finding]`. With a `model`, the terms the readers left
escalated are put to it (definition_picker.py): its picks join their clusters as findings of
reader "model" and go through the same span check; its calls are `usage`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..contracts import ParsedDocument
from ..llm.model import LanguageModel
from .abbreviations import read_abbreviation_lists, read_inline_abbreviations
from .brief import build_brief, propose_brief
from .contracts import Payloads
from .definition_picker import pick_definitions
from .definition_sentences import read_running_definitions, read_section_definitions
from .definition_tables import read_definition_tables
from .definitions import read_defining_sentences, read_definition_lists, read_numbered_headings
from .findings import Finding
from .formulas import formula_entries, propose_formulas
from .glossary import glossary_entry
from .labelled_definitions import read_labelled_definitions
from .legend import read_symbol_legends
from .link import link
from .mining import cluster
from .review import review_queue
from .rules import propose_rules, rule_entries
from .spans import SpanCheck

Reader = Callable[[ParsedDocument], list[Finding]]

DETERMINISTIC_READERS: tuple[Reader, ...] = (
    read_abbreviation_lists,
    read_numbered_headings,
    read_definition_lists,
    read_definition_tables,
    read_labelled_definitions,
    read_section_definitions,
    read_running_definitions,
    read_symbol_legends,
    read_defining_sentences,
    read_inline_abbreviations,
)


def extract_document(
    document: ParsedDocument, readers: Sequence[Reader] = DETERMINISTIC_READERS, model: LanguageModel | None = None
) -> Payloads:
    """`ModelFailed` when the model's endpoint does not answer: nothing is half-written."""
    check = SpanCheck()
    findings = [finding for read in readers for finding in read(document)]
    clusters = cluster(document, findings)
    usage = []
    if model is not None:
        picked, choices = pick_definitions(clusters, model)
        check.rejected += choices.rejected
        usage = choices.usage
        if picked:
            clusters = cluster(document, findings + picked)
    glossary = [e for c in clusters if (e := glossary_entry(document, c, check))]
    formulas = formula_entries(document, propose_formulas(document), check)
    rules = rule_entries(document, propose_rules(document), check)
    link(glossary, formulas, rules)
    return Payloads(
        glossary=glossary,
        interpretation_pack=rules,
        formulas=formulas,
        brief_context=build_brief(document, propose_brief(document), glossary, check),
        review_queue=review_queue(glossary, check.rejected),
        rejected=check.rejected,
        usage=usage,
    )
