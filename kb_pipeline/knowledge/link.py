"""The link stage (contract §10): after every branch ran, connect the glossary hub to formulas
and rules by name. Deterministic, never throws, never invents: an unmatched link is null or [].
The "appears in" edge is not stored; it is recoverable from formulas' variables."""

from __future__ import annotations

from .document.text import key
from .payloads.contracts import FormulaEntry, GlossaryEntry, RuleEntry
from .readers.glossary.mining import TermIndex


def link(glossary: list[GlossaryEntry], formulas: list[FormulaEntry], rules: list[RuleEntry]) -> None:
    """Fills defining_formula_id, variables' term_id, rules' term_ids and formula_ids in place."""
    terms_by_key: dict[str, str] = {}
    for entry in glossary:
        for name in (entry.term, entry.full_name):
            if name and key(name):
                terms_by_key.setdefault(key(name), entry.term_id)
    formulas_by_key = {key(f.name): f.formula_id for f in formulas if f.name and key(f.name)}
    for entry in glossary:
        entry.defining_formula_id = formulas_by_key.get(key(entry.term)) or (
            formulas_by_key.get(key(entry.full_name)) if entry.full_name else None
        )
    for formula in formulas:
        for variable in formula.variables:
            variable.term_id = terms_by_key.get(key(variable.symbol))
    # One index of every term and formula name, one pass over each rule, each rule's links in the
    # payloads' order: the work grows with the rules and what they mention, not rules × terms.
    named = [(f.name, f.formula_id) for f in formulas if f.name]
    index = TermIndex([e.term for e in glossary] + [name for name, _ in named])
    term_at: dict[str, list[int]] = {}
    for k, entry in enumerate(glossary):
        term_at.setdefault(entry.term, []).append(k)
    formula_at: dict[str, list[int]] = {}
    for k, (name, _) in enumerate(named):
        formula_at.setdefault(name, []).append(k)
    for rule in rules:
        said = index.mentioned(rule.provenance.span)
        rule.term_ids = [glossary[k].term_id for k in sorted(k for t in said for k in term_at.get(t, ()))]
        rule.formula_ids = [named[k][1] for k in sorted(k for t in said for k in formula_at.get(t, ()))]
