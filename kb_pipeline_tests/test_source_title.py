"""`source_title`: the document's own title — meaningful PDF metadata, else MinerU's first title
item verbatim, else the file stem. The rule, then real MinerU output."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_pipeline.parsing.raw_output import load_raw_output
from kb_pipeline.source_title import choose_source_title, first_title_item, is_meaningful_title, source_title

from .conftest import FIXTURE_PDFS, MINERU_FIXTURES


@pytest.mark.parametrize(
    "title",
    [
        "AMT General Handbook",
        "Standard Parameter Produksi",
        "코로나-19 관련 보험약관상 재해보험금 지급문제 및 개선과제",
        "Qwen2 Technical Report",
        "TCP/IP in practice",
        "High-Performance Computing (HPC) Security",
    ],
)
def test_meaningful_metadata_titles_are_kept(title):
    assert is_meaningful_title(title)


@pytest.mark.parametrize(
    "title",
    [
        None,
        "",
        "   ",
        "none",
        "Untitled",
        "untitled document",
        "Slide 1",
        "Document1",
        "PowerPoint Presentation",
        "Microsoft Word - 22_12_20_PV_VOLTALIA_SERANON_reprise 2021-1.docx",
        "Microsoft Word - report",
        "report.pdf",
        "thesis_final.tex",
        "Annual Report 2020.DOCX",
        r"C:\Users\me\report",
        "/home/me/report",
        "doi:10.1016/j.jhydrol.2005.01.006",
        "10.1000/182",
        "https://example.org/x",
        "12345",
        "2013-04-05",
        "us-018",
        "ED-2013-018",
        "22_12_20_PV",
        "A1",
    ],
)
def test_file_names_tool_defaults_and_ids_are_rejected(title):
    assert not is_meaningful_title(title)


def test_order_metadata_then_first_title_then_stem():
    assert choose_source_title("  Pump Maintenance Manual ", "1. Scope", "pump") == "Pump Maintenance Manual"
    assert choose_source_title("Microsoft Word - pump.doc", "Pump manual", "pump") == "Pump manual"
    assert choose_source_title("", None, "pump") == "pump"


def test_real_documents():
    # demo1's metadata Title is a DOI: the first title item MinerU found, verbatim.
    demo1 = load_raw_output(MINERU_FIXTURES / "demo1")
    assert first_title_item(demo1) == "The response of flow duration curves to afforestation"
    assert (
        source_title(FIXTURE_PDFS / "demo1.pdf", demo1, Path("in/demo1.pdf"))
        == "The response of flow duration curves to afforestation"
    )
    # sample.pdf carries a real Title in its metadata.
    sample = load_raw_output(MINERU_FIXTURES / "sample")
    assert source_title(FIXTURE_PDFS / "sample.pdf", sample, Path("in/sample.pdf")) == "Standard Parameter Produksi"


def test_the_artifact_carries_it(corpus_run):
    """Through the whole core path: no metadata Title and no title item (NCES tables) → the stem."""
    run = corpus_run("table_nces_projections_multipage")
    assert run.document.source_title == "table_nces_projections_multipage"
