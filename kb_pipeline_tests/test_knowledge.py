"""The knowledge half's deterministic slice (docs/knowledge.md) on real MinerU output: the
shipped Indonesian standard and the WHO guideline's abbreviation and glossary pages."""

from __future__ import annotations

import json
from hashlib import sha256

import pytest

from kb_pipeline.cli.extract import main as extract_main
from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.knowledge import contracts as kc
from kb_pipeline.knowledge.extract import DETERMINISTIC_READERS, extract_document
from kb_pipeline.knowledge.findings import Finding, Quote
from kb_pipeline.knowledge.text import canonical, key, squash
from kb_pipeline.paths import DataLayout
from kb_pipeline_tests.conftest import SAMPLE_DOCS, SHARED

PAYLOAD_MODELS = {
    "glossary": kc.GlossaryEntry,
    "interpretation_pack": kc.RuleEntry,
    "formulas": kc.FormulaEntry,
    "review_queue": kc.ReviewQueueRow,
    "rejected": kc.RejectedField,
    "usage": kc.CallUsage,
}
# The contract's key order, spelled out (not read from the models they check).
GLOSSARY_KEYS = [
    "term_id", "term", "full_name", "source_wording", "definition", "defining_formula_id", "subdomain_tags",
    "mention_count", "provenance", "extraction_status", "diff_status", "definition_conflict", "conflict_variants",
]  # fmt: skip
QUEUE_KEYS = [
    "rank", "term_id", "term", "definition", "source_wording", "mention_count", "page", "section_no", "span",
    "review_reason",
]  # fmt: skip
PROVENANCE_KEYS = ["doc_id", "span", "page", "section_no", "chunk_id"]
REASONS = [
    "conflicting definitions — expert decision required",
    "source wording differs from the expanded name — confirm which is correct",
    "term found but no definition in document",
    "definition rejected by span check or absent",
    "routine confirmation",
]


@pytest.fixture(scope="module")
def standard(tmp_path_factory) -> ParsedDocument:
    """The shipped Indonesian standard, parsed by the real MinerU (flash)."""
    from kb_pipeline.parsing.config import ParserConfig
    from kb_pipeline.pipeline import Parsing, process_document

    layout = DataLayout(tmp_path_factory.mktemp("knowledge") / "data")
    pdf = SAMPLE_DOCS / "STD_2026_006_parameter_produksi.pdf"
    return process_document(pdf, Parsing.in_process(ParserConfig(), layout)).document


def _entry(payloads: kc.Payloads, term: str) -> kc.GlossaryEntry:
    return next(e for e in payloads.glossary if e.term == term)


def test_written_payloads_follow_the_contract(standard, tmp_path):
    extract_document(standard).write(tmp_path)
    files = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in tmp_path.glob("*.json")}
    assert sorted(files) == sorted([*PAYLOAD_MODELS, "brief_context"])
    assert isinstance(files["brief_context"], dict)
    assert list(files["brief_context"]) == ["brief_id", "title", "purpose", "key_parameters", "provenance"]
    assert files["usage"] == []  # no model call was made
    assert [list(row) for row in files["glossary"]] == [GLOSSARY_KEYS] * len(files["glossary"])
    assert [list(row) for row in files["review_queue"]] == [QUEUE_KEYS] * len(files["review_queue"])
    for name, model in PAYLOAD_MODELS.items():
        for row in files[name]:
            assert list(row) == list(model.model_fields), name
            model.model_validate(row)  # enums and types
            if "provenance" in row:
                assert list(row["provenance"]) == PROVENANCE_KEYS
    formula = files["formulas"][0]
    assert formula["formula_latex"] == "Production = MOHH x Qty x PA x UA x Pty"
    assert formula["latex_verification"] == "unverified_operator"  # a bare "x", no markup on flash


