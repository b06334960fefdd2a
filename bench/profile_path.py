"""Where `kb-pipeline ingest`'s time goes, against one bare MinerU flash process on the same files.

    .venv/bin/python bench/profile_path.py [--pdfs FILE ...] [--rounds 2] [--no-profile] [--keep DIR]

Rounds alternate (bare, ingest, bare, ingest, …) on the same files, so both see the same machine
load; each round records the 1-minute load average before it. Fresh content each time: every
ingest gets a fresh data root and a fresh instance (no parse-cache hit), as a new deployment would.

- **bare**: a child process, `mineru.parser.parse(pdf, tier="flash", ocr_mode="txt")` plus the
  adapter's raw-output recipe on each file in turn (bench/overhead.py's `bare_mineru`), warmed up
  first. Wall time: the loop, and the whole process (imports and warm-up included: the
  whole-command ratio, as a user would time two commands); CPU: the whole child (user+sys, its
  render workers included once reaped).
- **ingest**: `kb-pipeline ingest --input <copy of the files>` as a user runs it (the repo's
  dagster.yaml, SQLite on disk under the data root, `KB_PARSE_WORKERS` warm run workers), in a
  child process. Wall time and CPU: the whole command (start-up included; its run workers and
  their render workers counted once reaped).

Afterwards each ingest's instance is read: per run, the launch latency (created → RUN_START),
each step's seconds (STEP_START → its end), the time in the run outside steps, and the number of
event-log writes. Then (without `--no-profile`) one more ingest runs under cProfile in every
process (a bench-only sitecustomize on PYTHONPATH; the profiler slows Python-heavy parts, so read
shares rather than seconds): the cumulative seconds of the parts inside the steps — parse,
normalise, checks, package, knowledge, version records, event writes, SQLite — summed over the
command and its run workers. Writes bench/out/profile_path.json and the .prof files
(bench/out/profile_path/).
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import _common

# (label, part of the file path, function name): the cumulative time of the largest matching
# entry per process, summed over the processes. Indented parts are inside the one above.
PARTS = [
    ("command: build_definitions", "kb_pipeline/definitions.py", "build_definitions"),
    ("command: scan + observe + is_current", "kb_pipeline/cli/ingest.py", "ingest_folder"),
    ("command: create_run_for_job", "dagster/_core/instance/__init__.py", "create_run_for_job"),
    ("worker: warm-up (Dagster, definitions, MinerU)", "kb_pipeline/runs/warm_runs.py", "_setup"),
    ("worker: run (core_execute_run)", "dagster/_grpc/impl.py", "core_execute_run"),
    ("  step mineru_raw_output", "kb_pipeline/defs/assets.py", "_raw_output"),
    ("    parse (run_mineru)", "kb_pipeline/parsing/mineru_adapter.py", "run_mineru"),
    ("    raw-output write", "kb_pipeline/parsing/mineru_adapter.py", "_write_raw_output"),
    ("    preflight", "kb_pipeline/parsing/mineru_adapter.py", "preflight"),
    ("    content hash (sha256)", "kb_pipeline/pipeline.py", "content_hash_of"),
    ("  step parsed_document", "kb_pipeline/defs/assets.py", "parsed_document"),
    ("    normalise (build_chunks)", "kb_pipeline/normalise/chunker.py", "build_chunks"),
    ("    warnings", "kb_pipeline/quality/warnings.py", "quality_warnings"),
    ("    checks (run_artifact_checks)", "kb_pipeline/quality/artifact_checks.py", "run_artifact_checks"),
    ("    artifact write", "kb_pipeline/pipeline.py", "write_artifact"),
    ("    previous artifact read", "kb_pipeline/pipeline.py", "read_artifact"),
    ("  step quality_warnings", "kb_pipeline/defs/assets.py", "quality_warnings"),
    ("  step kb_package", "kb_pipeline/defs/assets.py", "kb_package"),
    ("    package_document", "kb_pipeline/rag/packager.py", "package_document"),
    ("  step knowledge_payloads", "kb_pipeline/defs/knowledge.py", "_extract"),
    ("    extract_document", "kb_pipeline/knowledge/extract.py", "extract_document"),
    ("    payloads write", "kb_pipeline/knowledge/payloads/contracts.py", "write"),
    ("    version records (keep_version)", "kb_pipeline/knowledge/payloads/document_versions.py", "keep_version"),
    ("    checks (spans, links)", "kb_pipeline/knowledge/payloads/checks.py", "span_problems"),
    ("    language model (server, calls)", "kb_pipeline/llm/model.py", "__enter__"),
    ("  latest_materialization (event reads)", "kb_pipeline/defs/history.py", "latest_materialization"),
    (
        "  Dagster event writes (handle_new_event)",
        "dagster/_core/instance/methods/event_methods.py",
        "handle_new_event",
    ),
    ("  SQLite commit", "~", "<method 'commit' of 'sqlite3.Connection' objects>"),
    ("  SQLite execute", "~", "<method 'execute' of 'sqlite3.Cursor' objects>"),
    ("  SQLite connect", "~", "<built-in method _sqlite3.connect>"),
    ("  compute-log capture", "dagster/_core/storage/local_compute_log_manager.py", "capture_logs"),
    ("worker: give memory back (gc + malloc_trim)", "kb_pipeline/processes.py", "give_back_memory"),
]

_SITECUSTOMIZE = """
import os
if os.environ.get("KB_BENCH_PROFILE_DIR"):
    import atexit, cProfile
    _profile = cProfile.Profile()
    _profile.enable()

    def _dump():
        _profile.disable()
        _profile.dump_stats(os.path.join(os.environ["KB_BENCH_PROFILE_DIR"], f"{os.getpid()}.prof"))

    atexit.register(_dump)
