"""The MinerU adapter with the real MinerU 4.0.12: raw output, cache, bad input, missing weights."""

from __future__ import annotations

import json
import shutil
import socket
import time

import pytest

from kb_pipeline.parsing import cache
from kb_pipeline.parsing import config as config_module
from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.parsing.errors import (
    CorruptPdfError,
    EmptyFileError,
    EncryptedPdfError,
    MissingModelWeightsError,
    NotAPdfError,
    OcrUnavailableError,
    SourceChangedError,
)
from kb_pipeline.pipeline import Parsing, content_hash_of, parse_raw
from kb_pipeline_tests.samples import text_pdf

from .conftest import FIXTURE_PDFS, SAMPLE_DOCS


def _parse(pdf, layout, config: ParserConfig | None = None):
    return parse_raw(pdf, content_hash_of(pdf), Parsing.in_process(config or ParserConfig(), layout))


def test_raw_output_is_complete_untouched_and_has_no_base64(layout, mineru_calls):
    pdf = SAMPLE_DOCS / "STD_2026_006_parameter_produksi.pdf"
    ref = _parse(pdf, layout)
    assert not ref.cache_hit and len(mineru_calls) == 1
    names = {p.name for p in ref.path.iterdir()}
    assert {
        "middle_json.json",
        "content_list.json",
        "content_list_v2.json",
        "markdown.md",
        "images",
        "origin.pdf",
        cache.COMPLETE_MARKER,
    } <= names
    assert "model_output.json" not in names
    content_list = (ref.path / "content_list.json").read_text(encoding="utf-8")
    assert "base64" not in content_list
    images = [item["img_path"] for item in json.loads(content_list) if item.get("img_path")]
    assert images and all((ref.path / image).is_file() for image in images)
    assert ref.path.name == f"{content_hash_of(pdf)[:16]}-{ParserConfig().fingerprint}-4.0.12"
    # What ran is read back from MinerU's own output, not from what was asked.
    assert ref.marker["tier"] == "flash" and ref.marker["parse_mode"] == "txt"
    assert ref.marker["mineru_version"] == "4.0.12"
    assert (ref.path / "origin.pdf").read_bytes() == pdf.read_bytes()


def test_cache_hit_calls_mineru_zero_times(layout, mineru_calls):
    pdf = FIXTURE_PDFS / "unittest_test.pdf"
    first = _parse(pdf, layout)
    again = _parse(pdf, layout)
    assert len(mineru_calls) == 1
    assert again.cache_hit and again.path == first.path and again.parse_seconds == 0.0


def test_config_change_gives_a_new_cache_dir(layout, mineru_calls):
    pdf = FIXTURE_PDFS / "unittest_test.pdf"
    default = _parse(pdf, layout)
    no_images = _parse(pdf, layout, ParserConfig(keep_images=False))
    assert no_images.path != default.path and len(mineru_calls) == 2
    assert not (no_images.path / "images").exists()
    # A guard setting is not an output setting: same fingerprint, same cache entry.
    assert ParserConfig(max_pages=5).fingerprint == ParserConfig().fingerprint
    assert ParserConfig(page_range="all").fingerprint == ParserConfig().fingerprint
    assert ParserConfig(page_range="1-2").fingerprint != ParserConfig().fingerprint


def test_the_code_that_rewrites_the_pdf_is_in_the_fingerprint(monkeypatch):
    # What cached_parse runs on the PDF before MinerU (the preflight's OCR decision, Tesseract's
    # text layer, pages turned upright) changes what MinerU reads: a new version re-parses.
    from kb_pipeline import versions
    from kb_pipeline.parsing import cached_parse

    before_mineru = {cached_parse.preflight.__module__, cached_parse.ocr.__name__, cached_parse.upright.__name__}
    assert {f"kb_pipeline.parsing.{p.stem}" for p in versions.PREPROCESS_SOURCES} == before_mineru
    assert versions.PREPROCESS_VERSION == versions.source_fingerprint(versions.PREPROCESS_SOURCES)
    before = ParserConfig().fingerprint
    monkeypatch.setattr(config_module, "PREPROCESS_VERSION", "0" * 12)
    assert ParserConfig().fingerprint != before
    assert ParserConfig().output_settings()["preprocess"] == "0" * 12


