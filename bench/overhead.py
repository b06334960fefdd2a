"""Overhead of our path over bare MinerU: pages/s of (a) bare MinerU, (b) our core path,
(c) the Dagster asset graph in process, alternating per PDF in one process.

    .venv/bin/python bench/overhead.py [--pdfs DIR] [--rounds N (default 2)] [--modes a,b,c]

(a) `mineru.parser.parse(pdf, tier="flash", ocr_mode="txt")` on the file in place, then the raw
    output written exactly as our adapter writes it (MINERU_4_FACTS.md §1 recipe):
    `ParseResult.save(FileBasedDataWriter(dir))`, delete model_output.json,
    `docvortex.export.materialize_middle`, render content_list.json and content_list_v2.json and
    write them (json, indent=2), images kept. Into a fresh temp dir per document.
(b) `kb_pipeline.pipeline.process_document(pdf, Parsing.in_process(ParserConfig(), layout))` with a fresh empty data
    dir per document (so the cache misses and MinerU really runs), plus `write_artifact` of
    chunks.json. Includes hashing, the private copy and its re-hash, preflight (parse_mode
    "auto" → txt), MinerU, the raw-output write, the cache marker and rename, normalisation,
    quality warnings and the artifact checks.
(c) `kb_pipeline.cli.ingest.ingest_folder` on a drop folder holding just this document, with a
    fresh data dir, against one temp Dagster instance (`dagster.instance_for_test`) created
    before timing and shared by the whole run, as a long-lived deployment's is. One document per
    call so (a), (b) and (c) alternate per PDF under the same machine conditions. Each call runs
    the `ingest_documents` job (mineru_raw_output → parsed_document → quality_warnings,
    kb_package, knowledge_payloads, with the asset checks and all event-log writes) and then `refresh_tables`.
    `build_definitions` is done outside the timing (once per process in a deployment). The temp
    instance gets the project's dagster.yaml `concurrency` (the `mineru` pool) and `telemetry`
    settings; its storage is SQLite with LocalComputeLogManager, like the project's.

Before timing, each mode runs once on a small generated document that is not in the corpus
(MinerU's first call in a process pays ~1 s; Dagster's first run pays its imports). Those cold
figures are reported separately. The order of a/b/c rotates from one PDF to the next. Each round
gets its own temp instance (an instance remembers a document as current and would skip it).
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import tempfile
import time
from pathlib import Path

import _common

TARGETS = {"b/a": 0.9, "c/a": 0.8}


def project_instance_overrides(in_process: bool = False) -> dict:
    """The parts of the project's dagster.yaml that change how a run executes (the `mineru` pool
    and run concurrency, the run launcher and its retries, telemetry off). Storage and compute
    logs stay the temp instance's own, which are the same classes the project configures (SQLite,
    LocalComputeLogManager). `in_process`: Dagster's in-memory launcher instead, which executes
    each run in this process — Dagster's cost per run without a warm worker's start."""
    import yaml

    config = yaml.safe_load((_common.REPO / "dagster.yaml").read_text(encoding="utf-8"))
    keys = ("concurrency", "telemetry", "run_launcher", "run_retries")
    overrides = {key: config[key] for key in keys if key in config}
    if in_process:
        overrides["run_launcher"] = {
            "module": "dagster._core.launcher.sync_in_memory_run_launcher",
            "class": "SyncInMemoryRunLauncher",
        }
    return overrides


def bare_mineru(pdf: Path, out: Path) -> int:
    """(a): parse + the adapter's raw-output recipe. Returns the page count."""
    from docvortex.export import materialize_middle
    from mineru.parser import parse
    from mineru.parser.writer import FileBasedDataWriter
    from mineru.render import render_content_list, render_content_list_v2

    out.mkdir(parents=True)
    result = parse(pdf, tier="flash", ocr_mode="txt")
    result.save(FileBasedDataWriter(str(out)))
    (out / "model_output.json").unlink(missing_ok=True)
    middle, _assets = materialize_middle(result.middle_json)
    for name, rendered in (
        ("content_list.json", render_content_list(middle)),
        ("content_list_v2.json", render_content_list_v2(middle)),
    ):
        (out / name).write_text(json.dumps(rendered, ensure_ascii=False, indent=2), encoding="utf-8")
    return len(result.pages)


def time_bare_mineru(pdfs: list[Path], work: Path) -> float:
    """Seconds for (a) over `pdfs`, one after another, in this process, after an untimed
    warm-up parse (MinerU's first call in a process pays its start-up)."""
    bare_mineru(_common.FIXTURE_PDFS / "sample.pdf", work / "warm")
    started = time.perf_counter()
    for n, pdf in enumerate(pdfs):
        bare_mineru(pdf, work / f"bare-{n}")
    return time.perf_counter() - started


