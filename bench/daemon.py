"""Runs the Dagster daemon launches, on the real `make ui` stack: how long a dropped PDF takes to
be materialised, and how fast a corpus dropped at once goes through, against one bare MinerU
flash process parsing the same files in the same run.

    .venv/bin/python bench/daemon.py [--stack ui|dev] [--pdfs FILE ...]

--stack ui: `kb-pipeline ui` (what `make ui` runs: `dagster dev` plus the warm parse service).
--stack dev: bare `dagster dev`, each run parsing in its own process (for comparison).

In a temp deployment (its own DAGSTER_HOME with the repo's dagster.yaml, data root and drop
folder; the default settings, so the sensor ticks every KB_SENSOR_INTERVAL seconds):

1. (a) bare: one process parses the corpus with MinerU flash (bench/overhead.py's recipe),
   warmed up first.
2. The stack is started and left to settle; a 2-page PDF is copied into the drop folder and the
   time until its `parsed_document` is materialised is taken (the sensor's interval, its
   stability rule, the run queue, the run worker and the parse, all included), three times at
   different points of the sensor daemon's 5 s cycle.
3. The corpus is copied into the drop folder at once: the sensor requests one run per file and
   the daemon runs them (`max_concurrent_runs`, the `mineru` pool) — the same runs a
   partitioned backfill launches. Timed from the copy to the last `parsed_document`.
4. Peak memory of the stack's whole process tree (RSS summed, sampled every 0.2 s).
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import _common

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SMALL = _common.SHARED / "fixtures" / "pdfs" / "sample.pdf"  # 2 pages
DROPS = 3
CORPUS = [
    "manual_ibm_redpaper_db2_rcac",
    "manual_pymupdf_v1_8",
    "paper_twocol_creativity_ml",
    "paper_twocol_hydrology_afforestation",
    "report_eu_finland_vet",
    "report_eu_food_retail_tables",
    "report_fr_solar_impact_study",
    "report_qwen2_technical",
    "standard_nist_hpc_security",
    "table_nces_projections_multipage",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _tree_rss(root: int) -> tuple[int, list[tuple[int, str]]]:
    """Bytes of RSS summed over `root`'s session (the stack runs in a session of its own), and
    each process's (RSS, command)."""
    total, each = 0, []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getsid(int(entry.name)) != root:
                continue
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024
                    total += rss
                    command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                    each.append((rss, command[:90]))
        except (OSError, ProcessLookupError):
            continue
    return total, sorted(each, reverse=True)


def _materialised(doc_ids: set[str]) -> set[str]:
    import dagster as dg

    with dg.DagsterInstance.get() as instance:
        records = instance.fetch_materializations(dg.AssetKey("parsed_document"), limit=1000).records
        return {r.partition_key for r in records if r.partition_key in doc_ids}


def _wait_for(doc_ids: set[str], timeout: float, log: Path) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if _materialised(doc_ids) == doc_ids:
            return time.monotonic() - started
        time.sleep(0.2)
    raise SystemExit(f"timed out after {timeout:.0f} s; stack log:\n{log.read_text(errors='replace')[-3000:]}")


