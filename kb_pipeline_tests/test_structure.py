"""Section structure on real documents of the structure corpus (../shared/corpus), parsed by the
real MinerU (flash): each test pins one rule of `normalise` on a document that needs it, and
every artifact stays verbatim. The whole corpus is scored by `score.py` (docs/QUALITY.md)."""

from __future__ import annotations

import pytest

from kb_pipeline.normalise.headings import HeadingTracker, heading_rejection, numbered
from kb_pipeline.parsing.mineru_adapter import SOURCE_COPY
from kb_pipeline.parsing.raw_output import load_raw_output
from kb_pipeline.pdf_text import PdfTextLayer
from kb_pipeline.quality.verbatim import source_pieces, verbatim_violations

# Small documents, a few seconds of MinerU each.
DOCS = [
    "report_ko_covid_insurance",
    "report_fr_solar_impact_study",
    "report_eu_food_retail_tables",
    "table_nces_projections_multipage",
    "paper_twocol_creativity_ml",
]


def _headings(run) -> list[str]:
    seen: list[str] = []
    for chunk in run.document.chunks:
        for line in chunk.heading_path:
            if line not in seen:
                seen.append(line)
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("name", DOCS)
def test_corpus_artifacts_are_verbatim_and_have_no_empty_chunks(corpus_run, name):
    run = corpus_run(name)
    raw = load_raw_output(run.raw.path)
    with PdfTextLayer(run.raw.path / SOURCE_COPY) as text_layer:
        for chunk in run.document.chunks:
            assert verbatim_violations(chunk, source_pieces(chunk, raw, text_layer)) == [], chunk.chunk_id
            if chunk.kind in ("text", "table"):
                assert chunk.text.strip(), chunk.chunk_id
    assert run.checks["text_verbatim"].passed


def test_run_in_headings_in_their_own_font_are_cut_from_the_paragraph(corpus_run):
    """MinerU merged "(2) 생명보험 표준약관 재해분류표" into the paragraph before it; the line is set
    in a heading font and continues the (1), (2), … run, so it is cut out as a heading."""
    run = corpus_run("report_ko_covid_insurance")
    headings = _headings(run)
    for line in [
        "(1) 「감염병의 예방 및 관리에 관한 법률」 개정",
        "(2) 생명보험 표준약관 재해분류표",
        "(3) 「약관의 규제에 관한 법률」상 약관해석의 원칙",
        "(4) 생보업계의 재해보험금 지급에 대한 의견",
    ]:
        assert line in headings
    chunk = next(c for c in run.document.chunks if c.heading_path[-1:] == ["(2) 생명보험 표준약관 재해분류표"])
    assert chunk.heading_path[0] == "2 코로나-19 관련 보험 현황"  # a boxed title (an image item) opens section 2
    assert chunk.text.startswith("현행 생명보험 표준약관상")
    assert not any("(2) 생명보험" in c.text for c in run.document.chunks)


def test_the_outline_gives_headings_and_depth_and_contents_pages_hold_none(corpus_run):
    run = corpus_run("report_fr_solar_impact_study")
    by_heading = {c.heading_path[-1]: c.heading_path for c in run.document.chunks if c.heading_path}
    assert by_heading["1.1 CONTEXTE POLITIQUE INTERNATIONAL"][-3:] == [
        "CHAPITRE I : PREAMBULE",
        # As MinerU reads the page drawn upright (parsing/upright.py: every page is /Rotate 90).
        "1 CONTEXTE POLITIQUE ET ENGAGEMENTS",
        "1.1 CONTEXTE POLITIQUE INTERNATIONAL",
    ]
    contents = [c for c in run.document.chunks if 2 in c.page_idxs]
    assert len(contents) == 1 and "5 PHASAGE CHANTIER" in contents[0].text
    assert not any("...." in line for line in _headings(run))  # no contents line became a heading


def test_adjacent_title_lines_are_one_heading(corpus_run):
    run = corpus_run("report_eu_food_retail_tables")
    assert "CHAPTER 6 – AN OVERVIEW OF MARKET STRUTURE BASED UPON EXISTING SOURCES" in _headings(run)


def test_cell_less_table_is_a_text_chunk_and_tables_titles_are_no_headings(corpus_run):
    run = corpus_run("table_nces_projections_multipage")
    assert _headings(run) == []  # table titles are captions
    assert all(c.text.strip() for c in run.document.chunks if c.kind in ("text", "table"))
    assert any("Region and state" in c.text for c in run.document.chunks if c.kind == "text")
    assert "tabel_tanpa_sel" in {w.jenis for w in run.warnings}  # kept as text, and said so


def test_references_and_subfigure_labels_are_not_headings(corpus_run):
    headings = _headings(corpus_run("paper_twocol_creativity_ml"))
    assert "III-A Google DeepDream" not in headings  # the printed line is the heading, not the bookmark
    assert any(h.endswith("Google DeepDream") for h in headings)
    assert not [h for h in headings if "http" in h or h.startswith("(a)") or h.startswith("“")]


def test_heading_rejection_rules():
    """Isolates the line rules on strings seen in real documents."""
    assert numbered("1.Introduction") == ("arabic", "1", "Introduction")
    assert numbered("3.Scope of the plan") == ("arabic", "3", "Scope of the plan")
    assert numbered("CHAPTER 5. RESULTS")[0] == "chapter"
    for line, reason in [
        ("3.1", "no words"),
        ("6 0", "no words"),
        ("= 0", "no words"),
        ("[", "no words"),
        ("Figure 3: Flow duration curves", "caption"),
        ("Abbildung 2: Aufbau", "caption"),
        ("2.1 Scope ........ 4", "table of contents"),
        ("Total:", "fragment or label"),
        ("as agreed with the supplier.", "sentence fragment"),
        ("Available: https://example.org/x", "address or reference"),
    ]:
        assert heading_rejection(line) == reason, line
    assert heading_rejection("4.2 Safety requirements") is None
    tracker = HeadingTracker()
    for line in ["1 Scope", "2 Terms", "3 Requirements", "4 Tests"]:
        tracker.enter(line)
    assert tracker.goes_backwards("2 x")  # a formula line after chapter 4
    assert not tracker.goes_backwards("1 Part two starts again")


def test_lowercase_roman_chapters_continue_and_order_like_uppercase_ones():
    """ "Chapter iv" once crashed the numbering (a two-letter number read as one letter)."""
    tracker = HeadingTracker()
    tracker.enter("Chapter iii Methods")
    assert tracker.continues_numbering("Chapter iv Results")
    assert tracker.goes_backwards("Chapter ii Background")
    tracker.enter("Chapter iv Results")
    assert tracker.continues_numbering("CHAPTER V Discussion")
    assert not tracker.continues_numbering("Chapter vii Outlook")