def our_path(pdf: Path, data: Path) -> tuple[int, dict]:
    """(b): the whole core path into a fresh data dir, plus writing the artifact."""
    from kb_pipeline.parsing.config import ParserConfig
    from kb_pipeline.paths import DataLayout
    from kb_pipeline.pipeline import ARTIFACT_NAME, Parsing, process_document, write_artifact

    layout = DataLayout(data.resolve())
    run = process_document(pdf, Parsing.in_process(ParserConfig(), layout))
    assert not run.raw.cache_hit, "the cache must be empty for (b)"
    write_artifact(layout.parsed_dir(run.document.doc_id) / ARTIFACT_NAME, run.document)
    return run.document.n_pages, run.timings


def dagster_path(pdf: Path, work: Path, instance) -> tuple[int, object]:
    """(c) without the timing: set up a one-document drop folder and a fresh data dir."""
    from kb_pipeline.definitions import build_definitions
    from kb_pipeline.defs.resources import KnowledgeBase

    drop, data = work / "drop", work / "data"
    drop.mkdir(parents=True)
    data.mkdir()
    shutil.copyfile(pdf, drop / pdf.name)
    kb = KnowledgeBase(drop_folder=str(drop), data_dir=str(data))
    return build_definitions(kb), kb


def step_breakdown(instance, since_run_ids: set[str]) -> dict[str, float]:
    """Seconds per step (and per whole run) of the runs started after `since_run_ids`."""
    seconds: dict[str, float] = {}
    for run in instance.get_runs():
        if run.run_id in since_run_ids:
            continue
        starts, run_start = {}, None
        for entry in instance.all_logs(run.run_id):
            event = entry.dagster_event
            if event is None:
                continue
            kind = event.event_type_value
            if kind == "STEP_START":
                starts[event.step_key] = entry.timestamp
            elif kind == "STEP_SUCCESS" and event.step_key in starts:
                seconds[event.step_key] = seconds.get(event.step_key, 0.0) + entry.timestamp - starts[event.step_key]
            elif kind == "PIPELINE_START":  # DagsterEventType.RUN_START's value
                run_start = entry.timestamp
            elif kind in ("PIPELINE_SUCCESS", "PIPELINE_FAILURE") and run_start is not None:
                key = f"run:{run.job_name}"
                seconds[key] = seconds.get(key, 0.0) + entry.timestamp - run_start
    return seconds