def _timeline(doc_id: str, dropped_at: float, materialised_after: float) -> str:
    """Where a dropped PDF's seconds went: until its run was created (sensor looks), queued
    until its worker started (run queue, worker start-up), and the run until `parsed_document`
    was materialised."""
    import dagster as dg

    with dg.DagsterInstance.get() as instance:
        (record,) = instance.get_run_records(dg.RunsFilter(tags={"dagster/partition": doc_id}), limit=1)
        started = instance.get_run_stats(record.dagster_run.run_id).start_time
    created = record.create_timestamp.timestamp() - dropped_at
    worker = (started or 0) - dropped_at - created
    return (
        f"run created {created:.1f} s after the drop, its worker started {worker:.1f} s later, "
        f"the run materialised parsed_document {materialised_after - created - worker:.1f} s after that"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--stack", choices=["ui", "dev"], default="ui")
    parser.add_argument(
        "--pdfs", nargs="*", type=Path, default=[_common.SHARED / "corpus" / "pdfs" / f"{n}.pdf" for n in CORPUS]
    )
    args = parser.parse_args()
    _common.warn_if_busy()
    mineru_home = _common.setup_mineru()
    from overhead import bare_mineru

    from kb_pipeline.sources import doc_id_for
    from kb_pipeline_tests.deployment import make_deployment

    pages = sum(_common.pdf_pages(p) for p in args.pdfs)
    work = Path(tempfile.mkdtemp(prefix="kb-bench-daemon-"))
    stack = None
    try:
        bare_mineru(SMALL, work / "warm")
        started = time.perf_counter()
        for n, pdf in enumerate(args.pdfs):
            bare_mineru(pdf, work / f"bare-{n}")
        bare = time.perf_counter() - started

        deployment = make_deployment(work)
        drop, env = deployment.drop, deployment.env
        os.environ.update(env)
        port = str(_free_port())
        command = (
            [str(BIN / "kb-pipeline"), "ui", "--port", port]
            if args.stack == "ui"
            else [str(BIN / "dagster"), "dev", "-w", str(REPO / "workspace.yaml"), "-h", "127.0.0.1", "-p", port]
        )
        log = work / "stack.log"
        with log.open("wb") as out:
            stack = subprocess.Popen(
                command, env=os.environ.copy(), cwd=REPO, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        peak: list = [0, []]
        sampling = threading.Event()

        def sample() -> None:
            while not sampling.is_set():
                total, each = _tree_rss(stack.pid)
                if total > peak[0]:
                    peak[:] = [total, each]
                time.sleep(0.2)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        time.sleep(25)  # webserver, daemon and code server up, the first sensor ticks done

        # The sensor daemon looks every 5 s: a drop's wait depends on when it lands in that
        # cycle, so several drops, each 1.7 s later in the cycle than the one before.
        drops = []
        for k in range(DROPS):
            target = drop / f"dropped-{k}.pdf"
            dropped_at = time.time()
            shutil.copy(SMALL, target)
            seconds = _wait_for({doc_id_for(target)}, 120, log)
            drops.append((seconds, _timeline(doc_id_for(target), dropped_at, seconds)))
            time.sleep(1.7 + 5 - seconds % 5)
        for pdf in args.pdfs:
            shutil.copy(pdf, drop)
        corpus_seconds = _wait_for({doc_id_for(drop / p.name) for p in args.pdfs}, 600, log)
        sampling.set()
        sampler.join()
    finally:
        if stack is not None and stack.poll() is None:
            os.killpg(stack.pid, signal.SIGINT)
            try:
                stack.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(stack.pid, signal.SIGKILL)
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(mineru_home, ignore_errors=True)

    ratio = bare / corpus_seconds
    print(f"{len(args.pdfs)} PDFs, {pages} pages; stack: {' '.join(command[:2])}")
    rows = [
        ["(a) bare MinerU, 1 process", f"{bare:.1f}", f"{pages / bare:.2f}", "1.00"],
        [
            "(d) dropped at once, daemon-launched runs",
            f"{corpus_seconds:.1f}",
            f"{pages / corpus_seconds:.2f}",
            f"{ratio:.2f}",
        ],
    ]
    print(_common.table(["mode", "seconds", "pages/s", "× bare"], rows))
    median = sorted(seconds for seconds, _ in drops)[len(drops) // 2]
    print(f"drop-to-materialised, 2-page PDF, {len(drops)} drops: median {median:.1f} s (target ≤ 8 s)")
    for seconds, timeline in drops:
        print(f"  {seconds:.1f} s: {timeline}")
    print(f"peak RSS of the stack's process tree: {peak[0] / 2**30:.2f} GiB (target ≤ 1.5 GiB), at that moment:")
    for rss, command in peak[1]:
        print(f"  {rss / 2**20:6.0f} MiB  {command}")
    _common.write_json(
        f"daemon-{args.stack}",
        {
            "pdfs": [p.name for p in args.pdfs],
            "pages": pages,
            "stack": args.stack,
            "bare_seconds": bare,
            "corpus_seconds": corpus_seconds,
            "ratio": ratio,
            "drop_to_materialised_seconds": [seconds for seconds, _ in drops],
            "drop_timelines": [timeline for _, timeline in drops],
            "peak_rss_bytes": peak[0],
            "machine": _common.machine(),
        },
    )


if __name__ == "__main__":  # required: MinerU starts "spawn" processes
    main()
