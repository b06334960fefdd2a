"""Quality warnings on real MinerU output, and each rule on a chunk made to trip it."""

from __future__ import annotations

import pytest

from kb_pipeline.normalise import build_chunks
from kb_pipeline.parsing.raw_output import load_raw_output
from kb_pipeline.pdf_text import PdfTextLayer
from kb_pipeline.quality.checks import quality_warnings

from .conftest import FIXTURE_PDFS, MINERU_FIXTURES


def _warnings(name: str, edit=None):
    raw = load_raw_output(MINERU_FIXTURES / name)
    with PdfTextLayer(FIXTURE_PDFS / f"{name}.pdf") as text_layer:
        chunks = build_chunks(name, raw, text_layer)
        if edit:
            chunks = edit(chunks)
        return quality_warnings(name, chunks, raw, text_layer)


def _codes(warnings) -> dict[str, int]:
    counts: dict[str, int] = {}
    for w in warnings:
        counts[w.jenis] = counts.get(w.jenis, 0) + 1
    return counts


def test_real_fixtures_give_the_expected_warnings():
    assert _codes(_warnings("sample")) == {}
    demo1 = _codes(_warnings("demo1"))
    assert demo1["formula_tanpa_latex"] == 7  # flash: 7 equations, no LaTeX
    assert demo1["chart_tanpa_konteks"] == 1  # page 0's three logos, one warning per page
    assert demo1["teks_rusak"] >= 1  # the journal's formula font maps glyphs to control codes
    assert "angka_tidak_cocok" not in demo1  # every table number is in the text layer
    assert "dokumen_tanpa_teks" not in demo1


def test_scanned_document_read_as_text_is_flagged():
    codes = _codes(_warnings("scanned_small_ocr"))
    assert codes["dokumen_tanpa_teks"] == 1
    assert codes["chart_tanpa_konteks"] == 8  # one per page of bare image strips


@pytest.mark.parametrize("latex, expected", [("P = 5600 x 2", 0), ("P = 55600 x 2", 1)])
def test_formula_numbers_are_checked_against_the_text_layer(latex, expected):
    """Isolates the formula cross-check: a formula's markup is set on a real chunk of the
    sample fixture, whose page prints "5600"."""
    def edit(chunks):
        return [c.model_copy(update={"latex": [latex]}) if c.section_no == "2.1.2" else c for c in chunks]

    warnings = [w for w in _warnings("sample", edit) if w.jenis == "angka_tidak_cocok"]
    assert len(warnings) == expected
    if expected:
        assert "55600" in warnings[0].detail and warnings[0].chunk_id == "sample::0002"


def test_symbolic_formula_markup_is_flagged():
    def edit(chunks):
        return [c.model_copy(update={"latex": ["P r o d u c t i o n = M O H H x Q t y"]}) if c.section_no == "2.1.1" else c
                for c in chunks]

    assert _codes(_warnings("sample", edit))["latex_tanpa_angka"] == 1


def test_empty_table_garbage_glyphs_and_duplicates_are_flagged():
    def edit(chunks):
        first, second = chunks[0], chunks[1]
        empty_table = first.model_copy(update={"kind": "table", "text": "", "table_html": None, "chunk_id": "sample::0100"})
        garbled = second.model_copy(update={"text": second.text + " (cid:12)(cid:7)"})
        duplicate = chunks[2].model_copy(update={"chunk_id": "sample::0101"})
        return [*chunks, empty_table, garbled, duplicate]

    codes = _codes(_warnings("sample", edit))
    assert codes["tabel_kosong"] == 1 and codes["teks_rusak"] == 1 and codes["chunk_duplikat"] == 1
