"""Normaliser throughput on one core: MinerU raw output → chunks + quality warnings.

    .venv/bin/python bench/normaliser.py [--min-seconds 1.0] [--trials 3]

Input: the fixtures' real MinerU 4.0.12 flash output (shared/fixtures/mineru-4.0.12-flash/<name>/)
with the PDFs' text layers (shared/fixtures/pdfs/<name>.pdf), the six text fixtures (33 pages);
scanned_small_ocr is timed too but kept out of the totals. The process is pinned to one CPU.

Per document and repetition, timed separately:
- `load`: `load_raw_output(dir)` (the JSON reads: content_list, content_list_v2, middle_json);
- `chunks+warnings`: open `PdfTextLayer(pdf)` (fresh each time, its page-text cache empty, as in
  the real path), `build_chunks` and `quality_warnings` — the target (≥ 500 pages/s) is on this;
- `+checks`: the same plus building the `ParsedDocument` and `run_artifact_checks`, i.e.
  `pipeline.normalise_raw` without the JSON load;
- `normalise_raw total` = load + the `+checks` figure.
Each document is repeated until `--min-seconds` have passed (at least 5 times); its time is the
median. A trial sums the medians over the corpus; the figure reported is the median of
`--trials` trials, with min and max.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import _common

TARGET_PAGES_PER_S = 500.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--min-seconds", type=float, default=1.0)
    parser.add_argument("--trials", type=int, default=3)
    args = parser.parse_args()
    _common.warn_if_busy()
    cpu = sorted(os.sched_getaffinity(0))[-1]
    os.sched_setaffinity(0, {cpu})
    sys.path.insert(0, str(_common.REPO))

    from kb_pipeline.contracts import ParsedDocument
    from kb_pipeline.normalise import build_chunks
    from kb_pipeline.parsing.raw_output import load_raw_output
    from kb_pipeline.pdf_text import PdfTextLayer
    from kb_pipeline.quality.artifact_checks import run_artifact_checks
    from kb_pipeline.quality.text_coverage import measure_text_coverage
    from kb_pipeline.quality.warnings import quality_warnings
    from kb_pipeline.versions import NORMALISER_VERSION

    def chunks_and_warnings(name, raw, pdf, with_checks: bool):
        with PdfTextLayer(pdf) as text_layer:
            chunks = build_chunks(name, raw, text_layer)
            coverage = measure_text_coverage(chunks, text_layer)  # measured once, as pipeline.normalise_raw does
            warnings = quality_warnings(name, chunks, raw, text_layer, coverage)
            if with_checks:
                document = ParsedDocument(
                    doc_id=name,
                    source_title=name,
                    source_path=str(pdf),
                    content_hash="0" * 64,
                    n_pages=raw.n_pages,
                    parser_version=raw.mineru_version,
                    parser_backend=raw.parser_backend,
                    parser_config="bench",
                    normaliser_version=NORMALISER_VERSION,
                    created_at="2026-01-01T00:00:00+00:00",
                    raw_output_dir=str(raw.path),
                    chunks=chunks,
                )
                checks = run_artifact_checks(document, raw, text_layer, warnings, coverage)
                # text_coverage only warns, and some fixtures lose a few lines (two-column pages).
                assert (
                    all(c.passed for n, c in checks.items() if n not in ("not_empty", "text_coverage"))
                    or name == "scanned_small_ocr"
                ), checks
        return chunks, warnings

    def repeat(fn) -> tuple[float, int]:
        times = []
        started = time.perf_counter()
        while len(times) < 5 or time.perf_counter() - started < args.min_seconds:
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return statistics.median(times), len(times)

    names = _common.FIXTURE_NAMES + ["scanned_small_ocr"]
    inputs = {}
    for name in names:
        raw_dir = _common.MINERU_FIXTURES / name
        inputs[name] = (raw_dir, _common.FIXTURE_PDFS / f"{name}.pdf", load_raw_output(raw_dir))

    stages = ["load", "chunks+warnings", "+checks"]
    trials = []
    for trial in range(args.trials):
        per_doc = {}
        for name in names:
            raw_dir, pdf, raw = inputs[name]
            chunks, warnings = chunks_and_warnings(name, raw, pdf, False)
            load, n_load = repeat(lambda: load_raw_output(raw_dir))
            cw, n_cw = repeat(lambda: chunks_and_warnings(name, raw, pdf, False))
            ck, n_ck = repeat(lambda: chunks_and_warnings(name, raw, pdf, True))
            per_doc[name] = {
                "pages": raw.n_pages,
                "items": len(raw.items),
                "chunks": len(chunks),
                "warnings": len(warnings),
                "load": load,
                "chunks+warnings": cw,
                "+checks": ck,
                "repetitions": [n_load, n_cw, n_ck],
            }
        trials.append(per_doc)
        total = {s: sum(per_doc[n][s] for n in _common.FIXTURE_NAMES) for s in stages}
        pages = sum(per_doc[n]["pages"] for n in _common.FIXTURE_NAMES)
        print(f"trial {trial + 1}: " + ", ".join(f"{s} {pages / total[s]:.0f} pages/s" for s in stages), flush=True)

    # Per document: the median over trials.
    docs = {n: {**trials[0][n], **{s: statistics.median(t[n][s] for t in trials) for s in stages}} for n in names}
    rows = []
    for name in names:
        d = docs[name]
        rows.append(
            [
                name + ("  (not in totals)" if name not in _common.FIXTURE_NAMES else ""),
                d["pages"],
                d["items"],
                d["chunks"],
                d["warnings"],
                d["load"] * 1000,
                d["chunks+warnings"] * 1000,
                d["+checks"] * 1000,
                d["pages"] / d["chunks+warnings"],
                d["pages"] / d["+checks"],
            ]
        )
    print()
    print(
        _common.table(
            [
                "document",
                "pages",
                "items",
                "chunks",
                "warn",
                "load ms",
                "chunks+warn ms",
                "+checks ms",
                "pages/s",
                "pages/s +checks",
            ],
            rows,
        )
    )
    pages = sum(docs[n]["pages"] for n in _common.FIXTURE_NAMES)
    per_trial = {s: [pages / sum(t[n][s] for n in _common.FIXTURE_NAMES) for t in trials] for s in stages}
    per_trial["normalise_raw total"] = [
        pages / sum(t[n]["load"] + t[n]["+checks"] for n in _common.FIXTURE_NAMES) for t in trials
    ]
    summary = {s: {"median": statistics.median(v), "min": min(v), "max": max(v)} for s, v in per_trial.items()}
    print()
    print(
        _common.table(
            ["stage (6 text fixtures, 33 pages, 1 core)", "pages/s median", "min", "max", "target", "verdict"],
            [
                [
                    s,
                    v["median"],
                    v["min"],
                    v["max"],
                    "≥ 500" if s in ("chunks+warnings", "+checks") else "",
                    _common.verdict(v["median"], TARGET_PAGES_PER_S) if s in ("chunks+warnings", "+checks") else "",
                ]
                for s, v in summary.items()
            ],
        )
    )
    path = _common.write_json(
        "normaliser",
        {
            "cpu_pinned": cpu,
            "min_seconds": args.min_seconds,
            "trials": args.trials,
            "pages": pages,
            "pages_per_s": summary,
            "target_pages_per_s": TARGET_PAGES_PER_S,
            "verdicts": {
                s: _common.verdict(summary[s]["median"], TARGET_PAGES_PER_S) for s in ("chunks+warnings", "+checks")
            },
            "documents": docs,
        },
    )
    print(f"\nwritten {path}")


if __name__ == "__main__":
    main()
