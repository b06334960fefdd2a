"""Peak memory of one document through the full core path, process tree included.

    .venv/bin/python bench/memory.py [PDF ...]

Default documents: generated reports of 10 and 120 pages (`_common.report_pdf`: numbered
headings, paragraphs, a ruled table every third page, a formula line every second page) and
the real 10-page fixture demo3. Each document runs in a fresh child process
(`memory.py --child PDF DATA_DIR`: MinerU environment, `process_document` into an empty temp
data dir so MinerU really runs, `write_artifact`). This process samples the child's whole tree
(the child, MinerU's spawned render workers and multiprocessing's resource tracker) every
20 ms from /proc (psutil is not in the project venv):
- tree peak RSS: the largest sum of VmRSS over the tree's live processes at one sample — the
  figure the target (≤ 1.5 GiB) is checked on; it counts shared pages once per process, so it
  is an upper bound;
- tree peak PSS: the same with PSS from /proc/<pid>/smaps_rollup (shared pages split);
- largest single process: the highest VmHWM (kernel high-water mark) of any one process, and
  the child's own `resource.getrusage(RUSAGE_SELF).ru_maxrss`.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common

TARGET_GIB = 1.5


def child(pdf: Path, data: Path) -> None:
    home = _common.setup_mineru(data / "mineru_home")
    from kb_pipeline.parsing.config import ParserConfig
    from kb_pipeline.paths import DataLayout
    from kb_pipeline.pipeline import ARTIFACT_NAME, Parsing, process_document, write_artifact

    layout = DataLayout(data.resolve())
    assert layout.mineru_home == home
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    run = process_document(pdf, Parsing.in_process(ParserConfig(), layout))
    write_artifact(layout.parsed_dir(run.document.doc_id) / ARTIFACT_NAME, run.document)
    print(
        json.dumps(
            {
                "pages": run.document.n_pages,
                "chunks": len(run.document.chunks),
                "seconds": time.perf_counter() - started,
                "timings": run.timings,
                "cache_hit": run.raw.cache_hit,
                "self_maxrss_kib_before_parse": before,
                "self_maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                "children_maxrss_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
            }
        ),
        flush=True,
    )


def measure(pdf: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix="kb-bench-memory-") as data:
        proc = subprocess.Popen(
            [sys.executable, __file__, "--child", str(pdf), data], stdout=subprocess.PIPE, text=True
        )
        with _common.TreeMemorySampler(proc.pid, interval=0.02) as sampler:
            out, _ = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"child failed on {pdf} (exit {proc.returncode})")
    result = json.loads(out.strip().splitlines()[-1])
    result.update(
        {
            "document": pdf.name,
            "tree_peak_rss_mib": sampler.peak_rss_kib / 1024,
            "tree_peak_pss_mib": sampler.peak_pss_kib / 1024,
            "largest_process_hwm_mib": max(sampler.hwm_kib.values()) / 1024,
            "processes_seen": len(sampler.hwm_kib),
            "max_processes_at_once": sampler.max_processes,
            "samples": sampler.samples,
        }
    )
    return result


def main() -> None:
    _common.warn_if_busy()
    with tempfile.TemporaryDirectory(prefix="kb-bench-memory-docs-") as tmp:
        if len(sys.argv) > 1:
            pdfs = [Path(p).resolve() for p in sys.argv[1:]]
        else:
            pdfs = [
                Path(tmp) / "bench_report_010.pdf",
                Path(tmp) / "bench_report_120.pdf",
                _common.FIXTURE_PDFS / "demo3.pdf",
            ]
            _common.report_pdf(pdfs[0], 10)
            _common.report_pdf(pdfs[1], 120)
        results = []
        for pdf in pdfs:
            r = measure(pdf)
            results.append(r)
            print(
                f"  {pdf.name}: {r['pages']} pages in {r['seconds']:.1f} s, tree peak RSS {r['tree_peak_rss_mib']:.0f} MiB",
                flush=True,
            )
    rows = [
        [
            r["document"],
            r["pages"],
            r["seconds"],
            r["tree_peak_rss_mib"],
            r["tree_peak_pss_mib"],
            r["largest_process_hwm_mib"],
            r["self_maxrss_kib"] / 1024,
            r["max_processes_at_once"],
            _common.verdict(r["tree_peak_rss_mib"] / 1024, TARGET_GIB, higher_is_better=False),
        ]
        for r in results
    ]
    print()
    print(
        _common.table(
            [
                "document",
                "pages",
                "seconds",
                "tree peak RSS MiB",
                "tree peak PSS MiB",
                "largest process HWM MiB",
                "parent maxrss MiB",
                "processes",
                "≤ 1.5 GiB",
            ],
            rows,
        )
    )
    path = _common.write_json(
        "memory",
        {
            "target_gib": TARGET_GIB,
            "sampling": "/proc every 20 ms",
            "results": results,
            "verdicts": {r["document"]: row[-1] for r, row in zip(results, rows)},
        },
    )
    print(f"\nwritten {path}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        child(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        main()