def test_an_incomplete_cache_dir_is_never_read_as_complete(layout, mineru_calls):
    pdf = FIXTURE_PDFS / "unittest_test.pdf"
    ref = _parse(pdf, layout)
    (ref.path / cache.COMPLETE_MARKER).unlink()  # as if killed between the files and the marker
    assert cache.complete_dir(layout.parse_cache, ref.path.name) is None
    again = _parse(pdf, layout)
    assert not again.cache_hit and len(mineru_calls) == 2
    assert (again.path / cache.COMPLETE_MARKER).is_file()


def test_abandoned_temp_dirs_of_dead_processes_are_cleaned(layout):
    key = "0123456789abcdef-000000000000-4.0.12"
    layout.parse_cache.mkdir(parents=True)
    abandoned = layout.parse_cache / f".tmp-{key}-{socket.gethostname()}-999999999-deadbeef"
    # Another host's temp dir is that host's business, whatever its pid says here.
    elsewhere = layout.parse_cache / f".tmp-{key}-some-other-host-999999999-cafebabe"
    elsewhere.mkdir(parents=True)
    abandoned.mkdir()
    (abandoned / "content_list.json").write_text("[]")
    path = cache.write_atomically(layout.parse_cache, key, lambda tmp: {"ok": True})
    assert not abandoned.exists() and elsewhere.exists() and cache.read_marker(path) == {"ok": True}


def test_failed_fill_leaves_nothing_behind(layout):
    def explode(tmp):
        (tmp / "half.json").write_text("{")
        raise RuntimeError("killed mid-write")

    with pytest.raises(RuntimeError):
        cache.write_atomically(layout.parse_cache, "k", explode)
    assert list(layout.parse_cache.iterdir()) == []


@pytest.mark.parametrize(
    "make, error",
    [
        (lambda p: p.write_bytes(b""), EmptyFileError),
        (lambda p: p.write_text("just some notes, not a PDF\n"), NotAPdfError),
        (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64), NotAPdfError),
        (lambda p: p.write_bytes((FIXTURE_PDFS / "demo2.pdf").read_bytes()[:30000]), CorruptPdfError),
        (lambda p: text_pdf(p, ["secret text"], encrypt="secret"), EncryptedPdfError),
    ],
)
def test_bad_input_fails_fast_with_a_clear_error(tmp_path, layout, mineru_calls, make, error):
    pdf = tmp_path / "bad.pdf"
    make(pdf)
    started = time.perf_counter()
    with pytest.raises(error) as caught:
        _parse(pdf, layout)
    assert time.perf_counter() - started < 10
    assert "bad.pdf" in str(caught.value)
    assert mineru_calls == []  # caught before MinerU spends time on it
    assert not any(layout.parse_cache.iterdir())  # and nothing half-written is left


def test_scanned_pdf_without_ocr_weights_or_tesseract_says_how_to_install_them(layout, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))  # Tesseract and OCRmyPDF unfindable
    started = time.perf_counter()
    with pytest.raises(OcrUnavailableError) as caught:
        _parse(FIXTURE_PDFS / "scanned_small_ocr.pdf", layout)
    assert time.perf_counter() - started < 10
    message = str(caught.value)
    assert (
        "scanned" in message
        and "mineru-models-download" in message
        and "apt-get install tesseract-ocr ocrmypdf" in message
    )


@pytest.mark.parametrize("tier", ["basic", "standard", "advanced"])
def test_higher_tier_without_weights_fails_within_seconds(layout, tier):
    started = time.perf_counter()
    with pytest.raises(MissingModelWeightsError) as caught:
        _parse(FIXTURE_PDFS / "unittest_test.pdf", layout, ParserConfig(tier=tier))
    assert time.perf_counter() - started < 10
    assert f"Tier {tier!r}" in str(caught.value) and "tier 'flash'" in str(caught.value)


def test_mineru_is_configured_never_to_reach_the_network(layout):
    _parse(SAMPLE_DOCS / "pump_maintenance_manual.pdf", layout)
    import mineru.config

    assert mineru.config.config.model.source == "local"


def test_a_file_changed_after_hashing_is_not_cached_under_the_old_hash(tmp_path, layout, mineru_calls):
    pdf = tmp_path / "moving.pdf"
    shutil.copy(SAMPLE_DOCS / "pump_maintenance_manual.pdf", pdf)
    stale_hash = content_hash_of(pdf)
    shutil.copy(SAMPLE_DOCS / "STD_2026_006_parameter_produksi.pdf", pdf)
    with pytest.raises(SourceChangedError):
        parse_raw(pdf, stale_hash, Parsing.in_process(ParserConfig(), layout))
    assert mineru_calls == [] and not any(layout.parse_cache.iterdir())
