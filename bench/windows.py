"""Long documents in page windows: peak memory and pages/s, windowed against unwindowed.

    .venv/bin/python bench/windows.py [PAGES:WINDOW ...]

Default runs: 200:50, 400:0, 400:50, 1900:50, 2000:50 (WINDOW 0 = one unwindowed parse). The
documents are `kb_pipeline_tests.samples.long_pdf` (40 lines a page, a numbered heading every 20
pages). Each run is one fresh child process (`windows.py --child PDF WINDOW DATA`): the MinerU
environment, then the core path (`process_document`: parse into an empty cache, then
normalise) into an empty temp data dir. This process samples the child's whole tree every
50 ms from /proc (the child, its window workers, their render workers): the peak sum of VmRSS
during the parse, and over the whole core path (normalising a long document reads all its
content lists and its text layer at once). pages/s is the parse's wall time, process start-ups
of the window workers included.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common

TARGET_GIB = 1.5
DEFAULT_RUNS = ["200:50", "400:0", "400:50", "1900:50", "2000:50"]


class PhasedSampler(_common.TreeMemorySampler):
    """Also keeps (time, tree RSS) per sample, to split the peak by phase."""

    def __init__(self, root: int, interval: float):
        super().__init__(root, interval)
        self.series: list[tuple[float, int]] = []

    def sample(self) -> None:
        before = self.peak_rss_kib
        self.peak_rss_kib = 0
        super().sample()
        self.series.append((time.time(), self.peak_rss_kib))
        self.peak_rss_kib = max(before, self.peak_rss_kib)


def child(pdf: Path, window: int, data: Path) -> None:
    _common.setup_mineru(data / "mineru_home")
    from kb_pipeline.parsing.config import ParserConfig
    from kb_pipeline.paths import DataLayout
    from kb_pipeline.pipeline import Parsing, content_hash_of, normalise_raw, parse_raw

    layout = DataLayout(data.resolve())
    config = ParserConfig(parse_window=window)
    started = time.time()
    ref = parse_raw(pdf, content_hash_of(pdf), Parsing.in_process(config, layout))
    parsed = time.time()
    normalised = normalise_raw(pdf, ref, doc_id=pdf.stem)
    print(
        json.dumps(
            {
                "pages": normalised.document.n_pages,
                "chunks": len(normalised.document.chunks),
                "started": started,
                "parsed": parsed,
                "done": time.time(),
                "windows": len(ref.marker.get("windows", [])) or 1,
                "checks_passed": all(c.passed for c in normalised.checks.values()),
            }
        ),
        flush=True,
    )


def measure(pdf: Path, window: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="kb-bench-windows-") as data:
        proc = subprocess.Popen(
            [sys.executable, __file__, "--child", str(pdf), str(window), data], stdout=subprocess.PIPE, text=True
        )
        with PhasedSampler(proc.pid, interval=0.05) as sampler:
            out, _ = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"child failed on {pdf} (exit {proc.returncode})")
    r = json.loads(out.strip().splitlines()[-1])
    parse_peak = max((rss for t, rss in sampler.series if t <= r["parsed"]), default=0)
    parse_s = r["parsed"] - r["started"]
    return {
        "document": pdf.name,
        "window": window,
        **r,
        "parse_seconds": round(parse_s, 2),
        "normalise_seconds": round(r["done"] - r["parsed"], 2),
        "pages_per_s": round(r["pages"] / parse_s, 2),
        "parse_peak_rss_mib": round(parse_peak / 1024),
        "tree_peak_rss_mib": round(sampler.peak_rss_kib / 1024),
        "tree_peak_pss_mib": round(sampler.peak_pss_kib / 1024),
        "max_processes_at_once": sampler.max_processes,
    }


def main() -> None:
    _common.warn_if_busy()
    from kb_pipeline_tests.samples import long_pdf

    runs = [tuple(int(x) for x in spec.split(":")) for spec in (sys.argv[1:] or DEFAULT_RUNS)]
    results = []
    with tempfile.TemporaryDirectory(prefix="kb-bench-windows-docs-") as tmp:
        for pages, window in runs:
            pdf = Path(tmp) / f"long_{pages:04d}.pdf"
            if not pdf.exists():
                long_pdf(pdf, pages)
            r = measure(pdf, window)
            r["load_1min"] = round(__import__("os").getloadavg()[0], 1)
            results.append(r)
            print(
                f"  {pages} pages, window {window or 'none'}: parse {r['parse_seconds']} s "
                f"({r['pages_per_s']} pages/s), parse peak {r['parse_peak_rss_mib']} MiB, "
                f"core path peak {r['tree_peak_rss_mib']} MiB",
                flush=True,
            )
    rows = [
        [
            r["pages"],
            r["window"] or "none",
            r["windows"],
            r["parse_seconds"],
            r["pages_per_s"],
            r["parse_peak_rss_mib"],
            r["tree_peak_rss_mib"],
            r["tree_peak_pss_mib"],
            r["normalise_seconds"],
            r["load_1min"],
            _common.verdict(r["tree_peak_rss_mib"] / 1024, TARGET_GIB, higher_is_better=False),
        ]
        for r in results
    ]
    print()
    print(
        _common.table(
            [
                "pages",
                "window",
                "windows",
                "parse s",
                "pages/s",
                "parse peak RSS MiB",
                "core path peak RSS MiB",
                "core path peak PSS MiB",
                "normalise s",
                "load",
                "≤ 1.5 GiB",
            ],
            rows,
        )
    )
    path = _common.write_json(
        "windows", {"target_gib": TARGET_GIB, "sampling": "/proc every 50 ms", "results": results}
    )
    print(f"\nwritten {path}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        child(Path(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4]))
    else:
        main()