def run_mode(mode: str, pdf: Path, scratch: Path, instance) -> dict:
    from kb_pipeline.cli.ingest import ingest_folder

    work = Path(tempfile.mkdtemp(prefix=f"{mode}-", dir=scratch))
    if mode == "a":
        started = time.perf_counter()
        pages = bare_mineru(pdf, work / "raw")
        return {"seconds": time.perf_counter() - started, "pages": pages}
    if mode == "b":
        started = time.perf_counter()
        pages, timings = our_path(pdf, work / "data")
        return {"seconds": time.perf_counter() - started, "pages": pages, "timings": timings}
    defs, kb = dagster_path(pdf, work, instance)
    before = {r.run_id for r in instance.get_runs()}
    started = time.perf_counter()
    outcomes = ingest_folder(kb, instance, progress=io.StringIO())
    seconds = time.perf_counter() - started
    (outcome,) = outcomes
    if outcome.status != "ingested":
        raise RuntimeError(f"(c) {pdf.name}: {outcome.status} {outcome.reason}")
    return {"seconds": seconds, "pages": outcome.metadata["pages"], "steps": step_breakdown(instance, before)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pdfs", type=Path, help="folder of PDFs (default: the 10-document corpus)")
    parser.add_argument("--rounds", type=int, default=2, help="passes over the corpus (default 2)")
    parser.add_argument("--modes", default="a,b,c")
    parser.add_argument("--out-name", default="overhead")
    args = parser.parse_args()
    modes = args.modes.split(",")

    _common.warn_if_busy()
    home = _common.setup_mineru()
    import dagster as dg

    _common.quiet_dagster()
    pdfs = _common.corpus_from(args.pdfs)
    with tempfile.TemporaryDirectory(prefix="kb-bench-overhead-") as tmp:
        scratch = Path(tmp)
        results: dict[str, list[dict]] = {m: [] for m in modes}
        cold: dict[str, float] = {}
        n = 0
        for round_no in range(args.rounds):
            # A fresh instance per round: the instance remembers each document as current.
            (scratch / f"dagster-{round_no}").mkdir()
            with dg.instance_for_test(
                temp_dir=str(scratch / f"dagster-{round_no}"), overrides=project_instance_overrides(in_process=True)
            ) as instance:
                warm = scratch / f"warmup_{round_no}.pdf"
                _common.report_pdf(warm, 3, title="Warm-up")
                for mode in modes:
                    seconds = round(run_mode(mode, warm, scratch, instance)["seconds"], 3)
                    cold.setdefault(mode, seconds)
                if round_no == 0:
                    print(f"cold first call on a 3-page warm-up document (not counted): {cold}", flush=True)
                for pdf in pdfs:
                    order = modes[n % len(modes) :] + modes[: n % len(modes)]
                    n += 1
                    line = []
                    for mode in order:
                        r = run_mode(mode, pdf, scratch, instance)
                        r["document"], r["round"] = pdf.name, round_no
                        results[mode].append(r)
                        line.append(f"{mode} {r['seconds']:.2f}s")
                    print(f"  {pdf.name:38} {r['pages']:>3} p  " + "  ".join(line), flush=True)
    shutil.rmtree(home, ignore_errors=True)

    totals = {
        m: {"pages": sum(r["pages"] for r in rs), "seconds": sum(r["seconds"] for r in rs)} for m, rs in results.items()
    }
    for t in totals.values():
        t["pages_per_s"] = t["pages"] / t["seconds"]
    per_doc = []
    for i, pdf_result in enumerate(results[modes[0]]):
        row = [pdf_result["document"], pdf_result["round"] + 1, pdf_result["pages"]]
        row += [results[m][i]["seconds"] for m in modes]
        if "a" in modes:
            row += [results["a"][i]["seconds"] / results[m][i]["seconds"] for m in modes if m != "a"]
        per_doc.append(row)
    headers = (
        ["document", "round", "pages"]
        + [f"{m} s" for m in modes]
        + ([f"{m}/a" for m in modes if m != "a"] if "a" in modes else [])
    )
    print()
    print(_common.table(headers, per_doc))
    print()
    summary_rows, ratios = [], {}
    for m in modes:
        row = [m, totals[m]["pages"], totals[m]["seconds"], totals[m]["pages_per_s"]]
        if "a" in modes and m != "a":
            ratio = totals[m]["pages_per_s"] / totals["a"]["pages_per_s"]
            ratios[f"{m}/a"] = ratio
            target = TARGETS.get(f"{m}/a")
            row += [ratio, target, _common.verdict(ratio, target) if target else ""]
        else:
            row += [None, None, ""]
        summary_rows.append(row)
    print(_common.table(["mode", "pages", "seconds", "pages/s", "ratio to a", "target", "verdict"], summary_rows))

    # Where (b) and (c) spend their time beyond MinerU.
    breakdown = {}
    if "b" in modes:
        keys = ["hash_seconds", "parse_seconds", "cache_seconds", "normalise_seconds"]
        breakdown["b"] = {k: round(sum(r["timings"][k] for r in results["b"]), 3) for k in keys}
        breakdown["b"]["artifact_write_and_rest"] = round(totals["b"]["seconds"] - sum(breakdown["b"].values()), 3)
    if "c" in modes:
        steps: dict[str, float] = {}
        for r in results["c"]:
            for k, v in r["steps"].items():
                steps[k] = steps.get(k, 0.0) + v
        breakdown["c"] = {k: round(v, 3) for k, v in sorted(steps.items())}
        in_steps = sum(v for k, v in steps.items() if not k.startswith("run:"))
        in_runs = sum(v for k, v in steps.items() if k.startswith("run:"))
        breakdown["c"]["outside_steps_inside_runs"] = round(in_runs - in_steps, 3)
        breakdown["c"]["outside_runs"] = round(totals["c"]["seconds"] - in_runs, 3)
    for mode, parts in breakdown.items():
        print(f"\n({mode}) time by part, all documents, s: " + ", ".join(f"{k} {v}" for k, v in parts.items()))

    path = _common.write_json(
        args.out_name,
        {
            "corpus": [str(p) for p in pdfs],
            "rounds": args.rounds,
            "modes": modes,
            "cold_seconds": cold,
            "totals": totals,
            "ratios": ratios,
            "targets": TARGETS,
            "verdicts": {k: _common.verdict(v, TARGETS[k]) for k, v in ratios.items() if k in TARGETS},
            "breakdown": breakdown,
            "runs": results,
        },
    )
    print(f"\nwritten {path}")


if __name__ == "__main__":
    main()
