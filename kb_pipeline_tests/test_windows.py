"""Long documents in page windows, with the real MinerU: the same raw output and chunks as one
unwindowed parse, and a failing window fails the document without a partial cache entry.

The document is a generated 48-page text PDF (40 lines a page, a numbered heading every 8
pages) with window 20: three windows, two boundaries, one crossed by a paragraph (pages 20→21)
and one by a ruled table (pages 40→41, a section opening on 41). 48 pages rather than the
issue's 300 keep the two parses (windowed and not) near 8 s of the suite's time; what is
tested — boundaries crossed by a paragraph, a table and a section — is the same.
"""

from __future__ import annotations

import pytest

from kb_pipeline.parsing import cache, cached_parse, mineru_adapter
from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.parsing.errors import ParserError
from kb_pipeline.parsing.windows import plan_windows
from kb_pipeline.paths import DataLayout
from kb_pipeline.pipeline import Parsing, content_hash_of, parse_raw, process_document
from kb_pipeline_tests.samples import long_pdf


def test_plan_windows():
    assert plan_windows(120, 50) == [(1, 50), (51, 100), (101, 120)]
    assert plan_windows(100, 50) == [(1, 50), (51, 100)]
    assert plan_windows(3, 50) == [(1, 3)]


def test_window_size_is_an_output_setting():
    assert ParserConfig(parse_window=50).fingerprint != ParserConfig(parse_window=0).fingerprint
    assert ParserConfig(max_pages=5).fingerprint == ParserConfig().fingerprint


@pytest.fixture(scope="module")
def long_document(tmp_path_factory):
    root = tmp_path_factory.mktemp("windows")
    pdf = root / "handbook.pdf"
    long_pdf(pdf, 48, heading_every=8, seams={20: "paragraph", 40: "table"})
    layout = DataLayout(root / "data")
    runs = {}
    progress = []
    for window in (0, 20):
        runs[window] = process_document(
            pdf, Parsing.in_process(ParserConfig(parse_window=window), layout), progress=lambda *p: progress.append(p)
        )
    return runs, progress


@pytest.mark.slow
def test_windowed_raw_output_reads_as_one_parse(long_document):
    runs, progress = long_document
    full, windowed = runs[0].raw, runs[20].raw
    assert progress == [(1, 3, 1, 20), (2, 3, 21, 40), (3, 3, 41, 48)]
    assert full.path != windowed.path and "windows" not in full.marker
    assert [w["pages"] for w in windowed.marker["windows"]] == ["1-20", "21-40", "41-48"]
    assert windowed.marker["n_pages"] == 48
    # Global page indices, one images/ folder, and the files MinerU would have written for the
    # whole document — byte for byte.
    for name in ("middle_json.json", "content_list.json", "content_list_v2.json"):
        assert (windowed.path / name).read_bytes() == (full.path / name).read_bytes(), name
    assert sorted(p.name for p in (windowed.path / "images").iterdir()) == sorted(
        p.name for p in (full.path / "images").iterdir()
    )
    assert not (windowed.path / ".windows").exists()


@pytest.mark.slow
def test_windowed_chunks_match_across_boundaries(long_document):
    runs, _ = long_document
    full, windowed = runs[0].document, runs[20].document
    assert [(c.text, c.heading, c.heading_path, c.page_idxs) for c in windowed.chunks] == [
        (c.text, c.heading, c.heading_path, c.page_idxs) for c in full.chunks
    ]
    assert all(check.passed for check in runs[20].checks.values())
    # The boundaries really are crossed: the paragraph's chunk spans pages 20-21 (idx 19, 20),
    # the table is on both sides of 40|41, and section 3 (pages 17-24, idx 16-23) spans windows 1 and 2.
    assert any({19, 20} <= set(c.page_idxs) for c in windowed.chunks)
    tables = [c for c in windowed.chunks if c.kind == "table"]
    assert {39, 40} <= {i for c in tables for i in c.page_idxs}
    section3 = [c for c in windowed.chunks if c.heading_path and c.heading_path[0].startswith("3. ")]
    assert {16, 23} <= {i for c in section3 for i in c.page_idxs}


def test_failing_window_fails_the_document_and_leaves_no_entry(tmp_path, monkeypatch):
    pdf = tmp_path / "short.pdf"
    long_pdf(pdf, 4, heading_every=2)
    layout = DataLayout(tmp_path / "data")
    # The second window asks for pages the PDF does not have, as a corrupt range would.
    monkeypatch.setattr(cached_parse, "plan_windows", lambda n, size: [(1, 2), (9000, 9001)])
    with pytest.raises(ParserError, match=r"window 2/2 \(pages 9000-9001\)"):
        parse_raw(pdf, content_hash_of(pdf), Parsing.in_process(ParserConfig(parse_window=2), layout))
    key = cache.cache_key(
        content_hash_of(pdf), ParserConfig(parse_window=2).fingerprint, mineru_adapter.mineru_version()
    )
    assert cache.complete_dir(layout.parse_cache, key) is None
    assert list(layout.parse_cache.iterdir()) == []


@pytest.mark.slow
def test_dagster_run_logs_window_progress(tmp_path, capsys, instance):
    """The `mineru_raw_output` asset logs "window k/n" to the run and prints it for `ingest`."""

    from kb_pipeline.cli.ingest import ingest_folder
    from kb_pipeline.defs.resources import KnowledgeBase, ParserOptions

    drop = tmp_path / "drop"
    drop.mkdir()
    long_pdf(drop / "manual.pdf", 4, heading_every=2)
    kb = KnowledgeBase(drop_folder=str(drop), data_dir=str(tmp_path / "data"), parser=ParserOptions(parse_window=2))
    outcomes = ingest_folder(kb, instance)
    assert [o.status for o in outcomes] == ["ingested"]
    messages = [r.user_message for run in instance.get_runs() for r in instance.all_logs(run.run_id)]
    assert any("manual: window 1/2 (pages 1-2)" in m for m in messages)
    assert any("manual: window 2/2 (pages 3-4)" in m for m in messages)
    assert "manual: window 2/2 (pages 3-4)" in capsys.readouterr().err