"""


def _child_cpu(process: subprocess.Popen) -> tuple[int, float]:
    """Wait for `process`; its exit status and the CPU seconds (user+sys) of it and its reaped descendants."""
    _pid, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_utime + usage.ru_stime


def bare(pdfs: list[Path], work: Path) -> dict:
    """One bare MinerU flash process over `pdfs` (this script, `--bare-child`)."""
    work.mkdir(parents=True)
    out = work / "bare.json"
    command = [sys.executable, __file__, "--bare-child", str(out), "--pdfs", *map(str, pdfs)]
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=_common.BENCH)
    code, cpu = _child_cpu(process)
    whole = time.perf_counter() - started
    if code:
        raise SystemExit(f"bare MinerU child failed ({code})")
    return {**json.loads(out.read_text()), "process_seconds": whole, "cpu_seconds": cpu}


def _bare_child(out: Path, pdfs: list[Path]) -> None:
    _common.setup_mineru()
    from overhead import time_bare_mineru

    work = Path(tempfile.mkdtemp(prefix="kb-bench-bare-"))
    try:
        seconds = time_bare_mineru(pdfs, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    out.write_text(json.dumps({"seconds": seconds}))


def _environment(repo: Path, data: Path, workers: int, profile_dir: Path | None) -> dict[str, str]:
    env = {
        **os.environ,
        "KB_DATA_DIR": str(data),
        "KB_DAGSTER_DIR": str(data / "dagster"),
        "DAGSTER_HOME": str(repo),
        "KB_PARSE_WORKERS": str(workers),
        "MINERU_MODEL_SOURCE": "local",
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(repo),
    }
    if profile_dir is not None:
        (profile_dir / "sitecustomize.py").write_text(_SITECUSTOMIZE)
        env["PYTHONPATH"] = os.pathsep.join([str(profile_dir), env["PYTHONPATH"]])
        env["KB_BENCH_PROFILE_DIR"] = str(profile_dir)
    return env


def ingest(
    pdfs: list[Path], work: Path, workers: int, profile_dir: Path | None = None, repo: Path = _common.REPO
) -> dict:
    """`kb-pipeline ingest` of a copy of `pdfs` into a fresh data root and instance, with the
    kb_pipeline and dagster.yaml of `repo` (this checkout by default)."""
    folder, data = work / "in", work / "data"
    folder.mkdir(parents=True)
    for pdf in pdfs:
        shutil.copy(pdf, folder)
    command = [str(Path(sys.executable).parent / "kb-pipeline"), "ingest", "--input", str(folder)]
    started = time.perf_counter()
    with open(work / "ingest.log", "w") as log:
        process = subprocess.Popen(command, env=_environment(repo, data, workers, profile_dir), stdout=log, stderr=log)
        code, cpu = _child_cpu(process)
    seconds = time.perf_counter() - started
    if code:
        raise SystemExit(f"kb-pipeline ingest failed ({code}); see {work / 'ingest.log'}")
    return {"seconds": seconds, "cpu_seconds": cpu, "runs": run_breakdown(data / "dagster")}


def run_breakdown(dagster_dir: Path) -> dict:
    """Per-run figures read from an ingest's instance: launch latency, step seconds, the rest."""
    import dagster as dg

    os.environ["KB_DAGSTER_DIR"] = str(dagster_dir)
    os.environ["DAGSTER_HOME"] = str(_common.REPO)
    runs, steps = [], defaultdict(list)
    with dg.DagsterInstance.get() as instance:
        for record in instance.get_run_records():
            run = record.dagster_run
            created = record.create_timestamp.timestamp()
            first = {}
            last = {}
            step_seconds: dict[str, float] = {}
            events = 0
            for entry in instance.all_logs(run.run_id):
                events += 1
                event = entry.dagster_event
                if event is None:
                    continue
                kind = event.event_type_value
                first.setdefault(kind, entry.timestamp)
                last[kind] = entry.timestamp
                if kind == "STEP_START":
                    step_seconds[event.step_key] = -entry.timestamp
                elif kind in ("STEP_SUCCESS", "STEP_FAILURE") and event.step_key in step_seconds:
                    step_seconds[event.step_key] += entry.timestamp
            start, end = first.get("PIPELINE_START"), last.get("PIPELINE_SUCCESS") or last.get("PIPELINE_FAILURE")
            in_steps = sum(s for s in step_seconds.values() if s > 0)
            for key, s in step_seconds.items():
                steps[key].append(s)
            runs.append(
                {
                    "job": run.job_name,
                    "partition": run.tags.get("dagster/partition", ""),
                    "launch_s": (start - created) if start else None,
                    "run_s": (end - start) if start and end else None,
                    "outside_steps_s": (end - start - in_steps) if start and end else None,
                    "events": events,
                    "steps": step_seconds,
                }
            )
    return {"runs": runs, "steps": {key: sum(values) for key, values in steps.items()}}


