"""The hard pages of real documents (issue 21), parsed by the real MinerU (flash): theorem-like
run-in labels and alternating running heads in a generated mathematics paper, section names
set as body text in a generated report, and text-layer lines MinerU lost on corpus tables."""

from __future__ import annotations

import pytest

from kb_pipeline.normalise.headings import heading_rejection
from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.parsing.raw_output import load_raw_output
from kb_pipeline.pipeline import Parsing, process_document
from kb_pipeline_tests.samples import math_paper_pdf, text_pdf

LABELS = ["Definition 1.", "Lemma 2.", "Proposition 3.", "Proof.", "Theorem 4 (Main result).", "Remark 5."]


@pytest.fixture(scope="module")
def math_paper(tmp_path_factory, parses):
    pdf = tmp_path_factory.mktemp("math") / "convergence.pdf"
    math_paper_pdf(pdf)
    return parses.run(pdf)


def test_theorem_like_labels_are_run_in_labels_of_their_paragraph_not_sections(math_paper):
    raw = load_raw_output(math_paper.raw.path)
    # MinerU does call the bold labels titles: the rule, not the parser, keeps them out.
    assert any(item.get("text_level") and item.get("text", "").strip() in LABELS for item in raw.items)
    chunks = math_paper.document.chunks
    headings = {line for chunk in chunks for line in chunk.heading_path}
    assert headings == {
        "Convergence of partial sums in closed subspaces",
        "1 Introduction",
        "2 Preliminaries",
        "3 Main results",
        "4 Applications",
    }
    text = "\n\n".join(chunk.text for chunk in chunks)
    for label in LABELS:
        assert label in text  # kept, verbatim, with the paragraph it opens
    assert math_paper.checks["text_verbatim"].passed


def test_theorem_label_rule_leaves_titled_examples_and_plain_words_alone():
    """Isolates the line rule: the label with a number or a full stop, in several languages."""
    for label in ["Definition 6 ((", "Proposition 3.", "Théorème 2 (Banach)", "Lemma 2.1", "Satz 3.", "Proof."]:
        assert heading_rejection(label) == "theorem-like label", label
    for title in [
        "Example: Dynamically cleaning up corrupt PDF documents",
        "Examples",
        "Definitions",
        "3.2 Proof",
        "Observation 1. Lack of segregation of duties",
        "Example 2. Computing availability",
    ]:
        assert heading_rejection(title) is None, title


def test_alternating_running_heads_are_furniture(math_paper):
    """The authors stand on pages 2, 4 and 6, the short title on pages 3 and 5 only: each
    recurs on every other page, which is how journals set them, so neither is body text."""
    for chunk in math_paper.document.chunks:
        assert "J. Aligon et al." not in chunk.text
        assert "Partial sums in subspaces" not in chunk.text
    assert any("Partial sums in subspaces" in chunk.chapters for chunk in math_paper.document.chunks)


def _recovered(run) -> list:
    return [chunk for chunk in run.document.chunks if not chunk.source_items]


def test_table_rows_mineru_lost_are_recovered_from_the_text_layer_after_their_table(corpus_run):
    """MinerU reads the header rows (set on two lines) and the rows under a spanning cell of
    this table into cells that no longer hold them as rows; the text layer's lines inside the
    table's box are put back, verbatim and in their order, in a chunk right after the table."""
    run = corpus_run("table_nnmb_column_spans")
    chunks = run.document.chunks
    (recovered,) = _recovered(run)
    table = chunks[chunks.index(recovered) - 1]
    assert table.kind == "table" and recovered.kind == "text"
    assert recovered.heading_path == table.heading_path and recovered.page_idxs == [0]
    assert recovered.text.split("\n")[:2] == [
        "Investigations No. of Age/Sex/ Preva- C.I* Relative Sample size",
        "HHs Physiological Group lence Precision per State",
    ]
    assert [c.chunk_id for c in chunks] == [f"table_nnmb_column_spans::{n:04d}" for n in range(len(chunks))]
    assert run.checks["text_verbatim"].passed
    # What stays lost is the page's running head (furniture is never put back), and is said.
    (lost,) = [w for w in run.warnings if w.jenis == "teks_hilang"]
    assert "NNMB Rural-Third Repeat Survey" in lost.detail
    assert not any("NNMB Rural-Third Repeat Survey" in c.text for c in chunks)


def test_a_page_that_lost_most_of_its_lines_gets_back_only_what_is_lost(corpus_run):
    """A three-column notice: the text layer's lines run across the columns, so most of them are
    not found as such although MinerU kept the columns' text. Only what is really missing (the
    masthead line) comes back; the columns' text is not said a second time, garbled."""
    run = corpus_run("table_irs_withholding_methods")
    (recovered,) = _recovered(run)
    assert recovered.page_idxs == [0]
    assert recovered.text == "Department of the Treasury Notice 1036 Internal Revenue Service (Rev. December 2010)"
    page_text = " ".join(c.text for c in run.document.chunks if c.page_idx == 0)
    assert page_text.count("This notice includes the 2011 Percentage Method Tables") == 1
    # Page 0's chunks all run on to page 1 but one: the line goes before those, not after page 1's text.
    order = [c.chunk_id for c in run.document.chunks]
    running_on = next(c for c in run.document.chunks if c.page_idxs == [0, 1])
    assert order.index(recovered.chunk_id) < order.index(running_on.chunk_id)
    assert run.checks["text_verbatim"].passed


def test_section_names_set_as_body_text_open_their_sections(tmp_path, layout):
    """ "Résultats" and "Discussion" in the body font: MinerU joins each to the paragraph under
    it. A standard section name on a line of its own opening a paragraph is its heading."""
    pdf = tmp_path / "etude.pdf"
    text_pdf(
        pdf,
        [
            "Le présent rapport décrit les mesures effectuées sur le site pendant la saison sèche.",
            "Résultats",
            "Les mesures montrent une production moyenne de 1 250 kWh par kilowatt-crête installé.",
            "Discussion",
            "Ces valeurs confirment les estimations de l'étude de faisabilité du chantier.",
        ],
    )
    run = process_document(pdf, Parsing.in_process(ParserConfig(), layout))
    by_path = {tuple(c.heading_path): c.text for c in run.document.chunks}
    assert by_path[("Résultats",)].startswith("Les mesures montrent")
    assert by_path[("Discussion",)].startswith("Ces valeurs confirment")
    assert run.checks["text_verbatim"].passed
