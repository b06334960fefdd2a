"""Nothing lost: the full hostile set plus 20 good PDFs through the asset graph, and every file
accounted for in `kb-pipeline status` with a reason a person can act on."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest

from kb_pipeline.cli.ingest import ingest_folder
from kb_pipeline.cli.status import STATES, folder_status, format_status
from kb_pipeline.defs.resources import KnowledgeBase, ParserOptions
from kb_pipeline.paths import DataLayout
from kb_pipeline.sources import doc_id_for
from kb_pipeline_tests.samples import text_pdf

from .conftest import FIXTURE_PDFS

ODD_NAMES = [
    "with space.pdf",
    "ünïcödé 報告.pdf",
    "a,b.pdf",
    "[draft] (v2).pdf",
    ".hidden.pdf",
    "a..b.pdf",
    "x" * 246 + ".pdf",
    "Report.PDF",
]


def _corrupt_stream_pdf(path) -> None:
    """A well-formed PDF whose page content stream is garbage (same length, so the xref holds)."""
    text_pdf(path, ["This text will be destroyed."])
    data = bytearray(path.read_bytes())
    contents = re.search(rb"/Contents (\d+) 0 R", data).group(1)
    start = data.index(b"stream", data.index(b"\n" + contents + b" 0 obj")) + len(b"stream\n")
    end = data.index(b"endstream", start)
    data[start:end] = bytes((i * 37) % 256 for i in range(end - start))
    path.write_bytes(bytes(data))


HOSTILE = {
    "zero.pdf": (lambda p: p.write_bytes(b""), "EmptyFileError"),
    "notes.pdf": (lambda p: p.write_text("meeting notes saved with the wrong extension\n"), "NotAPdfError"),
    "photo.pdf": (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 100), "NotAPdfError"),
    "truncated.pdf": (lambda p: p.write_bytes((FIXTURE_PDFS / "demo1.pdf").read_bytes()[:20000]), "CorruptPdfError"),
    "unopenable.pdf": (lambda p: p.write_bytes(b"%PDF-1.7\n" + b"\0" * 500), "CorruptPdfError"),
    "corrupt_stream.pdf": (_corrupt_stream_pdf, "no usable text layer"),
    "locked.pdf": (lambda p: text_pdf(p, ["confidential"], encrypt="secret"), "EncryptedPdfError"),
    "scanned.pdf": (lambda p: shutil.copy(FIXTURE_PDFS / "scanned_small_ocr.pdf", p), "OcrUnavailableError"),
    "too_long.pdf": (lambda p: shutil.copy(FIXTURE_PDFS / "demo3.pdf", p), "TooManyPagesError"),
}


# Good documents among the hostile ones: enough that a bad file is seen not to disturb its neighbours.
GOOD = 10


@pytest.mark.slow
def test_every_file_is_accounted_for(tmp_path, layout, instance, monkeypatch):
    # No Tesseract on PATH: the scanned PDF fails with its install hint (test_ocr reads scans).
    monkeypatch.setenv("PATH", str(tmp_path / "no-ocr-tools"))
    drop = tmp_path / "drop"
    drop.mkdir()
    for i in range(GOOD):
        text_pdf(drop / f"good_{i:02d}.pdf", [f"{i + 1}. Scope", f"Procedure {i} applies to unit {100 + i}."])
    for name in ODD_NAMES:
        text_pdf(drop / name, [f"A document called {name[:40]}."])
    for name, (make, _expected) in HOSTILE.items():
        make(drop / name)
    outside = tmp_path / "outside.pdf"
    text_pdf(outside, ["outside the drop folder"])
    (drop / "link.pdf").symlink_to(outside)
    (drop / "readme.txt").write_text("not a PDF")

    kb = KnowledgeBase(
        drop_folder=str(drop), data_dir=str(layout.root), parser=ParserOptions(max_pages=9)
    )  # demo3 has 10
    started = time.perf_counter()
    ingest_folder(kb, instance)
    ingest_seconds = time.perf_counter() - started
    statuses = {s.name: s for s in folder_status(kb, instance, now=time.time() + 3600)}
    print(format_status(list(statuses.values()), drop), f"\ningest took {ingest_seconds:.1f} s")

    assert len(statuses) == GOOD + len(ODD_NAMES) + len(HOSTILE) + 2
    assert all(s.state in STATES for s in statuses.values())
    assert {s.state for s in statuses.values()} == {"ingested", "failed", "skipped"}  # nothing unexplained
    for i in range(GOOD):
        assert statuses[f"good_{i:02d}.pdf"].state == "ingested"
    for name in ODD_NAMES:
        assert statuses[name].state == "ingested", (name, statuses[name].detail)
    for name, (_make, expected) in HOSTILE.items():
        assert statuses[name].state == "failed" and expected in statuses[name].detail, (name, statuses[name].detail)
    assert statuses["link.pdf"].state == "skipped" and "symlink" in statuses["link.pdf"].detail
    assert statuses["readme.txt"].state == "skipped"
    # Nothing outside the data root was written, whatever the file names.
    written = [p for p in tmp_path.rglob("*") if p.is_file() and not p.is_relative_to(tmp_path / "drop")]
    assert all(p.is_relative_to(layout.root) or p.is_relative_to(tmp_path / "dagster") or p == outside for p in written)


def test_doc_ids_for_unsafe_names_are_safe_deterministic_and_distinct():
    ids = [doc_id_for(Path(name)) for name in ODD_NAMES]
    assert len(set(ids)) == len(ids)
    for doc_id in ids:
        assert re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_\-]{0,79}", doc_id), doc_id
    assert doc_id_for(Path("Report.PDF")) != doc_id_for(Path("Report.pdf"))
    assert ids == [doc_id_for(Path(name)) for name in ODD_NAMES]


def test_data_layout_refuses_paths_outside_the_root(tmp_path):
    layout = DataLayout(tmp_path.resolve())
    with pytest.raises(ValueError):
        layout.parsed_dir("../../etc")
    assert layout.parsed_dir("doc").is_relative_to(tmp_path.resolve())
