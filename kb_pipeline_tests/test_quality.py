"""Quality warnings on real MinerU output, and each rule on a chunk made to trip it."""

from __future__ import annotations

import pytest

from kb_pipeline.normalise import build_chunks
from kb_pipeline.parsing.raw_output import load_raw_output
from kb_pipeline.pdf_text import PdfTextLayer
from kb_pipeline.quality.artifact_checks import check_text_coverage
from kb_pipeline.quality.text_coverage import measure_text_coverage, running_key, squash, squash_line
from kb_pipeline.quality.warnings import quality_warnings

from .conftest import FIXTURE_PDFS, MINERU_FIXTURES


def _chunks(name: str):
    raw = load_raw_output(MINERU_FIXTURES / name)
    with PdfTextLayer(FIXTURE_PDFS / f"{name}.pdf") as text_layer:
        return build_chunks(name, raw, text_layer)


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
    assert demo1["formula_tanpa_latex"] == 3  # flash: 7 equations, no LaTeX, on 3 pages: one warning per page
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
        edited = next(c for c in _chunks("sample") if c.section_no == "2.1.2")
        assert "55600" in warnings[0].detail and warnings[0].chunk_id == edited.chunk_id


def test_symbolic_formula_markup_is_flagged():
    def edit(chunks):
        return [
            c.model_copy(update={"latex": ["P r o d u c t i o n = M O H H x Q t y"]}) if c.section_no == "2.1.1" else c
            for c in chunks
        ]

    assert _codes(_warnings("sample", edit))["latex_tanpa_angka"] == 1


def test_empty_table_garbage_glyphs_and_duplicates_are_flagged():
    def edit(chunks):
        first, second = chunks[0], chunks[1]
        empty_table = first.model_copy(
            update={"kind": "table", "text": "", "table_html": None, "chunk_id": "sample::0100"}
        )
        garbled = second.model_copy(update={"text": second.text + " (cid:12)(cid:7)"})
        duplicate = chunks[2].model_copy(update={"chunk_id": "sample::0101"})
        return [*chunks, empty_table, garbled, duplicate]

    codes = _codes(_warnings("sample", edit))
    assert codes["tabel_kosong"] == 1 and codes["teks_rusak"] == 1 and codes["chunk_duplikat"] == 1


def test_formulas_without_markup_are_counted_per_page():
    per_page = {w.page_idx: w.detail for w in _warnings("demo1") if w.jenis == "formula_tanpa_latex"}
    assert sorted(per_page) == [2, 3, 4]
    assert per_page[3].startswith("4 formula(s)") and "41, 46, 49, 51" in per_page[3]
    assert sum(int(detail.split()[0]) for detail in per_page.values()) == 7


def test_private_use_glyphs_are_flagged_with_their_count_and_code_points():
    """demo2's bracket glyphs come through MinerU as U+F8F1–U+F8F4; the text keeps them verbatim."""
    raw = load_raw_output(MINERU_FIXTURES / "demo2")
    with PdfTextLayer(FIXTURE_PDFS / "demo2.pdf") as text_layer:
        chunks = build_chunks("demo2", raw, text_layer)
        warnings = [w for w in quality_warnings("demo2", chunks, raw, text_layer) if w.jenis == "glif_pribadi"]
    assert warnings
    flagged = {c.chunk_id: c for c in chunks if any("\ue000" <= ch <= "\uf8ff" for ch in c.text)}
    assert {w.chunk_id for w in warnings} == set(flagged)
    for warning in warnings:
        text = flagged[warning.chunk_id].text
        count = sum("\ue000" <= ch <= "\uf8ff" for ch in text)
        assert warning.detail.startswith(f"{count} private-use character(s)")
        assert all(f"U+{ord(ch):04X}" in warning.detail for ch in set(text) if "\ue000" <= ch <= "\uf8ff")


def _coverage(name: str, edit=None):
    raw = load_raw_output(MINERU_FIXTURES / name)
    with PdfTextLayer(FIXTURE_PDFS / f"{name}.pdf") as text_layer:
        chunks = build_chunks(name, raw, text_layer)
        chunks = edit(chunks) if edit else chunks
        coverage = measure_text_coverage(chunks, text_layer)
        return chunks, coverage, quality_warnings(name, chunks, raw, text_layer, coverage)


def test_text_coverage_is_complete_on_a_well_read_document():
    _built, coverage, warnings = _coverage("sample")
    assert coverage.counted >= 10 and coverage.coverage == 1.0
    outcome = check_text_coverage(coverage)
    assert outcome.passed and outcome.metadata["coverage"] == 1.0 and outcome.metadata["first_missing"] == []
    assert not [w for w in warnings if w.jenis == "teks_hilang"]


