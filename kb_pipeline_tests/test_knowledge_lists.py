"""Abbreviation lists read as a layout, inline expansions verified by letter alignment, and the
brief's title and purpose, on real MinerU parses of generated PDFs (lists_pdfs.py)."""

from __future__ import annotations

import pytest

from kb_pipeline.contracts import Chunk, ParsedDocument
from kb_pipeline.knowledge.payloads.contracts import Payloads
from kb_pipeline.knowledge.readers.glossary.abbreviations import read_inline_abbreviations, spells
from kb_pipeline.layout_contract import LayoutLine
from kb_pipeline_tests import lists_pdfs as pdfs
from kb_pipeline_tests.helpers import extract_run


def _parse(parses, tmp_path_factory, make) -> Payloads:
    pdf = tmp_path_factory.mktemp("lists") / f"{make.__name__}.pdf"
    make(pdf)
    return extract_run(parses.run(pdf))


def _line(text: str, size: float, box: tuple[float, float, float, float]) -> LayoutLine:
    return LayoutLine(text=text, box=list(box), size=size, weight=400)


@pytest.fixture(scope="module")
def lists(parses, tmp_path_factory):
    return _parse(parses, tmp_path_factory, pdfs.lists_pdf)


@pytest.fixture(scope="module")
def names(lists) -> dict[str, str | None]:
    return {e.term: e.full_name for e in lists.glossary}


def test_a_ruled_two_column_list_gives_one_entry_per_row(names):
    for term, expansion in pdfs.LISTED:
        assert names[term] == expansion


def test_a_borderless_two_column_list_keeps_each_wrapped_row(names):
    for term, expansion in pdfs.BORDERLESS:
        assert names[term] == expansion
    assert not any("\n" in term for term in names)
    note, text = pdfs.BORDERLESS_NOTE
    assert note not in names and not any(text in (full_name or "") for full_name in names.values())


def test_a_glossary_style_list_run_together_gives_each_line(names):
    for term, expansion in pdfs.GLOSSARY_STYLE:
        assert names[term] == expansion


def test_inline_expansions_in_four_languages(names):
    assert names["TSO"] == "Transmission System Operator"
    assert names["EOL"] == "end-of-line" and names["MoE"] == "Mixture-of-Experts"
    assert names["DWS"] == "Department of Water and Sanitation"  # not "of Water and Sanitation"
    assert names["ETCS"] == "European Train Control System"  # bracketed, a citation after it
    assert names["WAT10"] == names["WAT20"] == "wet abrasion test"
    assert names["LNG"] == "liquefied natural gas"  # "ABBR (long form)"
    assert names["CREC"] == "charte régionale d’économie circulaire"
    assert names["SRPGED"] == "schéma régional de prévention, de gestion et d’élimination des déchets"
    assert names["BNetzA"] == "Bundesnetzagentur" and names["EEG"] == "Erneuerbare-Energien-Gesetz"
    assert names["CNMC"] == "Comisión Nacional de los Mercados y la Competencia"


def test_parentheticals_that_are_no_expansion(names):
    # A citation, a unit, a figure reference, letters the words before do not spell.
    for term in ("Smith", "kWh", "Fig", "ABX", "QRS", "TA Luft"):
        assert term not in names


def test_the_title_is_the_cover_s_large_type_and_the_purpose_the_document_s_aim(lists):
    assert lists.brief_context.title == " ".join(pdfs.TITLE_LINES)  # not the subtitle, author or date
    assert lists.brief_context.purpose == pdfs.PURPOSE


def test_a_page_of_running_text_prints_no_title_and_states_no_purpose(parses, tmp_path_factory):
    brief = _parse(parses, tmp_path_factory, pdfs.excerpt_pdf).brief_context
    assert brief.title is None and brief.purpose is None