def test_a_numbered_heading_names_a_term(standard):
    """Contract §5's own example: "2.1.2. Quantity (Qty)" over an "Adalah …" sentence."""
    qty = _entry(extract_document(standard), "Qty")
    assert qty.full_name == "Quantity"
    assert qty.source_wording == "2.1.2. Quantity (Qty)"
    assert (
        qty.definition == "Adalah jumlah equipment/unit yang digunakan untuk menghasilkan produksi dalam suatu periode."
    )
    assert qty.provenance.span == qty.definition and qty.provenance.section_no == "2.1.2"
    assert qty.extraction_status == "ok" and qty.diff_status == "new" and qty.mention_count >= 2


def test_ids_are_content_derived_and_stable(standard):
    first, second = extract_document(standard), extract_document(standard)
    assert first.model_dump_json() == second.model_dump_json()
    qty = _entry(first, "Qty")
    assert qty.term_id == "t_" + sha256(f"{standard.doc_id}|qty".encode()).hexdigest()[:10]
    assert first.brief_context.brief_id == "b_" + sha256(standard.doc_id.encode()).hexdigest()[:10]
    ids = [e.term_id for e in first.glossary] + [f.formula_id for f in first.formulas]
    assert len(ids) == len(set(ids))


def test_pages_are_zero_based(standard):
    payloads = extract_document(standard)
    pa = _entry(payloads, "PA")
    chunk = next(c for c in standard.chunks if c.chunk_id == pa.provenance.chunk_id)
    assert pa.provenance.page == chunk.page_idx == 1  # the PDF's second page


def test_links_never_dangle(standard):
    payloads = extract_document(standard)
    term_ids = {e.term_id for e in payloads.glossary}
    formula_ids = {f.formula_id for f in payloads.formulas}
    assert {e.defining_formula_id for e in payloads.glossary} - {None} <= formula_ids
    assert {v.term_id for f in payloads.formulas for v in f.variables} - {None} <= term_ids
    assert {t for r in payloads.interpretation_pack for t in r.term_ids} <= term_ids
    assert {f for r in payloads.interpretation_pack for f in r.formula_ids} <= formula_ids
    production = next(f for f in payloads.formulas if f.name == "Production")
    assert _entry(payloads, "Production").defining_formula_id == production.formula_id
    linked = {v.symbol: v.term_id for v in production.variables}
    assert linked["Qty"] == _entry(payloads, "Qty").term_id and linked["MOHH"] is None


def _planted(document: ParsedDocument, **values: str):
    """A reader standing in for a model: proposes `values` for a term quoted from chunk 0001."""
    chunk = document.chunks[1]

    def read(_: ParsedDocument) -> list[Finding]:
        quotes = {name: Quote(text, chunk) for name, text in values.items() if name != "anchor"}
        return [Finding("Planted", Quote(values.get("anchor", "Standard Parameter"), chunk), "model", **quotes)]

    return read


def test_a_value_not_in_its_chunk_is_nulled_and_rejected(standard):
    invented = "Parameter produksi adalah ukuran yang ditetapkan oleh direksi."
    payloads = extract_document(standard, [*DETERMINISTIC_READERS, _planted(standard, definition=invented)])
    planted = _entry(payloads, "Planted")
    assert planted.definition is None and planted.provenance.span == "Standard Parameter"
    assert [r.model_dump() for r in payloads.rejected] == [
        {
            "entry_term": "Planted",
            "field": "definition",
            "offending_value": invented,
            "reason": f"definition is not a verbatim transcription of the source ({standard.chunks[1].chunk_id})",
            "branch": "glossary",
        }
    ]
    row = next(r for r in payloads.review_queue if r.term == "Planted")
    assert row.review_reason == "definition rejected by span check or absent"
    # A span that is not in its chunk drops the entry: there is nothing to show a reviewer.
    payloads = extract_document(standard, [_planted(standard, anchor="Standard Parameter Nasional")])
    assert payloads.glossary == [] and payloads.rejected[0].field == "provenance.span"


