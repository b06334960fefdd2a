"""Warm parallel parsing (`kb-pipeline run` with KB_PARSE_WORKERS warm workers) against one bare
single-process MinerU flash parse of the same files, side by side in one run.

    .venv/bin/python bench/parallel.py [--workers N (default: cores)] [--pdfs FILE ...]

(a) bare: one process, `mineru.parser.parse(pdf, tier="flash", ocr_mode="txt")` on each file in
    turn plus the adapter's raw-output recipe (bench/overhead.py's `bare_mineru`), MinerU imported
    and warmed up before timing.
(b) `kb_pipeline.batch.run_batch(..., workers=N)` with a fresh data dir: hashing, preflight, the
    parse in N warm workers (started inside the timing), raw output, cache publish, normalising,
    checks and artifacts, all of it.
(c) `kb-pipeline ingest`'s `ingest_folder(..., workers=N)` with a fresh data dir and a fresh temp
    instance with the project's dagster.yaml settings: the Dagster asset graph, one run per
    document in N warm run workers (started inside the timing), plus the warnings table.
The default corpus is 10 real PDFs of ../shared/corpus/pdfs, 185 pages.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import _common

TARGET = 1.6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--pdfs", nargs="*", type=Path, default=_common.TEN_REAL_PDFS)
    args = parser.parse_args()
    _common.warn_if_busy()
    home = _common.setup_mineru()
    import dagster as dg
    from overhead import project_instance_overrides, time_bare_mineru

    from kb_pipeline.batch import run_batch
    from kb_pipeline.cli.ingest import ingest_folder
    from kb_pipeline.defs.resources import KnowledgeBase
    from kb_pipeline.parsing.config import ParserConfig
    from kb_pipeline.paths import DataLayout

    pages = sum(_common.pdf_pages(p) for p in args.pdfs)
    work = Path(tempfile.mkdtemp(prefix="kb-bench-parallel-"))
    try:
        bare = time_bare_mineru(args.pdfs, work / "bare")

        folder = work / "in"
        folder.mkdir()
        for pdf in args.pdfs:
            shutil.copy(pdf, folder)
        layout = DataLayout(work / "data")
        started = time.perf_counter()
        manifest = run_batch(
            folder, work / "runs", ParserConfig(), layout, workers=args.workers, progress=open(os.devnull, "w")
        )
        parallel = time.perf_counter() - started
        assert manifest.totals.ok == len(args.pdfs), manifest.totals

        (work / "dagster").mkdir()
        kb = KnowledgeBase(drop_folder=str(folder), data_dir=str(work / "ingest-data"))
        with dg.instance_for_test(temp_dir=str(work / "dagster"), overrides=project_instance_overrides()) as instance:
            started = time.perf_counter()
            outcomes = ingest_folder(kb, instance, progress=open(os.devnull, "w"), workers=args.workers)
            ingest = time.perf_counter() - started
        assert [o.status for o in outcomes] == ["ingested"] * len(args.pdfs), outcomes
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)
    ratio = (pages / parallel) / (pages / bare)
    ingest_ratio = bare / ingest
    rows = [
        ["(a) bare MinerU, 1 process", f"{bare:.1f}", f"{pages / bare:.2f}", "1.00"],
        [
            f"(b) kb-pipeline run, {args.workers} warm workers",
            f"{parallel:.1f}",
            f"{pages / parallel:.2f}",
            f"{ratio:.2f}",
        ],
        [
            f"(c) kb-pipeline ingest, {args.workers} warm run workers",
            f"{ingest:.1f}",
            f"{pages / ingest:.2f}",
            f"{ingest_ratio:.2f}",
        ],
    ]
    print(f"{len(args.pdfs)} PDFs, {pages} pages")
    print(_common.table(["mode", "seconds", "pages/s", "× bare"], rows))
    print(f"target ≥ {TARGET}×, kb-pipeline run: {_common.verdict(ratio, TARGET)}")
    print(f"target ≥ {TARGET}×, kb-pipeline ingest: {_common.verdict(ingest_ratio, TARGET)}")
    _common.write_json(
        "parallel",
        {
            "pdfs": [p.name for p in args.pdfs],
            "pages": pages,
            "workers": args.workers,
            "bare_seconds": bare,
            "parallel_seconds": parallel,
            "ratio": ratio,
            "ingest_seconds": ingest,
            "ingest_ratio": ingest_ratio,
            "machine": _common.machine(),
        },
    )


if __name__ == "__main__":  # required: MinerU and the parse workers start "spawn" processes
    main()
