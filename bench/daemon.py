"""Runs the Dagster daemon launches, on the real `make ui` stack (`kb-pipeline ui`: `dagster dev`,
its runs in warm run workers): how long a dropped PDF takes to be materialised, and how fast a
corpus goes through, against one bare MinerU flash process parsing the same files in the same run.

    .venv/bin/python bench/daemon.py [--backfill] [--pdfs FILE ...]

In a temp deployment (its own DAGSTER_HOME with the repo's dagster.yaml, data root and drop
folder; the default settings, so the sensor ticks every KB_SENSOR_INTERVAL seconds):

1. (a) bare: one process parses the corpus with MinerU flash (bench/overhead.py's recipe),
   warmed up first.
2. The stack is started and left to settle; a 2-page PDF is copied into the drop folder and the
   time until its `parsed_document` is materialised is taken (the sensor's interval, its
   stability rule, the run queue, the run worker and the parse, all included), three times at
   different points of the sensor daemon's 5 s cycle.
3. The corpus is copied into the drop folder at once: the sensor requests one run per file and
   the daemon runs them (`max_concurrent_runs`, the `mineru` pool). Timed from the copy to the
   last `parsed_document`, with each run's timeline and the CPU the stack spent meanwhile.
   With --backfill, no drops (2.): the sensor is kept away (KB_SENSOR_INTERVAL=3600 after its
   first look at the empty folder), the corpus's partitions are added and a backfill of
   `ingest_documents` over them is launched with `dagster job backfill`; timed from the launch.
4. Peak memory of the stack's whole process tree: RSS summed, and PSS summed (shared pages
   counted once), sampled every 0.2 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SMALL = _common.SHARED / "fixtures" / "pdfs" / "sample.pdf"  # 2 pages
DROPS = 3


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


def _run_timeline(copied_at: float) -> list[str]:
    """Each run of the corpus: when it was created, handed to the launcher, taken by a warm run
    worker, started and ended, seconds after the copy."""
    import dagster as dg

    from kb_pipeline.defs.dead_runs import RUN_TAKEN, RUN_WAITING, events_marked

    lines = []
    with dg.DagsterInstance.get() as instance:
        for record in sorted(instance.get_run_records(), key=lambda r: r.create_timestamp):
            stats = instance.get_run_stats(record.dagster_run.run_id)
            created = record.create_timestamp.timestamp() - copied_at
            if created < 0:
                continue
            start, end = ((t - copied_at if t else float("nan")) for t in (stats.start_time, stats.end_time))
            run_id = record.dagster_run.run_id
            marks = {
                label: found[-1][0] - copied_at
                for label, prefix in (("launched", RUN_WAITING), ("taken", RUN_TAKEN))
                if (found := events_marked(instance, run_id, prefix))
            }
            steps = ", ".join(f"{label} {at:5.1f}" for label, at in marks.items())
            name = record.dagster_run.tags.get("kb/source", record.dagster_run.job_name)
            lines.append(f"  created {created:5.1f}  {steps}  started {start:5.1f}  ended {end:5.1f}  {name}")
    return lines


def _backfill(pdfs: list[Path], env: dict[str, str]) -> None:
    """Add the partitions of the PDFs in the drop folder and launch a backfill of
    `ingest_documents` over them with Dagster's CLI, as a person would from a terminal."""
    import dagster as dg

    from kb_pipeline.defs.partitions import DOCUMENTS
    from kb_pipeline.sources import doc_id_for

    keys = [doc_id_for(pdf) for pdf in pdfs]
    with dg.DagsterInstance.get() as instance:
        instance.add_dynamic_partitions(DOCUMENTS, keys)
    subprocess.run(
        [str(BIN / "dagster"), "job", "backfill", "-w", str(REPO / "workspace.yaml"), "-j", "ingest_documents"]
        + ["--partitions", ",".join(keys), "--noprompt"],
        env={**os.environ, **env},
        cwd=REPO,
        check=True,
        capture_output=True,
    )