def test_a_title_set_in_the_largest_type_beside_a_masthead_and_a_column_heading(parses, tmp_path_factory):
    """More lines than a title has in the title's band of sizes: the largest type alone is the
    title, not the masthead or the column heading beside it."""
    brief = _parse(parses, tmp_path_factory, pdfs.notice_pdf).brief_context
    assert brief.title == " ".join(pdfs.NOTICE_TITLE)


def test_a_band_of_same_sized_lines_longer_than_a_title_has_no_title():
    """The fallback to the largest type is no guess: seven lines all in it still give none."""
    from kb_pipeline.knowledge.readers.brief.title import title_lines

    page = [_line(f"Station {k} overview", 16.0, (100, 60 + 40 * k, 500, 80 + 40 * k)) for k in range(7)]
    page.append(_line("The stations are listed by their district.", 10.0, (100, 400, 800, 412)))
    assert title_lines(page, 10.0) == []


@pytest.mark.parametrize(
    ("abbreviation", "phrase", "spelled"),
    [
        ("SNCF", "Société nationale des chemins de fer", True),
        ("SONAR", "sound navigation and ranging", True),
        ("XML", "eXtensible Markup Language", True),
        ("SMEs", "small- and medium-sized enterprises", True),
        ("RWB", "Regional Water Quality Board", True),
        ("MTTR2", "mean time to repair", True),
        ("DWS", "Water and Sanitation", False),  # a word before the long form's start is no part of it
        ("NTS", "new system", False),
        ("RFID", "radio identification", False),
    ],
)
def test_letter_alignment(abbreviation, phrase, spelled):
    assert spells(abbreviation, phrase) is spelled


def test_a_numbered_section_heading_in_the_title_s_type_is_no_title_line():
    """A manual whose section headings share the title's type: the title is its one unnumbered line."""
    from kb_pipeline.knowledge.readers.brief.title import title_lines

    page = [
        _line("Pump Maintenance Manual", 21.4, (306, 93, 694, 119)),
        _line("I. SCOPE", 21.4, (131, 127, 262, 152)),
        _line("This manual covers routine maintenance of the pumps.", 11.7, (131, 160, 858, 174)),
        _line("2. PROCEDURES", 21.4, (131, 300, 330, 325)),
    ]
    assert [line.text for line in title_lines(page, 11.7)] == ["Pump Maintenance Manual"]


def test_a_laid_out_term_never_spans_a_line_break():
    """Squashed, "LMN OPQ" also reads "LMN\\nOPQ": two rows' ends, not a two-word term."""
    from typing import cast

    from kb_pipeline.contracts import Chunk
    from kb_pipeline.knowledge.document.layout import DocumentLayout
    from kb_pipeline.knowledge.readers.glossary.abbreviations import _laid_out

    class Page:
        def chunk_segments(self, chunk):
            return [
                _line("LMN OPQ", 10, (100, 100, 160, 110)),
                _line("long mixed name", 10, (300, 100, 500, 110)),
                _line("XYZ", 10, (100, 120, 140, 130)),
                _line("extra yellow zone", 10, (300, 120, 500, 130)),
            ]

    chunk = Chunk(chunk_id="d::0000", doc_id="d", kind="text", page_idx=0, heading="Abbreviations",
                  text="LMN\nOPQ long mixed name\n\nXYZ extra yellow zone")  # fmt: skip
    found = {f.term: f.full_name.text for f in _laid_out(chunk, cast(DocumentLayout, Page())) if f.full_name}
    assert found == {"XYZ": "extra yellow zone"}


def test_a_label_line_over_the_title_and_a_revision_line_under_it_are_no_part_of_it(parses, tmp_path_factory):
    """Three lines in the title's type: "Chapter 4", which the parse keeps only in the heading
    path, over the title, then a revision line (real MinerU parse of a generated cover)."""
    from kb_pipeline_tests.samples import story_pdf

    pdf = tmp_path_factory.mktemp("titles") / "chapter.pdf"
    body = "This handbook describes the pumps of the station and how they are kept in service. " * 5
    story_pdf(
        pdf,
        [("Title", "Chapter 4"), ("Title", "Hydraulic Pumps"), ("Title", "Revision C")] + [("BodyText", body)] * 4,
        title="x",
    )
    brief = extract_run(parses.run(pdf)).brief_context
    assert brief.title == "Hydraulic Pumps"


