"""`kb-pipeline status` output on hand-made statuses (isolates the formatting, no instance):
full names and reasons, wrapped on a terminal, one line per file with --wide."""

from __future__ import annotations

from pathlib import Path

from kb_pipeline.cli.status import FileStatus, format_status

LONG_NAME = "Hydraulic press maintenance handbook, revision 12 (final, approved by QA).pdf"
REASON = (
    "EncryptedPdfError: the PDF is password-protected; remove the password (qpdf --decrypt in.pdf out.pdf) "
    "and drop the decrypted copy into the folder again"
)


def test_names_and_reasons_are_never_cut():
    statuses = [
        FileStatus("a.pdf", "a", "ingested", "version 1, 12 chunks"),
        FileStatus(LONG_NAME, "long", "failed", REASON),
    ]
    wide = format_status(statuses, Path("/drop"), width=None)
    assert LONG_NAME in wide.splitlines() and REASON in wide
    wrapped = format_status(statuses, Path("/drop"), width=100)
    assert LONG_NAME in wrapped.splitlines()
    assert all(len(line) <= 100 for line in wrapped.splitlines() if line != LONG_NAME)
    assert " ".join(REASON.split()) in " ".join(wrapped.split())  # whole, only re-wrapped
    assert wrapped.splitlines()[-1].startswith("2 files: 1 ingested, 1 failed")


def test_an_ingested_document_whose_knowledge_failed_is_ingested_and_a_failure():
    failed = FileStatus(
        "a.pdf", "a", "ingested", "version 1, 12 chunks; knowledge failed: ModelFailed: http://m/v1 unreachable", True
    )
    fine = FileStatus("b.pdf", "b", "ingested", "version 1, 3 chunks; knowledge: 2 terms, 0 rules, 0 formulas")
    assert failed.failed and not fine.failed
    text = format_status([failed, fine], Path("/drop"), width=None)
    assert "knowledge failed: ModelFailed: http://m/v1 unreachable" in text
    assert text.splitlines()[-1].startswith("2 files: 2 ingested, 0 failed")
    assert text.splitlines()[-1].endswith("(1 ingested without knowledge: its extraction failed)")
