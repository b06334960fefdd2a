"""The payloads' own checks (knowledge/payloads/checks.py), as the knowledge asset runs them: every quoted
field re-checked against the chunk its provenance names, a value whose chunk is not recorded
against the whole document; and the link stage's rule links (knowledge/link.py)."""

from __future__ import annotations

import pytest

from kb_pipeline.contracts import Chunk, ParsedDocument
from kb_pipeline.knowledge.extract import extract_document
from kb_pipeline.knowledge.payloads.checks import span_problems
from kb_pipeline.knowledge.payloads.contracts import Payloads

TEXTS = (
    "The net positive suction head (NPSH) of a pump is read from its data sheet.",
    "The head is given by\n\nh = p/(r g)\n\nwhere h is the head in m, p is the pressure and r is the density of the liquid.",
    "If the NPSH is below the required value, the operator must stop the pump.",
)


def _document() -> ParsedDocument:
    chunks = [
        Chunk(chunk_id=f"d::{k:04d}", doc_id="d", kind="text", text=text, page_idx=k) for k, text in enumerate(TEXTS)
    ]
    return ParsedDocument(doc_id="d", source_path="d.pdf", content_hash="0" * 64, n_pages=len(chunks), chunks=chunks)


@pytest.fixture
def extracted() -> tuple[ParsedDocument, Payloads]:
    document = _document()
    return document, extract_document(document)


def test_what_was_extracted_passes(extracted):
    document, payloads = extracted
    (rule,) = payloads.interpretation_pack
    (formula,) = payloads.formulas
    assert rule.condition and rule.consequence and formula.unit == "m"
    npsh = next(e for e in payloads.glossary if e.term == "NPSH")
    assert npsh.full_name == "net positive suction head"
    assert span_problems(document, payloads) == []


def _planted(payloads: Payloads) -> Payloads:
    planted = payloads.model_copy(deep=True)
    (rule,) = planted.interpretation_pack
    rule.condition = "If the NPSH is low"
    (formula,) = planted.formulas
    formula.unit = "bar"
    next(v for v in formula.variables if v.symbol == "r").meaning = "the density of the fluid"
    formula.name = "The total head"
    planted.brief_context.title = "Pump handbook"
    entry = next(e for e in planted.glossary if e.term == "NPSH")
    entry.full_name = "net suction head"
    entry.conflict_variants = ["net positive suction head", "the head at the suction side"]
    return planted


def test_a_planted_value_that_is_not_verbatim_is_caught_in_every_field(extracted):
    document, payloads = extracted
    planted = _planted(payloads)
    fields = sorted(p.split(":")[0].split(".", 1)[1] for p in span_problems(document, planted))
    assert fields == sorted(
        [
            "condition",
            "unit",
            "variables[r].meaning",
            "name",
            "title",
            "full_name",
            "conflict_variants[1]",
        ]
    )


def test_a_title_of_lines_from_two_chunks_is_verbatim(extracted):
    document, payloads = extracted
    payloads.brief_context.title = "The net positive suction head The head is given by"
    assert span_problems(document, payloads) == []


def test_a_rule_links_the_terms_it_names_in_glossary_order(extracted):
    _, payloads = extracted
    (rule,) = payloads.interpretation_pack
    named = [e.term_id for e in payloads.glossary if e.term == "NPSH"]
    assert named and rule.term_ids == named
