"""The knowledge payloads' own checks, on what was written (the asset's checks call them): every
quoted value is verbatim in the chunk its provenance names, and every id a payload refers to is
one the payloads define."""

from __future__ import annotations

from ..contracts import ParsedDocument
from .contracts import Payloads, Provenance
from .spans import locate


def span_problems(document: ParsedDocument, payloads: Payloads) -> list[str]:
    """Every quoted value that is not found in the chunk its provenance names (the span check's
    own `locate`, so the same layout differences are allowed); a full name, whose own chunk is
    not recorded, in any chunk of the document."""
    chunks = {chunk.chunk_id: chunk for chunk in document.chunks}
    quoted: list[tuple[str, str, Provenance, str | None]] = []
    for e in payloads.glossary:
        quoted += [
            (e.term_id, field, e.provenance, value)
            for field, value in (
                ("provenance.span", e.provenance.span),
                ("definition", e.definition),
                ("full_name", e.full_name),
            )
        ]
    quoted += [(r.rule_id, "provenance.span", r.provenance, r.provenance.span) for r in payloads.interpretation_pack]
    quoted += [(f.formula_id, "provenance.span", f.provenance, f.provenance.span) for f in payloads.formulas]
    brief = payloads.brief_context
    quoted += [(brief.brief_id, "provenance.span", brief.provenance, brief.provenance.span or None)]
    quoted += [(brief.brief_id, "purpose", brief.provenance, brief.purpose)]
    problems = []
    for owner, field, origin, value in quoted:
        if value is None:
            continue
        chunk = chunks.get(origin.chunk_id or "")
        if chunk is None:
            problems.append(f"{owner}.{field}: its chunk {origin.chunk_id!r} is not in the document")
        elif locate(value, chunk) is not None:
            continue
        # An entry records one chunk, its span's; a full name read from an abbreviation list
        # elsewhere (WHO HCV guideline, NIST HPC standard) was span-checked in its own chunk,
        # which the contract does not record: it must be verbatim in some chunk of the document.
        elif not (field == "full_name" and any(locate(value, c) is not None for c in document.chunks)):
            problems.append(f"{owner}.{field}: not found in {chunk.chunk_id}: {value[:80]!r}")
    return problems


def link_problems(payloads: Payloads) -> list[str]:
    """Every id a payload refers to that no payload defines."""
    terms = {e.term_id for e in payloads.glossary}
    formulas = {f.formula_id for f in payloads.formulas}
    problems = [
        f"{e.term_id}.defining_formula_id → {e.defining_formula_id}"
        for e in payloads.glossary
        if e.defining_formula_id and e.defining_formula_id not in formulas
    ]
    problems += [
        f"{f.formula_id}.variables[{v.symbol}].term_id → {v.term_id}"
        for f in payloads.formulas
        for v in f.variables
        if v.term_id and v.term_id not in terms
    ]
    for r in payloads.interpretation_pack:
        problems += [f"{r.rule_id}.term_ids → {t}" for t in r.term_ids if t not in terms]
        problems += [f"{r.rule_id}.formula_ids → {f}" for f in r.formula_ids if f not in formulas]
    problems += [
        f"review_queue[{row.rank}].term_id → {row.term_id}" for row in payloads.review_queue if row.term_id not in terms
    ]
    return problems