def profile_parts(profile_dir: Path) -> list[tuple[str, float, int]]:
    """PARTS summed over every process that wrote a profile."""
    totals: dict[str, list[float]] = {label: [0.0, 0] for label, _f, _n in PARTS}
    for prof in profile_dir.glob("*.prof"):
        if not prof.stat().st_size:  # a process killed before its exit (MinerU's render workers)
            continue
        stats = pstats.Stats(str(prof))
        for label, file_suffix, func in PARTS:
            best = (0.0, 0)
            for (filename, _line, name), (_cc, nc, _tt, ct, _callers) in stats.stats.items():  # type: ignore[attr-defined]
                if name == func and (file_suffix in filename or file_suffix == filename):
                    best = max(best, (ct, nc))
            totals[label][0] += best[0]
            totals[label][1] += best[1]
    return [(label, round(s, 2), int(n)) for label, (s, n) in totals.items()]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pdfs", nargs="*", type=Path, default=_common.TEN_REAL_PDFS)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument(
        "--before",
        type=Path,
        help="another checkout (e.g. `git worktree add` of main): its ingest runs in each round too",
    )
    parser.add_argument("--keep", type=Path, help="keep the work dirs (data roots, instances, profiles) here")
    parser.add_argument("--bare-child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_child:
        return _bare_child(args.bare_child, args.pdfs)
    _common.quiet_dagster()
    pages = sum(_common.pdf_pages(p) for p in args.pdfs)
    work = args.keep or Path(tempfile.mkdtemp(prefix="kb-bench-profile-path-"))
    rounds = []
    try:
        for n in range(args.rounds):
            load = os.getloadavg()[0]
            b = bare(args.pdfs, work / f"bare-{n}")
            i = ingest(args.pdfs, work / f"ingest-{n}", args.workers)
            rounds.append(
                {
                    "load": load,
                    "bare": b,
                    "ingest": i,
                    "ratio": b["seconds"] / i["seconds"],
                    "whole_ratio": b["process_seconds"] / i["seconds"],
                }
            )
            line = (
                f"round {n + 1}: load {load:.2f}; bare {b['seconds']:.1f} s ({b['cpu_seconds']:.1f} s CPU), "
                f"ingest {i['seconds']:.1f} s ({i['cpu_seconds']:.1f} s CPU): {rounds[-1]['ratio']:.2f}×"
            )
            if args.before:
                old = ingest(args.pdfs, work / f"before-{n}", args.workers, repo=args.before.resolve())
                rounds[-1]["before"] = old
                line += f"; before: {old['seconds']:.1f} s ({old['cpu_seconds']:.1f} s CPU): {b['seconds'] / old['seconds']:.2f}×"
            print(line, flush=True)
        parts = []
        if not args.no_profile:
            profile_dir = work / "profile"
            profile_dir.mkdir(parents=True)
            profiled = ingest(args.pdfs, work / "ingest-profiled", args.workers, profile_dir)
            parts = profile_parts(profile_dir)
            kept = _common.OUT / "profile_path"
            shutil.rmtree(kept, ignore_errors=True)
            shutil.copytree(profile_dir, kept, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
            print(f"\nunder cProfile: {profiled['seconds']:.1f} s wall, {profiled['cpu_seconds']:.1f} s CPU")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    report(rounds, parts, pages, len(args.pdfs), args.workers)


def report(rounds: list[dict], parts: list[tuple[str, float, int]], pages: int, docs: int, workers: int) -> None:
    print(f"\n{docs} PDFs, {pages} pages, {workers} run workers, {len(rounds)} interleaved rounds")
    rows = []
    for n, r in enumerate(rounds):
        row = [
            n + 1,
            f"{r['load']:.1f}",
            f"{r['bare']['seconds']:.1f}",
            f"{r['bare']['process_seconds']:.1f}",
            f"{r['bare']['cpu_seconds']:.1f}",
        ]
        for path in ("ingest", "before"):
            if path in r:
                row += [
                    f"{r[path]['seconds']:.1f}",
                    f"{r[path]['cpu_seconds']:.1f}",
                    f"{r['bare']['seconds'] / r[path]['seconds']:.2f}",
                ]
        rows.append(row)
    headers = ["round", "load", "bare s", "bare process s", "bare CPU s", "ingest s", "ingest CPU s", "× bare"]
    if any("before" in r for r in rounds):
        headers += ["before s", "before CPU s", "before × bare"]
    print(_common.table(headers, rows))
    ratio = statistics.median(r["ratio"] for r in rounds)
    print(f"median ratio {ratio:.2f}× (target ≥ 1.0: {_common.verdict(ratio, 1.0)})")
    # As a user compares two commands: bare's whole process (MinerU's import and warm-up included)
    # against ingest's whole command.
    whole = [r["whole_ratio"] for r in rounds]
    print(
        f"whole-command ratio: median {statistics.median(whole):.2f}× ({min(whole):.2f}–{max(whole):.2f}×; "
        f"target ≥ 1.0: {_common.verdict(statistics.median(whole), 1.0)})"
    )
    for path in ("ingest", "before"):
        if all(path in r for r in rounds):
            cpu = statistics.median(r[path]["cpu_seconds"] / r["bare"]["cpu_seconds"] for r in rounds)
            print(f"{path}: median CPU (user+sys) {cpu:.2f}× bare's")

    # Per step and per run, mean over the rounds' ingests.
    step_totals: dict[str, list[float]] = defaultdict(list)
    launch, outside, events, run_s = [], [], [], []
    for r in rounds:
        breakdown = r["ingest"]["runs"]
        for key, s in breakdown["steps"].items():
            step_totals[key].append(s)
        for run in breakdown["runs"]:
            if run["launch_s"] is not None:
                launch.append(run["launch_s"])
                outside.append(run["outside_steps_s"])
                run_s.append(run["run_s"])
            events.append(run["events"])
    n_runs = len(events) // max(1, len(rounds))
    rows = [[key, f"{statistics.mean(v):.1f}", f"{statistics.mean(v) / docs:.2f}"] for key, v in step_totals.items()]
    rows += [
        ["runs (RUN_START → end), all", f"{sum(run_s) / len(rounds):.1f}", ""],
        ["  in-run time outside steps", f"{sum(outside) / len(rounds):.1f}", f"{statistics.median(outside):.2f}"],
        [
            "created → RUN_START (waiting for a worker, launch)",
            f"{sum(launch) / len(rounds):.1f}",
            f"{statistics.median(launch):.2f}",
        ],
        ["event-log records per run (median)", "", f"{statistics.median(events):.0f}"],
    ]
    print(f"\nper ingest ({n_runs} runs), from its instance; steps and runs overlap {workers} at a time")
    print(_common.table(["part", "s (sum)", "s per doc / median"], rows))
    if parts:
        print("\nunder cProfile, cumulative seconds summed over the command and its run workers")
        print(_common.table(["part", "cum s", "calls"], [[label, s, calls] for label, s, calls in parts if s]))
    path = _common.write_json(
        "profile_path",
        {"pages": pages, "docs": docs, "workers": workers, "rounds": rounds, "ratio": ratio, "parts": parts},
    )
    print(f"written {path}")


if __name__ == "__main__":  # required: the bare child's MinerU spawns render workers
    main()