def test_a_value_differing_only_in_layout_is_stored_as_the_source_writes_it(standard):
    chunk_text = standard.chunks[1].text
    reflowed = " ".join(chunk_text.split()[:6]).replace("Standard ", "Standard\n")
    payloads = extract_document(standard, [_planted(standard, definition=reflowed)])
    assert _entry(payloads, "Planted").definition in chunk_text


def test_review_queue_puts_conflicts_first_then_mentions(standard):
    other = "Dokumen ini berlaku untuk seluruh site operasi."
    first = "Standard Parameter ini merupakan pedoman dalam perhitungan parameter produksi"
    conflicting = _planted(standard, definition=first)
    payloads = extract_document(standard, [*DETERMINISTIC_READERS, conflicting, _planted(standard, definition=other)])
    queue = payloads.review_queue
    assert [r.rank for r in queue] == list(range(1, len(queue) + 1))
    assert queue[0].term == "Planted" and queue[0].review_reason == REASONS[0]
    assert _entry(payloads, "Planted").conflict_variants == [first, other]
    counts = [r.mention_count for r in queue[1:]]
    assert counts == sorted(counts, reverse=True)
    assert {r.review_reason for r in queue} <= set(REASONS)
    for row in queue:
        entry = next(e for e in payloads.glossary if e.term_id == row.term_id)
        assert (row.span, row.page, row.definition) == (entry.provenance.span, entry.provenance.page, entry.definition)


def test_the_parsed_document_is_never_changed(standard):
    before = standard.model_dump_json()
    extract_document(standard)
    assert standard.model_dump_json() == before


def test_a_document_without_text_gives_empty_payloads():
    empty = ParsedDocument(doc_id="scan", source_path="scan.pdf", content_hash="0" * 64, n_pages=1, chunks=[])
    payloads = extract_document(empty)
    assert payloads.glossary == payloads.formulas == payloads.interpretation_pack == payloads.review_queue == []
    assert payloads.brief_context.purpose is None and payloads.brief_context.provenance.span == ""


def test_extract_command_writes_each_document_and_reports_a_bad_file(standard, tmp_path, capsys):
    good = tmp_path / "in" / "std" / "chunks.json"
    good.parent.mkdir(parents=True)
    good.write_text(standard.model_dump_json())
    (tmp_path / "in" / "broken").mkdir()
    (tmp_path / "in" / "broken" / "chunks.json").write_text("{not json")
    code = extract_main([str(tmp_path / "in"), "--out-dir", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert code == 1 and "broken" in err and "1 of 2 documents extracted" in out
    assert f"{standard.doc_id}: " in out and " rejected, " in out
    assert len(list((tmp_path / "out" / standard.doc_id).glob("*.json"))) == 7


def test_who_abbreviation_list_and_glossary(corpus_run):
    """The dev gold's pages only (printed x–xvi): each abbreviation with its expansion, as the
    yardstick scores them, and most glossary definitions."""
    gold = json.loads((SHARED / "knowledge" / "gold" / "guideline_who_hcv_treatment.json").read_text())["entries"]
    document = corpus_run("guideline_who_hcv_treatment", page_range="11-17").document
    payloads = extract_document(document)
    by_term = {key(e.term): e for e in payloads.glossary}
    abbreviations = [g for g in gold if g["kind"] == "abbreviation"]
    expanded = [
        g for g in abbreviations if key(getattr(by_term.get(key(g["term"])), "full_name", "")) == key(g["full_name"])
    ]
    assert len(expanded) == len(abbreviations) == 64
    defined = [
        g
        for g in gold
        if g["kind"] == "definition"
        and (entry := by_term.get(key(g["term"])))
        and entry.definition
        and squash(g["definition_start"])[:40] in squash(entry.definition)
    ]
    assert len(defined) >= 14
    assert canonical("  HCV  Core antigen ") == "hcv core antigen"