def _drop_one(target: Path, log: Path) -> tuple[float, str]:
    """Copy the 2-page PDF to `target`; seconds until materialised, and where they went. Then
    waits until 1.7 s later in the sensor daemon's 5 s cycle than this drop, so that the next
    drop lands at another point of it (a drop's wait depends on where it lands)."""
    from kb_pipeline.sources import doc_id_for

    dropped_at = time.time()
    shutil.copy(SMALL, target)
    seconds = _wait_for({doc_id_for(target)}, 120, log)
    timeline = _timeline(doc_id_for(target), dropped_at, seconds)
    time.sleep(1.7 + 5 - seconds % 5)
    return seconds, timeline


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--backfill", action="store_true", help="launch a partitioned backfill of the corpus instead of dropping it"
    )
    parser.add_argument("--pdfs", nargs="*", type=Path, default=_common.TEN_REAL_PDFS)
    args = parser.parse_args()
    _common.warn_if_busy()
    mineru_home = _common.setup_mineru()
    from overhead import time_bare_mineru

    from kb_pipeline.sources import doc_id_for
    from kb_pipeline_tests.deployment import free_port, make_deployment

    pages = sum(_common.pdf_pages(p) for p in args.pdfs)
    work = Path(tempfile.mkdtemp(prefix="kb-bench-daemon-"))
    stack = None
    try:
        bare = time_bare_mineru(args.pdfs, work / "bare")

        deployment = make_deployment(work)
        drop, env = deployment.drop, deployment.env
        os.environ.update(env)
        if args.backfill:
            # The sensor looks once at the empty folder when the stack starts, then not for an
            # hour: the corpus is run by the backfill alone.
            os.environ["KB_SENSOR_INTERVAL"] = "3600"
        command = [str(BIN / "kb-pipeline"), "ui", "--port", str(free_port())]
        log = work / "stack.log"
        with log.open("wb") as out:
            stack = subprocess.Popen(
                command, env=os.environ.copy(), cwd=REPO, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        with _common.TreeMemorySampler(stack.pid, interval=0.2) as sampler:
            time.sleep(25)  # webserver, daemon and code server up, the first sensor ticks done
            drops = [] if args.backfill else [_drop_one(drop / f"dropped-{k}.pdf", log) for k in range(DROPS)]
            cpu_before = _common.tree_cpu_seconds(stack.pid)
            copied_at = time.time()
            for pdf in args.pdfs:
                shutil.copy(pdf, drop)
            if args.backfill:
                _backfill([drop / pdf.name for pdf in args.pdfs], env)
            _wait_for({doc_id_for(drop / p.name) for p in args.pdfs}, 600, log)
            corpus_seconds = time.time() - copied_at  # a backfill's launch included
            cpu = _common.cpu_spent(cpu_before, _common.tree_cpu_seconds(stack.pid))
            timeline = _run_timeline(copied_at)
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
    how = "a backfill of" if args.backfill else "dropped at once,"
    rows = [
        ["(a) bare MinerU, 1 process", f"{bare:.1f}", f"{pages / bare:.2f}", "1.00"],
        [
            f"(d) {how} daemon-launched runs",
            f"{corpus_seconds:.1f}",
            f"{pages / corpus_seconds:.2f}",
            f"{ratio:.2f}",
        ],
    ]
    print(_common.table(["mode", "seconds", "pages/s", "× bare"], rows))
    print("the corpus's runs, seconds after the copy:")
    print("\n".join(timeline))
    if drops:
        median = sorted(seconds for seconds, _ in drops)[len(drops) // 2]
        print(f"drop-to-materialised, 2-page PDF, {len(drops)} drops: median {median:.1f} s (target ≤ 8 s)")
        for seconds, where in drops:
            print(f"  {seconds:.1f} s: {where}")
    print(
        f"peak RSS of the stack's process tree: {sampler.peak_rss_kib / 2**20:.2f} GiB (target ≤ 1.5 GiB), "
        "at that moment:"
    )
    for kib, command in sampler.at_peak:
        print(f"  {kib / 1024:6.0f} MiB  {command[:90]}")
    print(f"peak PSS (shared pages counted once): {sampler.peak_pss_kib / 2**20:.2f} GiB")
    print(f"CPU of the stack while the corpus ran: {sum(s for s, _ in cpu):.1f} s (bare MinerU: about {bare:.0f} s)")
    for seconds, command in cpu:
        print(f"  {seconds:6.1f} s  {command[:90]}")
    _common.write_json(
        "daemon-backfill" if args.backfill else "daemon",
        {
            "pdfs": [p.name for p in args.pdfs],
            "pages": pages,
            "launched_by": "backfill" if args.backfill else "drop folder sensor",
            "bare_seconds": bare,
            "corpus_seconds": corpus_seconds,
            "ratio": ratio,
            "drop_to_materialised_seconds": [seconds for seconds, _ in drops],
            "drop_timelines": [timeline for _, timeline in drops],
            "peak_rss_bytes": sampler.peak_rss_kib * 1024,
            "peak_pss_bytes": sampler.peak_pss_kib * 1024,
            "corpus_cpu_seconds": [[seconds, command] for seconds, command in cpu],
            "machine": _common.machine(),
        },
    )


if __name__ == "__main__":  # required: MinerU starts "spawn" processes
    main()
