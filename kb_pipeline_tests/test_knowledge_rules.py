"""The rule readers (knowledge/rules.py and its lexicon) on real MinerU parses: a generated
manual, standard and recommendations table in English, French, German and Indonesian, with the
sentences that must not be rules beside them; and the shipped pump manual."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.knowledge import contracts as kc
from kb_pipeline.knowledge.extract import extract_document
from kb_pipeline.knowledge.rules import propose_rules
from kb_pipeline.knowledge.spans import locate
from kb_pipeline.paths import DataLayout
from kb_pipeline_tests.conftest import SAMPLE_DOCS

MANUAL = [
    ("h", "1. Daily checks"),
    ("p", "Check the seal for leaks before every start-up."),
    ("p", "Before start-up, the operator shall check:"),
    ("b", "the oil level in the bearing housing;"),
    ("b", "the coupling guard;"),
    ("b", "the position of the suction valve."),
    ("p", "If the bearing temperature exceeds 85 °C, stop the pump and inform the supervisor."),
    ("p", "The discharge pressure should not exceed 4.2 bar unless a relief valve is fitted."),
    ("p", "Efficiency is computed as the ratio of the hydraulic power to the shaft power."),
    ("h", "2. Background"),
    ("p", "Centrifugal pumps of this series typically support flow rates between 50 and 400 cubic metres per hour."),
    ("p", "Earlier field studies reported that seals should be inspected twice a shift [3]. Jones et al. argued"
     " that operators must log every stop of the pump."),
    ("p", "You must give appropriate credit and indicate if changes were made to the licensed material."),
    ("h", "3. Consignes d'exploitation"),
    ("p", "L'exploitant doit vérifier la pression de refoulement avant chaque démarrage."),
    ("p", "Lorsque la température dépasse 85 °C, il faut arrêter la pompe immédiatement."),
    ("p", "La pompe a été installée dans la station en 2019 par le fabricant."),
    ("h", "4. Betriebsanweisung"),
    ("p", "Die Dichtung muss vor jeder Inbetriebnahme auf Leckagen geprüft werden."),
    ("p", "Wenn der Druck über 4 bar steigt, ist das Ventil sofort zu schließen."),
    ("p", "Die Anlage wurde im Jahr 2019 von einem regionalen Betrieb gebaut."),
    ("h", "5. Petunjuk operasi"),
    ("p", "Operator harus memeriksa tekanan keluaran pada setiap awal shift."),
    ("p", "Jika suhu bantalan melebihi 85 °C, pompa wajib segera dimatikan."),
    ("p", "Pompa ini dipasang di stasiun pada tahun 2019 oleh pabrikan."),
]  # fmt: skip
RECOMMENDATIONS = [
    ["Topic", "Recommendation"],
    ["Seals", "We recommend replacing the mechanical seal every 2000 operating hours."],
    ["Lubrication", "The lubricant should be changed every 500 operating hours."],
    ["History", "The pump series was introduced by the manufacturer in 2019."],
]


def _rules_pdf(path: Path) -> None:
    from reportlab.lib import colors
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    ss = getSampleStyleSheet()
    style = {"h": ss["Heading2"], "p": ss["BodyText"], "b": ss["BodyText"]}
    story = [Paragraph("Pump operation and maintenance rules", ss["Title"])]
    for kind, text in MANUAL:
        story.append(Paragraph(f"• {text}" if kind == "b" else text, style[kind]))
    story.append(Paragraph("6. Recommendations", ss["Heading2"]))
    table = Table([[Paragraph(cell, ss["BodyText"]) for cell in row] for row in RECOMMENDATIONS], colWidths=[90, 330])
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
    story += [table, Spacer(1, 12)]
    SimpleDocTemplate(str(path), title="Pump operation and maintenance rules", invariant=True).build(story)


def _parse(pdf: Path, root: Path) -> ParsedDocument:
    from kb_pipeline.parsing.config import ParserConfig
    from kb_pipeline.pipeline import Parsing, process_document

    return process_document(pdf, Parsing.in_process(ParserConfig(), DataLayout(root))).document


@pytest.fixture(scope="module")
def rules_document(tmp_path_factory) -> ParsedDocument:
    folder = tmp_path_factory.mktemp("rules")
    _rules_pdf(folder / "rules.pdf")
    return _parse(folder / "rules.pdf", folder / "data")


@pytest.fixture(scope="module")
def pump_manual(tmp_path_factory) -> ParsedDocument:
    return _parse(SAMPLE_DOCS / "pump_maintenance_manual.pdf", tmp_path_factory.mktemp("pump") / "data")


def _rule(rules: list[kc.RuleEntry], words: str) -> kc.RuleEntry:
    found = [r for r in rules if r.statement and words in " ".join(r.statement.split())]
    assert len(found) == 1, (words, [r.statement for r in rules])
    return found[0]


def _verbatim(document: ParsedDocument, rule: kc.RuleEntry) -> None:
    chunk = next(c for c in document.chunks if c.chunk_id == rule.provenance.chunk_id)
    for value in (rule.provenance.span, rule.statement, rule.condition, rule.consequence):
        assert value is None or locate(value, chunk) == value


def test_instructions_requirements_and_conditions_in_four_languages(rules_document):
    rules = extract_document(rules_document).interpretation_pack
    for rule in rules:
        _verbatim(rules_document, rule)
    assert _rule(rules, "Check the seal for leaks").condition is None
    # A lead-in and the items completing it: one rule, its scope the condition.
    listed = _rule(rules, "the operator shall check:")
    assert "the coupling guard" in listed.statement and "suction valve" in listed.statement
    assert listed.condition == "Before start-up"
    stop = _rule(rules, "stop the pump and inform the supervisor")
    assert stop.condition == "If the bearing temperature exceeds 85 °C"
    assert stop.consequence == "stop the pump and inform the supervisor"
    pressure = _rule(rules, "should not exceed 4.2 bar")
    assert pressure.condition == "unless a relief valve is fitted"
    assert pressure.consequence == "The discharge pressure should not exceed 4.2 bar"
    assert _rule(rules, "Efficiency is computed as").rule_type == "calculation"
    assert _rule(rules, "L'exploitant doit vérifier").condition is None
    assert _rule(rules, "il faut arrêter la pompe").condition == "Lorsque la température dépasse 85 °C"
    assert _rule(rules, "Die Dichtung muss").rule_type == "interpretation"
    assert _rule(rules, "ist das Ventil sofort zu schließen").condition == "Wenn der Druck über 4 bar steigt"
    assert _rule(rules, "Operator harus memeriksa").condition is None
    assert _rule(rules, "pompa wajib segera dimatikan").condition == "Jika suhu bantalan melebihi 85 °C"
    # Rules in a recommendations table's cells; the row of facts beside them is none.
    _rule(rules, "We recommend replacing the mechanical seal")
    _rule(rules, "The lubricant should be changed")
    said = " ".join(" ".join(r.statement.split()) for r in rules if r.statement)
    for fact in ("typically support", "was introduced", "installée dans la station", "wurde im Jahr", "dipasang"):
        assert fact not in said
    # Others' findings and the licence are no rules of this document.
    assert "reported that" not in said and "et al." not in said and "appropriate credit" not in said


def test_a_modal_in_reported_speech_is_left_open_for_a_model(rules_document):
    open_ = [c.statement.text for c in propose_rules(rules_document) if not c.decided]
    assert any("reported that seals should be inspected" in " ".join(t.split()) for t in open_)


def test_the_pump_manual_s_instructions_are_rules_with_stable_ids(pump_manual):
    first = extract_document(pump_manual).interpretation_pack
    check = _rule(first, "Check the seal for leaks")
    replace = _rule(first, "Replace the lubricant every 500 operating hours")
    assert check.rule_type == replace.rule_type == "interpretation"
    assert _rule(first, "Efficiency is computed as").rule_type == "calculation"
    for rule in first:
        _verbatim(pump_manual, rule)
    again = extract_document(pump_manual).interpretation_pack
    assert [r.rule_id for r in again] == [r.rule_id for r in first] and len({r.rule_id for r in first}) == len(first)


def _chunks(*texts: str) -> ParsedDocument:
    from kb_pipeline.contracts import Chunk

    chunks = [
        Chunk(
            chunk_id=f"d::{k:04d}",
            doc_id="d",
            kind="text",
            text=text,
            page_idx=k,
            heading="Notes",
            heading_path=["Notes"],
        )
        for k, text in enumerate(texts)
    ]
    return ParsedDocument(doc_id="d", source_path="d.pdf", content_hash="0" * 64, n_pages=len(chunks), chunks=chunks)


def test_what_only_looks_like_a_rule_is_none():
    document = _chunks(
        "Adalah jumlah unit yang digunakan untuk menghasilkan produksi dalam suatu periode.",  # copula, not a verb
        "Return type: bool\n\nDocument.metadata",  # API reference labels
        "Holders of patent claims whose use may be required for compliance are asked to disclose them.",
        "There are many reasons why the process should be sensitive to the growth of demand.",
        "We shall not report the results from previous studies here.",
        "Save table of contents as a text file",  # a title, no sentence
    )
    assert extract_document(document).interpretation_pack == []


def test_a_condition_with_its_outcome_and_an_option_the_reader_is_given():
    document = _chunks(
        "If a value is in the list, the function returns 1. Otherwise, it returns 0.",
        "If necessary, a proxy can be installed to reach the internet.\n\nA proxy can also be a security risk.",
    )
    rules = extract_document(document).interpretation_pack
    assert [(r.statement, r.condition, r.rule_type) for r in rules] == [
        ("If a value is in the list, the function returns 1.", "If a value is in the list", "calculation"),
        ("Otherwise, it returns 0.", "Otherwise", "calculation"),
        ("If necessary, a proxy can be installed to reach the internet.", "If necessary", "interpretation"),
    ]