@pytest.mark.parametrize(
    ("lines", "title"),
    [
        ([("SECTION 2", 24.0), ("DIESEL ENGINES", 20.0)], ["DIESEL ENGINES"]),
        ([("Item 265", 18.0), ("ACID-BASE DISORDERS", 18.0)], ["ACID-BASE DISORDERS"]),
        ([("Part II", 18.0), ("Pumps and Valves", 18.0)], ["Pumps and Valves"]),
        # A label-shaped line alone on the cover is the title.
        ([("Windows 11", 24.0)], ["Windows 11"]),
    ],
)
def test_a_label_over_the_title_is_no_title_line(lines, title):
    from kb_pipeline.knowledge.readers.brief.title import title_lines

    page = [_line(text, size, (100, 80 + 30 * k, 500, 80 + 30 * k + size)) for k, (text, size) in enumerate(lines)]
    page.append(_line("The body of the page is set in this type.", 11.0, (100, 300, 500, 311)))
    assert [line.text for line in title_lines(page, 11.0)] == title


@pytest.mark.parametrize(
    ("lines", "title"),
    [
        (["Manuel des pompes", "Version 3.2"], ["Manuel des pompes"]),
        (["Handbuch der Pumpen", "Ausgabe 2"], ["Handbuch der Pumpen"]),
        (["Manual de las bombas", "Revisión B – mayo 2024"], ["Manual de las bombas"]),
        (["Pump Station Handbook", "2nd edition"], ["Pump Station Handbook"]),
        # Negatives: a title that starts with the label's word, a version named in the title.
        (["Version Control for", "Pump Stations"], ["Version Control for", "Pump Stations"]),
        (["Release Valves and", "Their Settings"], ["Release Valves and", "Their Settings"]),
        # ... a plural of the label, a capital word after it.
        (["Pump Station", "Revisions"], ["Pump Station", "Revisions"]),
        (["Pump Station", "Editions"], ["Pump Station", "Editions"]),
        (["Pumpen und", "Auflagen"], ["Pumpen und", "Auflagen"]),
        (["Pump Station", "Release A Guide to Valves"], ["Pump Station", "Release A Guide to Valves"]),
    ],
)
def test_a_revision_or_version_line_under_the_title_is_no_part_of_it(lines, title):
    from kb_pipeline.knowledge.readers.brief.title import title_lines

    page = [_line(line, 20.0, (100, 60 + 24 * k, 500, 80 + 24 * k)) for k, line in enumerate(lines)]
    page.append(_line("The handbook describes the pumps of the station.", 10.0, (100, 400, 800, 412)))
    assert [s.text for s in title_lines(page, 10.0)] == title


def test_a_long_form_and_its_abbreviation_both_inside_the_brackets():
    """ "(Solvency Capital Requirement, SCR)": the pair in one bracket, in a text of any language;
    a citation or a list in brackets is none."""
    text = (
        "Il requisito patrimoniale di solvibilità (Solvency Capital Requirement, SCR) è coperto. "
        "Le fonti (Rossi, 2020) e i componenti (Pompe, VLV) non lo sono."
    )
    chunk = Chunk(chunk_id="d::0000", doc_id="d", kind="text", text=text, page_idx=0)
    document = ParsedDocument(doc_id="d", source_path="d.pdf", content_hash="0" * 64, n_pages=1, chunks=[chunk])
    found = {f.term: f.full_name.text for f in read_inline_abbreviations(document) if f.full_name}
    assert found == {"SCR": "Solvency Capital Requirement"}
