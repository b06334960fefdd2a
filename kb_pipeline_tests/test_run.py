"""The batch producer end to end with the real MinerU: the contract's run directory, failures
recorded per document while the others finish, artifact versions."""

from __future__ import annotations

import json
import shutil

import pytest

from kb_pipeline.batch import run_batch
from kb_pipeline.cli.run import main
from kb_pipeline.contracts import ParsedDocument, ParseFailure
from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.run_manifest import ParsedEntry, RunTotals, SkippedFile
from kb_pipeline.versions import NORMALISER_VERSION
from kb_pipeline_tests.samples import text_pdf

from .conftest import FIXTURE_PDFS, SAMPLE_DOCS


def _add_bad_input(folder):
    (folder / "zero.pdf").write_bytes(b"")
    (folder / "notes.pdf").write_text("meeting notes, saved with the wrong extension\n")
    (folder / "truncated.pdf").write_bytes((FIXTURE_PDFS / "demo1.pdf").read_bytes()[:20000])
    text_pdf(folder / "locked.pdf", ["confidential"], encrypt="secret")
    shutil.copy(FIXTURE_PDFS / "scanned_small_ocr.pdf", folder / "scanned.pdf")
    (folder / "readme.txt").write_text("not a PDF")
    return folder


@pytest.mark.slow
def test_batch_writes_the_contract_layout_and_isolates_failures(drop, layout, capsys, tmp_path, monkeypatch):
    # No Tesseract on PATH: the scanned PDF fails with its install hint (test_ocr reads scans).
    monkeypatch.setenv("PATH", str(tmp_path / "no-ocr-tools"))
    folder = _add_bad_input(drop)
    manifest = run_batch(folder, layout.runs, ParserConfig(), layout)
    run_dir = layout.runs / manifest.run_id
    assert manifest.run_dir == run_dir
    assert (run_dir / "manifest.json").read_text() == manifest.to_json()
    # The record's key order, as consumers of the contract read it.
    written = json.loads((run_dir / "manifest.json").read_text())
    assert list(written) == [
        "run_id", "started_at", "input", "parser_config", "parser_name", "parser_version", "normaliser_version",
        "documents", "skipped", "warnings", "finished_at", "seconds", "totals",
    ]  # fmt: skip
    entries = {d["status"]: list(d) for d in written["documents"]}
    assert entries["failed"] == ["doc_id", "source_path", "status", "error_type", "message", "expected", "seconds"]
    assert entries["ok"] == [
        "doc_id", "source_path", "status", "version", "pages", "chunks", "chunks_by_kind", "warnings", "cache_hit",
        "raw_output_dir", "checks", "timings", "seconds",
    ]  # fmt: skip

    failures = [
        ParseFailure.model_validate_json(line) for line in (run_dir / "failures.jsonl").read_text().splitlines()
    ]
    by_doc = {f.doc_id: f for f in failures}
    assert {d: f.error_type for d, f in by_doc.items()} == {
        "zero": "EmptyFileError",
        "notes": "NotAPdfError",
        "truncated": "CorruptPdfError",
        "locked": "EncryptedPdfError",
        "scanned": "OcrUnavailableError",
    }
    assert all(f.message and f.traceback for f in failures)

    ok = [d for d in manifest.documents if isinstance(d, ParsedEntry)]
    assert sorted(d.doc_id for d in ok) == [
        "STD_2026_006_parameter_produksi",
        "pump_maintenance_manual",
        "unittest_test",
    ]
    for d in ok:
        doc = ParsedDocument.model_validate_json((run_dir / d.doc_id / "chunks.json").read_text())
        assert doc.chunks and doc.normaliser_version == NORMALISER_VERSION
        assert doc.parser_version == "4.0.12" and doc.parser_backend == "flash/txt"
        assert doc.parser_config == ParserConfig().fingerprint and doc.version == 1
        pointer = (run_dir / d.doc_id / "mineru-source.txt").read_text().splitlines()[0]
        assert pointer == doc.raw_output_dir
        assert d.timings["parse_seconds"] > 0
        coverage = d.checks["text_coverage"]
        assert coverage["passed"] and coverage["coverage"] >= 0.99 and coverage["first_missing"] == []
    assert manifest.skipped == [SkippedFile(path=str(folder / "readme.txt"), reason="not a PDF (suffix '.txt')")]
    assert manifest.totals == RunTotals(documents=8, ok=3, failed=5, skipped=1, warnings=len(manifest.warnings))
    progress = capsys.readouterr().err
    assert "[1/8]" in progress and "FAILED EncryptedPdfError" in progress


def test_rerun_keeps_the_version_and_a_changed_document_bumps_it(tmp_path, layout):
    folder = tmp_path / "drop"
    folder.mkdir()
    text_pdf(folder / "policy.pdf", ["1. Scope", "The policy applies to all sites."])
    first = run_batch(folder, layout.runs, ParserConfig(), layout)
    again = run_batch(folder, layout.runs, ParserConfig(), layout)
    [unchanged] = again.documents
    assert isinstance(unchanged, ParsedEntry) and unchanged.cache_hit and unchanged.version == 1
    text_pdf(folder / "policy.pdf", ["1. Scope", "The policy applies to all sites and contractors."])
    changed = run_batch(folder, layout.runs, ParserConfig(), layout)
    [bumped] = changed.documents
    assert isinstance(bumped, ParsedEntry) and not bumped.cache_hit and bumped.version == 2
    assert first.run_id != again.run_id != changed.run_id
    latest = ParsedDocument.model_validate_json((layout.root / "parsed" / "policy" / "chunks.json").read_text())
    assert latest.version == 2 and "contractors" in latest.chunks[0].text


def test_cli_exit_code_and_summary(tmp_path, layout, capsys):
    folder = tmp_path / "drop"
    folder.mkdir()
    shutil.copy(SAMPLE_DOCS / "pump_maintenance_manual.pdf", folder)
    assert main(["--input", str(folder)]) == 0
    assert "1 ok, 0 failed" in capsys.readouterr().out
    (folder / "zero.pdf").write_bytes(b"")
    assert main(["--input", str(folder)]) == 1
