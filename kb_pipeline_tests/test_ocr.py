"""Scanned pages read with Tesseract (through OCRmyPDF) when MinerU's OCR weights are absent:
real tools, real MinerU."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path

import pypdfium2
import pytest

from kb_pipeline.parsing import ocr
from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.parsing.errors import OcrUnavailableError
from kb_pipeline.parsing.mineru_adapter import ORIGINAL_COPY, SOURCE_COPY
from kb_pipeline.pipeline import Parsing, content_hash_of, process_document
from kb_pipeline_tests.samples import text_pdf

from .conftest import FIXTURE_PDFS, SAMPLE_DOCS

pytestmark = pytest.mark.skipif(
    shutil.which("tesseract") is None or shutil.which("ocrmypdf") is None,
    reason="Tesseract/OCRmyPDF not installed (make setup-ocr)",
)

TEXT_PDF = SAMPLE_DOCS / "STD_2026_006_parameter_produksi.pdf"
_WORD = re.compile(r"[^\W\d_]{4,}")


def image_only_pdf(source: Path, out: Path, pages: list[int] | None = None, dpi: int = 200) -> Path:
    """The pages of `source` rendered to greyscale images, as a PDF with no text layer."""
    document = pypdfium2.PdfDocument(str(source))
    indices = range(len(document)) if pages is None else pages
    images = [document[i].render(scale=dpi / 72).to_pil().convert("L") for i in indices]
    document.close()
    images[0].save(out, save_all=True, append_images=images[1:], resolution=float(dpi))
    return out


def without_page_types(pdf: Path) -> Path:
    """`pdf` with "/Type /Page" blanked out of its page dictionaries (same length, so the xref
    offsets hold): pdfium still reads it, pdfminer finds no page, so OCRmyPDF rejects it with
    "InputFileError: pdfminer could not process page 0", as it does some real scans."""
    data = pdf.read_bytes()
    pdf.write_bytes(re.sub(rb"/Type\s*/Page(?![s\w])", lambda m: b" " * len(m.group(0)), data))
    return pdf


def page_text(pdf: Path) -> list[str]:
    document = pypdfium2.PdfDocument(str(pdf))
    try:
        return [document[i].get_textpage().get_text_range() for i in range(len(document))]
    finally:
        document.close()


def test_an_image_only_pdf_is_read_by_ocr_with_its_words_and_headings(tmp_path, layout):
    scan = image_only_pdf(TEXT_PDF, tmp_path / "scanned_standard.pdf")
    assert not "".join(page_text(scan)).strip()  # no text layer at all
    started = time.perf_counter()
    run = process_document(scan, Parsing.in_process(ParserConfig(), layout))
    seconds = time.perf_counter() - started
    document = run.document

    words = _WORD.findall("\n".join(page_text(TEXT_PDF)))
    # A chunk's words: its text, and its heading lines (kept in heading_path, not repeated in text).
    chunk_text = "\n".join([c.text for c in document.chunks] + [h for c in document.chunks for h in c.heading_path])
    found = [w for w in words if w in chunk_text]
    recall = len(found) / len(words)
    print(
        f"\nOCR word recall {recall:.3f} ({len(found)}/{len(words)} words of >= 4 letters); "
        f"{document.n_pages} pages in {seconds:.1f} s, OCR {run.raw.marker['ocr']['seconds']:.1f} s"
    )
    assert recall >= 0.95, sorted(set(words) - set(found))[:40]

    headings = {h for c in document.chunks for h in c.heading_path}
    for numbered in ("1. PENDAHULUAN", "2. PENJELASAN PARAMETER", "2.1. Production Parameter"):
        assert any(h.startswith(numbered) for h in headings), (numbered, sorted(headings))

    assert document.parser_backend == f"flash/txt+tesseract-{ocr.tesseract_version()}"
    marker = run.raw.marker
    assert marker["ocr"]["pages"] == [0, 1] and marker["ocr"]["langs"] == "eng"
    # The derived copy MinerU parsed and the dropped bytes, side by side in the cache entry.
    assert content_hash_of(run.raw.path / ORIGINAL_COPY) == document.content_hash
    assert "".join(page_text(run.raw.path / SOURCE_COPY)).strip()
    ocr_warnings = [w for w in run.warnings if w.jenis == "teks_ocr"]
    assert [w.page_idx for w in ocr_warnings] == [0, 1] and "machine-read" in ocr_warnings[0].detail
    assert "dokumen_tanpa_teks" not in {w.jenis for w in run.warnings}
    # Verbatim: every chunk's text comes from the OCR text layer MinerU read.
    assert run.checks["text_verbatim"].passed


@pytest.mark.slow
def test_the_scanned_fixture_is_ingested_with_text(layout):
    run = process_document(FIXTURE_PDFS / "scanned_small_ocr.pdf", Parsing.in_process(ParserConfig(), layout))
    marker = run.raw.marker
    n = marker["n_pages"]
    print(
        f"\nscanned_small_ocr: {n} pages, OCR {marker['ocr']['seconds']:.1f} s "
        f"({marker['ocr']['seconds'] / n:.2f} s/page), parse incl. OCR {marker['parse_seconds']:.1f} s"
    )
    text = [c for c in run.document.chunks if c.kind == "text" and c.text.strip()]
    assert marker["ocr"]["pages"] == list(range(n)) and text
    assert sum(len(c.text) for c in text) > 1000
    assert {w.page_idx for w in run.warnings if w.jenis == "teks_ocr"} == set(range(n))
    assert "dokumen_tanpa_teks" not in {w.jenis for w in run.warnings}


def test_a_mixed_pdf_ocrs_only_its_scanned_page(tmp_path, layout):
    text = tmp_path / "text.pdf"
    text_pdf(
        text,
        [
            "1. Scope",
            "This procedure covers the inspection of conveyor belts at every site.",
            "2. Responsibilities",
            "The shift supervisor signs the inspection sheet.",
        ],
    )
    scanned = image_only_pdf(SAMPLE_DOCS / "pump_maintenance_manual.pdf", tmp_path / "scan.pdf")
    mixed = pypdfium2.PdfDocument.new()
    for part in (text, scanned, text):
        source = pypdfium2.PdfDocument(str(part))
        mixed.import_pages(source)
        source.close()
    mixed.save(tmp_path / "mixed.pdf")
    mixed.close()

    run = process_document(tmp_path / "mixed.pdf", Parsing.in_process(ParserConfig(), layout))
    assert run.raw.marker["ocr"]["pages"] == [1] and run.raw.marker["ocr"]["rendered"] is False
    assert [w.page_idx for w in run.warnings if w.jenis == "teks_ocr"] == [1]
    # The text pages are read from their own text layer, unchanged.
    before, after = page_text(tmp_path / "mixed.pdf"), page_text(run.raw.path / SOURCE_COPY)
    assert after[0] == before[0] and after[2] == before[2] and not before[1].strip() and after[1].strip()
    joined = "\n".join(c.text for c in run.document.chunks)
    assert "conveyor belts" in joined and "centrifugal pump" in joined


def test_a_scan_ocrmypdf_cannot_read_is_rendered_and_ocrd(tmp_path, layout):
    scan = without_page_types(image_only_pdf(SAMPLE_DOCS / "pump_maintenance_manual.pdf", tmp_path / "scan.pdf"))
    rejected = subprocess.run(
        ["ocrmypdf", "--redo-ocr", "--quiet", str(scan), str(tmp_path / "ocred.pdf")],
        capture_output=True,
        text=True,
        env=ocr._clean_env(),
    )
    assert rejected.returncode == 2 and "pdfminer could not process page 0" in rejected.stderr

    run = process_document(scan, Parsing.in_process(ParserConfig(), layout))
    assert run.raw.marker["ocr"]["rendered"] is True and run.raw.marker["ocr"]["pages"] == [0]
    text = "\n".join(c.text for c in run.document.chunks)
    assert "centrifugal pump" in text and "bearing temperature" in text
    assert run.checks["text_verbatim"].passed


def test_without_tesseract_a_scanned_pdf_fails_naming_what_to_install(tmp_path, layout, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))  # tesseract and ocrmypdf unfindable
    with pytest.raises(OcrUnavailableError) as caught:
        process_document(FIXTURE_PDFS / "scanned_small_ocr.pdf", Parsing.in_process(ParserConfig(), layout))
    message = str(caught.value)
    assert "tesseract" in message and "apt-get install tesseract-ocr ocrmypdf" in message
    assert "mineru-models-download" in message and not any(layout.parse_cache.iterdir())


def test_a_language_not_installed_names_its_debian_package(tmp_path, layout):
    missing = next(
        lang
        for lang in ("zul", "yor", "tir", "uzb")
        if lang not in ocr._installed_langs(ocr._stamp(shutil.which("tesseract")))
    )
    with pytest.raises(OcrUnavailableError) as caught:
        process_document(
            FIXTURE_PDFS / "scanned_small_ocr.pdf", Parsing.in_process(ParserConfig(ocr_langs=f"eng+{missing}"), layout)
        )
    assert f"apt-get install tesseract-ocr-{missing}" in str(caught.value)
    assert ocr.debian_package("chi_sim") == "tesseract-ocr-chi-sim"


def test_ocr_engine_version_and_languages_are_in_the_fingerprint():
    assert ParserConfig().output_settings()["ocr"] == {
        "engine": f"tesseract-{ocr.tesseract_version()}",
        "ocrmypdf": ocr.ocrmypdf_version(),
        "langs": "eng",
    }
    assert ParserConfig(ocr_langs="eng+deu").fingerprint != ParserConfig().fingerprint
    assert "ocr" not in ParserConfig(parse_mode="txt").output_settings()
    with pytest.raises(ValueError):
        ParserConfig(ocr_langs="eng; rm -rf /")


@pytest.mark.slow
def test_a_scanned_pdf_longer_than_a_window_is_ocrd_once_and_parsed_in_windows(tmp_path, layout):
    """OCR runs on the whole document first, then the OCR'd copy is parsed window by window:
    the same chunks as one unwindowed parse of the same scan."""
    scan = image_only_pdf(TEXT_PDF, tmp_path / "scanned_standard.pdf")
    windowed = process_document(scan, Parsing.in_process(ParserConfig(parse_window=1), layout))
    whole = process_document(scan, Parsing.in_process(ParserConfig(parse_window=0), layout))

    assert [w["pages"] for w in windowed.raw.marker["windows"]] == ["1-1", "2-2"]
    assert "windows" not in whole.raw.marker
    assert windowed.raw.marker["ocr"]["pages"] == whole.raw.marker["ocr"]["pages"] == [0, 1]
    assert [(c.heading_path, c.text) for c in windowed.document.chunks] == [
        (c.heading_path, c.text) for c in whole.document.chunks
    ]
    assert {w.page_idx for w in windowed.warnings if w.jenis == "teks_ocr"} == {0, 1}
    assert windowed.checks["text_verbatim"].passed
