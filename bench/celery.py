"""The Celery path against the local launcher on the same box and documents: throughput of
`kb-pipeline ingest`, and each path's per-run overhead.

    .venv/bin/python bench/celery.py [--docs N (8)] [--pages P (3)]

Both paths get the same N generated report PDFs of P pages (`_common.report_pdf`), a fresh data
root and instance each, the shipped `mineru` pool (2) and the model off (`KB_LLM=off`: the
deterministic readers only), and two run slots:

- local: `dagster.yaml`, `kb-pipeline ingest` with `KB_PARSE_WORKERS=2` (two warm ingest workers);
- celery: `dagster.celery.yaml` with `max_concurrent_runs: 2`, PostgreSQL and `redis-server` on
  loopback, `dagster-daemon`, and two `kb-pipeline worker`s of one pool process each (in UTS
  namespaces of their own, as two hosts), started and ready before the timing; `kb-pipeline
  ingest` on that instance launches the runs through the Celery launcher.

Timed: the `kb-pipeline ingest` command's wall time (process start to exit; pages/s). Per run,
read back from each instance: the steps' summed time (STEP_START → STEP_SUCCESS), the run's
in-run overhead (RUN_START → RUN_SUCCESS minus the steps: engine, events, resources, pool waits),
and for Celery the launch latency (RUN_STARTING, the launcher's call → RUN_START on a worker:
broker, task pickup, the run's reconstruction). Needs root, PostgreSQL's server and redis-server
(installed when missing, as `make test-services` does).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common

WORKERS = ("bench-a", "bench-b")


def _kb(*args: str) -> list[str]:
    return [sys.executable, "-m", "kb_pipeline.cli.main", *args]


def _per_run(env: dict[str, str]) -> dict[str, float]:
    """Medians over the `ingest_documents` runs of the instance `env` points at."""
    import dagster as dg

    from kb_pipeline.defs.run_timeline import step_spans

    saved = dict(os.environ)
    os.environ.update(env)
    try:
        with dg.DagsterInstance.get() as instance:
            runs = instance.get_runs(dg.RunsFilter(job_name="ingest_documents", statuses=[dg.DagsterRunStatus.SUCCESS]))
            spans, _ = step_spans(instance, [run.run_id for run in runs])
            steps, overhead, launch = [], [], []
            for run in runs:
                stats = instance.get_run_stats(run.run_id)
                step_time = sum(span.end - span.start for span in spans if span.run_id == run.run_id)
                steps.append(step_time)
                overhead.append((stats.end_time or 0) - (stats.start_time or 0) - step_time)
                if stats.launch_time and stats.start_time:
                    launch.append(stats.start_time - stats.launch_time)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    result = {"runs": len(runs), "steps_s": statistics.median(steps), "in_run_overhead_s": statistics.median(overhead)}
    if launch:
        result["launch_latency_s"] = statistics.median(launch)
    return result


def _ingest(env: dict[str, str], inbox: Path, log: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(_kb("ingest", "--input", str(inbox)), env=env, capture_output=True, text=True, timeout=3600)
    seconds = time.perf_counter() - started
    log.write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        raise SystemExit(f"ingest failed ({log}):\n{done.stderr[-3000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=8)
    parser.add_argument("--pages", type=int, default=3)
    args = parser.parse_args()
    _common.setup_mineru()
    _common.warn_if_busy()
    from kb_pipeline_tests.deployment import make_deployment
    from kb_pipeline_tests.services import Stack, postgres_server, redis_server

    root = Path(tempfile.mkdtemp(prefix="kb-bench-celery-"))
    inbox = root / "inbox"
    inbox.mkdir()
    for i in range(args.docs):
        _common.report_pdf(inbox / f"report_{i:02d}.pdf", args.pages, title=f"Report {i}")
    pages = args.docs * args.pages
    base = {
        **os.environ,
        "PYTHONPATH": str(_common.REPO),
        "KB_LLM": "off",
        "MINERU_MODEL_SOURCE": "local",
        "HF_HUB_OFFLINE": "1",
    }
    results = {}

    local = make_deployment(root / "local")
    local_env = {**base, **local.env, "KB_PARSE_WORKERS": "2"}
    seconds = _ingest(local_env, inbox, root / "local-ingest.log")
    results["local"] = {"wall_s": seconds, "pages_per_s": pages / seconds, **_per_run(local_env)}
    print(f"local: {seconds:.1f} s", flush=True)

    config = (
        (_common.REPO / "dagster.celery.yaml").read_text().replace("max_concurrent_runs: 4", "max_concurrent_runs: 2")
    )
    cluster = make_deployment(root / "celery", config)
    with postgres_server() as pg, redis_server() as redis_url:
        env = {**base, **cluster.env, **pg, "KB_CELERY_BROKER_URL": redis_url, "KB_CELERY_CONCURRENCY": "1"}
        stack = Stack(env, root)
        try:
            claimed = subprocess.run(_kb("shared-root"), env=env, capture_output=True, text=True, timeout=120)
            if claimed.returncode != 0:
                raise SystemExit(claimed.stderr[-2000:])
            instance_cli = str(Path(sys.executable).parent / "dagster")
            for pool in ("mineru", "llm"):
                subprocess.run([instance_cli, "instance", "concurrency", "set", pool, "2"], env=env, check=True)
            stack.start("daemon", [str(Path(sys.executable).parent / "dagster-daemon"), "run", "-w", "workspace.yaml"])
            for host in WORKERS:
                stack.start(host, _kb("worker"), host=host)
            deadline = time.monotonic() + 300
            while not all(" ready." in (root / f"{host}.log").read_text() for host in WORKERS):
                if time.monotonic() > deadline:
                    raise SystemExit("the workers did not get ready in 300 s")
                time.sleep(0.5)
            seconds = _ingest(env, inbox, root / "celery-ingest.log")
            results["celery"] = {"wall_s": seconds, "pages_per_s": pages / seconds, **_per_run(env)}
            print(f"celery: {seconds:.1f} s", flush=True)
        finally:
            stack.close()

    headers = ["path", "wall s", "pages/s", "runs", "steps s (median run)", "in-run overhead s", "launch latency s"]
    rows = [
        [
            name,
            r["wall_s"],
            r["pages_per_s"],
            r["runs"],
            r["steps_s"],
            r["in_run_overhead_s"],
            r.get("launch_latency_s"),
        ]
        for name, r in results.items()
    ]
    print(f"{args.docs} documents, {pages} pages")
    print(_common.table(headers, rows))
    print(f"celery/local throughput: {results['celery']['pages_per_s'] / results['local']['pages_per_s']:.2f}x")
    print(_common.write_json("celery", {"docs": args.docs, "pages": pages, "results": results}))
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