def test_lost_text_fails_the_coverage_check_and_warns_on_its_page():
    """Isolates the coverage check: one real chunk of the sample fixture is dropped, as a
    normaliser bug that loses an item would."""
    dropped = {}

    def edit(chunks):
        victim = max((c for c in chunks if c.kind == "text"), key=lambda c: len(c.text))
        dropped["chunk"] = victim
        return [c for c in chunks if c is not victim]

    _built, coverage, warnings = _coverage("sample", edit)
    victim = dropped["chunk"]
    outcome = check_text_coverage(coverage)
    assert not outcome.passed and outcome.metadata["coverage"] < 0.99
    first = outcome.metadata["first_missing"]
    assert 0 < len(first) <= 10 and all(m["page_no"] == victim.page_no for m in first)
    assert all(squash_line(m["text"]) in squash(victim.text) for m in first)
    lost = [w for w in warnings if w.jenis == "teks_hilang"]
    assert [w.page_idx for w in lost] == [victim.page_idx]
    assert lost[0].detail.startswith(f"{len(coverage.missing)} line(s)") and first[0]["text"][:40] in lost[0].detail


def test_coverage_squashing_follows_the_corpus_scorer():
    assert squash("The “quick”  fox\u00ad — jumps . . . . 12 | x") == 'The"quick"fox-jumps12x'
    assert squash_line("a hyphen-") == "ahyphen"
    assert (
        running_key("12 Annual report of the board xi")
        == running_key("Annual report of the board Page 7")
        == "Annualreportoftheboard"
    )


def test_a_block_read_across_both_columns_is_flagged(tmp_path):
    """Isolates the column check: a real two-column PDF (reportlab, real text layer) and
    hand-made MinerU items over it — one block spanning both columns read line by line across
    the gutter (interleaved), one spanning both but read column after column (fine), and one
    full-width paragraph on a one-column page (its halves alternate too, but text crosses the
    middle)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    from kb_pipeline.parsing.raw_output import RawOutput
    from kb_pipeline.quality.layout import interleaved_items

    width, height = A4
    left = [f"Left column line {n} about the pump housing" for n in range(6)]
    right = [f"Right column line {n} about valve seating" for n in range(6)]
    full = [f"A full width line {n} of one column text that runs across the middle of the page" for n in range(6)]
    pdf = tmp_path / "columns.pdf"
    page = canvas.Canvas(str(pdf), pagesize=A4)
    for n, (a, b) in enumerate(zip(left, right)):
        y = height - 100 - 14 * n
        page.drawString(50, y, a)
        page.drawString(width / 2 + 20, y, b)
    page.showPage()
    for n, line in enumerate(full):
        page.drawString(50, height - 100 - 14 * n, line)
    page.save()

    def box(x0, x1, lines):  # 0–1000 of the page, top left origin
        return [
            round(x0 / width * 1000),
            round((100 - 12) / height * 1000),
            round(x1 / width * 1000),
            round((100 + 14 * lines) / height * 1000),
        ]

    items = [
        {"type": "text", "page_idx": 0, "bbox": box(48, width / 2 - 10, 6)},
        {"type": "text", "page_idx": 0, "bbox": box(width / 2 + 18, width - 20, 6)},
        {"type": "text", "page_idx": 0, "bbox": box(48, width - 20, 6)},
        {"type": "text", "page_idx": 0, "bbox": box(48, width - 20, 6)},
        {"type": "text", "page_idx": 1, "bbox": box(48, width - 20, 6)},
        # Narrow blocks on both sides make page 2 look two-column too: only the gutter tells.
        {"type": "text", "page_idx": 1, "bbox": box(48, width / 2 - 10, 1)},
        {"type": "text", "page_idx": 1, "bbox": box(width / 2 + 18, width - 20, 1)},
    ]
    halves = [(line[: len(line) // 2], line[len(line) // 2 :]) for line in full]
    texts = [
        " ".join(left),
        " ".join(right),
        " ".join(x for pair in zip(left, right) for x in pair),
        " ".join(left + right),
        " ".join(full),
        halves[0][0],
        halves[0][1],
    ]
    raw = RawOutput(
        path=tmp_path,
        items=items,
        items_v2=[],
        mineru_version="4.0.12",
        tier="flash",
        parse_mode="txt",
        page_idxs=[0, 1],
        positions=[],
    )
    with PdfTextLayer(pdf) as text_layer:
        assert interleaved_items(raw, texts, text_layer) == [2]
