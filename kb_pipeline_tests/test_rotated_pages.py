"""Rotated pages (issue 29), parsed by the real MinerU (flash): a wide table on a landscape page
drawn rotated and shown upright by `/Rotate 90`, and the same table drawn rotated on a portrait
page (the reader turns the paper). MinerU reads the text of both, but splits the words of
rotated text ("201 9 actual", "3, 1 37"); the copy it parses has such pages drawn upright."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.parsing.mineru_adapter import ORIGINAL_COPY
from kb_pipeline.parsing.upright import upright_copy
from kb_pipeline.paths import DataLayout
from kb_pipeline.pipeline import Parsing, process_document
from kb_pipeline_tests.samples import write_with_second_page_turned

HEADER = ["Programme", "2019 actual", "2020 actual", "2021 actual", "2022 budget", "2023 budget", "2024 forecast"]
NAMES = ["Primary health clinics", "District hospitals", "Water and sanitation", "Rural road maintenance"]
ROWS = [HEADER] + [[name] + [f"{(i + 3) * 1000 + k * 137:,}" for k in range(6)] for i, name in enumerate(NAMES)]
CAPTION = "Table 3. Expenditure by programme, 2019 to 2024 (thousand euros)"


def _landscape_table(c, width: float, height: float) -> None:
    from reportlab.lib import colors
    from reportlab.platypus import Table, TableStyle

    c.setFont("Helvetica-Bold", 13)
    c.drawString(50, height - 60, CAPTION)
    style = [
        ("FONTSIZE", (0, 0), (-1, -1), 9),
        ("FONT", (0, 0), (-1, 0), "Helvetica-Bold"),
        ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
    ]
    table = Table(ROWS, colWidths=[150] + [85] * 6, style=TableStyle(style))
    _w, h = table.wrapOn(c, width - 100, height - 150)
    table.drawOn(c, 50, height - 90 - h)


def rotated_table_pdf(path: Path, *, shown_upright: bool) -> None:
    """Three A4 pages; the middle one holds a landscape table whose content is drawn turned a
    quarter anticlockwise on a portrait page: with `/Rotate 90` (`shown_upright`) it displays as
    an upright landscape page, without it the reader turns the paper."""
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.pdfgen.canvas import Canvas
    from reportlab.platypus import Frame, Paragraph

    width, height = A4
    ss = getSampleStyleSheet()
    buffer = io.BytesIO()
    c = Canvas(buffer, pagesize=A4, invariant=True)
    for title, body in [
        ("1 Budget overview", "The budget of the ministry grew in each of the years this report covers."),
        (None, None),
        ("2 Outlook", "The forecast assumes that the programmes continue at their present scale."),
    ]:
        if title is None:
            c.setPageSize((height, width))
            _landscape_table(c, height, width)
        else:
            c.setPageSize(A4)
            story = [Paragraph(title, ss["Heading1"]), *[Paragraph(body, ss["BodyText"])] * 3]
            Frame(60, 60, width - 120, height - 120).addFromList(story, c)
        c.showPage()
    c.save()
    write_with_second_page_turned(buffer, path, shown_upright=shown_upright)


@pytest.fixture(scope="module")
def runs(parses, tmp_path_factory):
    folder = tmp_path_factory.mktemp("rotated")
    out = {}
    for name, shown_upright in [("rotate", True), ("portrait", False)]:
        pdf = folder / f"{name}.pdf"
        rotated_table_pdf(pdf, shown_upright=shown_upright)
        out[name] = parses.run(pdf)
    return out


def _page_text(run, page_idx: int) -> str:
    return "\n".join(c.text for c in run.document.chunks if c.page_idx == page_idx)


@pytest.mark.parametrize("name", ["rotate", "portrait"])
def test_a_rotated_table_keeps_its_rows_with_their_words_whole(runs, name):
    run = runs[name]
    (table,) = [c for c in run.document.chunks if c.kind == "table"]
    assert table.page_idx == 1
    lines = table.text.split("\n")
    assert " | ".join(HEADER) in lines
    assert "Primary health clinics | 3,000 | 3,137 | 3,274 | 3,411 | 3,548 | 3,685" in lines
    assert "201 9" not in table.text and "3, 1 37" not in table.text
    assert CAPTION in _page_text(run, 1)
    assert run.checks["text_verbatim"].passed and run.checks["text_coverage"].passed
    # The text around the rotated page is read as before, in its sections.
    assert any(c.heading_path == ["2 Outlook"] and c.page_idx == 2 for c in run.document.chunks)


def test_the_copy_mineru_parsed_has_the_page_upright_and_the_dropped_file_is_kept(runs):
    import pypdfium2

    raw_dir = runs["portrait"].raw.path
    marker = json.loads((raw_dir / "_COMPLETE.json").read_text(encoding="utf-8"))
    assert marker["upright"] == {"pages": {"1": 90}, "original": ORIGINAL_COPY}
    parsed = pypdfium2.PdfDocument(str(raw_dir / "origin.pdf"))
    width, height = parsed[1].get_size()
    assert parsed[1].get_rotation() == 0 and width > height
    assert (raw_dir / ORIGINAL_COPY).is_file()


def test_pages_whose_text_runs_upright_are_left_as_they_are(tmp_path):
    """A portrait document, and one with a short vertical stamp in the margin of its text, are
    not copied."""
    from reportlab.pdfgen.canvas import Canvas

    pdf = tmp_path / "stamped.pdf"
    c = Canvas(str(pdf), invariant=True)
    c.setFont("Helvetica", 10)
    for n in range(30):
        c.drawString(72, 750 - n * 20, f"Line {n} of an ordinary page of running text, set upright.")
    c.saveState()
    c.translate(30, 300)
    c.rotate(90)
    c.drawString(0, 0, "arXiv:2401.00001v1")
    c.restoreState()
    c.showPage()
    c.save()
    assert upright_copy(pdf, tmp_path / "copy.pdf") == {}
    assert not (tmp_path / "copy.pdf").exists()


def test_a_page_mineru_read_nothing_on_gets_its_text_layer_lines_back(tmp_path):
    """Whatever the cause (a page drawn in a way MinerU cannot read), a page with no chunk at
    all loses every line: they come back verbatim, in the text layer's order, between the pages
    around it, in the section open there."""
    from types import SimpleNamespace

    from reportlab.pdfgen.canvas import Canvas

    from kb_pipeline.contracts import Chunk, make_chunk_id
    from kb_pipeline.normalise.recovery import recover_lost_lines
    from kb_pipeline.pdf_text import PdfTextLayer
    from kb_pipeline.quality.text_coverage import measure_text_coverage

    pdf = tmp_path / "three.pdf"
    c = Canvas(str(pdf), invariant=True)
    topics = ["the water supply", "the road network", "the school buildings"]
    pages = [[f"Line {n} of this part of the report is about {topic}." for n in range(4)] for topic in topics]
    for lines in pages:
        for n, line in enumerate(lines):
            c.drawString(72, 700 - 20 * n, line)
        c.showPage()
    c.save()
    chunks = [
        Chunk(chunk_id=make_chunk_id("three", i), doc_id="three", kind="text", text="\n".join(pages[p]),
              page_idx=p, page_idxs=[p], heading_path=["1 Scope"], source_items=[i])
        for i, p in enumerate([0, 2])
    ]  # fmt: skip
    with PdfTextLayer(pdf) as text_layer:
        coverage = measure_text_coverage(chunks, text_layer)
        raw = SimpleNamespace(items=[], n_pages=3, page_idxs=[0, 1, 2])
        lost = coverage.missing_by_page()
        out = recover_lost_lines("three", chunks, raw, [], text_layer, lost, coverage.counted_by_page)  # type: ignore[arg-type]
        assert measure_text_coverage(out, text_layer).coverage == 1.0
        # A page range that left page 1 out (`--page-range 1,3`): its lines are not the parse's to recover.
        ranged = SimpleNamespace(items=[], n_pages=2, page_idxs=[0, 2])
        kept = recover_lost_lines("three", chunks, ranged, [], text_layer, lost, coverage.counted_by_page)  # type: ignore[arg-type]
        assert [c.page_idx for c in kept] == [0, 2]
    assert [c.page_idx for c in out] == [0, 1, 2]
    assert out[1].text == "\n".join(pages[1]) and out[1].heading_path == ["1 Scope"] and not out[1].source_items


def test_a_file_pypdf_cannot_rewrite_gets_no_upright_copy(tmp_path, caplog):
    """A page whose /MediaBox has three numbers: pdfium reads the file (and finds the page
    sideways), pypdf refuses to turn the page: no copy, a warning, no exception."""
    import pypdf
    from pypdf.generic import ArrayObject, FloatObject, NameObject

    pdf = tmp_path / "malformed.pdf"
    rotated_table_pdf(pdf, shown_upright=False)
    writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(str(pdf)))
    writer.pages[1][NameObject("/MediaBox")] = ArrayObject([FloatObject(0), FloatObject(0), FloatObject(595.28)])
    writer.write(pdf)
    copy = tmp_path / "copy.pdf"
    assert upright_copy(pdf, copy) == {}
    assert not copy.exists() and "not turned upright" in caplog.text


def test_a_parse_goes_on_without_turning_when_the_copy_cannot_be_written(tmp_path, monkeypatch):
    """The writer failing as it does on an encrypted or malformed file (monkeypatched: a file
    pypdf cannot rewrite but MinerU parses is hard to make): the document is parsed as it is,
    its sideways page unturned."""
    import pypdf

    def fail(*_args, **_kwargs):
        raise pypdf.errors.PdfReadError("cannot rewrite this file")

    pdf = tmp_path / "portrait.pdf"
    rotated_table_pdf(pdf, shown_upright=False)
    monkeypatch.setattr(pypdf.PdfWriter, "write", fail)
    run = process_document(pdf, Parsing.in_process(ParserConfig(), DataLayout(tmp_path / "data")))
    marker = json.loads((run.raw.path / "_COMPLETE.json").read_text(encoding="utf-8"))
    assert not marker.get("upright") and not (run.raw.path / ORIGINAL_COPY).exists()
    assert CAPTION.split()[0] in _page_text(run, 1)
