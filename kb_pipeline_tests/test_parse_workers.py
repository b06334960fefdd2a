"""Warm local parse workers (`KB_PARSE_WORKERS`, parsing/backends.WarmWorkers) behind `kb-pipeline run`:
a worker killed mid-parse fails only its document, leaves nothing half-made in the cache, and
is replaced so the other documents finish."""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
import time

import pytest

from kb_pipeline.batch import run_batch
from kb_pipeline.parsing import cache
from kb_pipeline.parsing.backends import WarmWorkers
from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.run_manifest import FailedEntry

from .conftest import CORPUS_PDFS

pytestmark = [pytest.mark.slow, pytest.mark.services]


def test_a_worker_killed_mid_parse_fails_only_its_document(drop, layout):
    long_pdf = drop / "long_manual.pdf"
    shutil.copy(CORPUS_PDFS / "manual_pymupdf_v1_8.pdf", long_pdf)
    killed: list[int] = []
    pool = WarmWorkers(2, layout.mineru_home)

    def kill_the_worker_parsing_it() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            pid = next((p for p, name in pool.busy.items() if name == long_pdf.name), None)
            if pid:
                time.sleep(1.5)  # inside its parse (several seconds)
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_the_worker_parsing_it, daemon=True)
    killer.start()
    try:
        manifest = run_batch(drop, layout.runs, ParserConfig(), layout, workers=2, backend=pool)
    finally:
        pool.close()
    killer.join(timeout=10)
    assert killed
    status = {d.source_path.rsplit("/", 1)[-1]: d for d in manifest.documents}
    failed = status[long_pdf.name]
    assert isinstance(failed, FailedEntry) and failed.error_type == "ParseServiceError"
    assert str(killed[0]) in failed.message
    assert failed.expected is False
    assert sorted(n for n, d in status.items() if d.status == "ok") == sorted(
        p.name for p in drop.iterdir() if p != long_pdf
    )
    failures = [
        json.loads(line) for line in (layout.runs / manifest.run_id / "failures.jsonl").read_text().splitlines()
    ]
    assert [f["doc_id"] for f in failures] == [failed.doc_id]
    for entry in layout.parse_cache.iterdir():
        assert not entry.name.startswith(".tmp-"), entry.name
        assert cache.complete_dir(layout.parse_cache, entry.name) is not None, entry.name
    assert len(list(layout.parse_cache.iterdir())) == 3

    # Run again: the document parses (the cache entries of the others are reused).
    again = run_batch(drop, layout.runs, ParserConfig(), layout, workers=2)
    assert again.totals.ok == 4
