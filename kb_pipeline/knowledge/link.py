"""The link stage (contract §10): after every branch ran, connect the glossary hub to formulas
and rules by name. Deterministic, never throws, never invents: an unmatched link is null or [].
The "appears in" edge is not stored; it is recoverable from formulas' variables."""

from __future__ import annotations

from .contracts import FormulaEntry, GlossaryEntry, RuleEntry
from .mining import mentions
from .text import key


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
    for rule in rules:
        said = rule.provenance.span
        rule.term_ids = [e.term_id for e in glossary if mentions(e.term, [said])]
        rule.formula_ids = [f.formula_id for f in formulas if f.name and mentions(f.name, [said])]
