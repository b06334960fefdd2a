"""Load: N small PDFs dropped at once, ingested through the drop-folder SENSOR path with the
`mineru` pool limit enforced across concurrent runs.

    .venv/bin/python bench/load.py [--docs 200] [--workers 4] [--pool-limit 2] [--json out.json]

What it does, in a temp deployment (its own DAGSTER_HOME with the repo's dagster.yaml, the pool
limit set to --pool-limit, sqlite instance, data root and drop folder):

1. writes --docs one-page PDFs into the drop folder at once (kb_pipeline_tests.samples.text_pdf);
2. ticks `drop_folder_sensor` as the daemon does (first tick: every file seen once, waits; second
   tick: one RunRequest per document), adding the partitions it asks for;
3. executes the requested runs in --workers processes at once (each run `ingest_documents` for
   its partition with the job's own in-process executor, against the same instance — as
   max_concurrent_runs run workers would), so every `mineru_raw_output` step must claim a slot
   of the `mineru` pool from the shared instance before MinerU starts;
4. checks with the instance that every run succeeded and every partition of every asset is
   materialised, and from STEP_START/STEP_SUCCESS timestamps that no more than --pool-limit
   parses overlapped; counts "blocked by limit for pool mineru" events (proof the limit bit);
5. ticks the sensor again over the unchanged folder (0 runs expected), and once more from an
   empty cursor, as after a lost cursor (still 0: every document is already current).

Reports wall time per phase, peak memory (the sum of RSS over this process tree, sampled every
0.1 s, and the largest single-process VmHWM), runs, overlaps. `kb_pipeline_tests/test_load.py`
runs it with a small --docs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import _common

REPO_ROOT = Path(__file__).resolve().parents[1]
ASSETS = ["mineru_raw_output", "parsed_document", "quality_warnings", "kb_package", "knowledge_payloads"]


def setup_deployment(workdir: Path, pool_limit: int) -> dict:
    from kb_pipeline_tests.deployment import make_deployment

    config = (REPO_ROOT / "dagster.yaml").read_text()
    assert "default_limit: 2" in config, "dagster.yaml no longer sets the pool's default_limit: 2"
    return make_deployment(workdir, config.replace("default_limit: 2", f"default_limit: {pool_limit}")).env


def write_pdfs(drop: Path, count: int) -> None:
    from kb_pipeline_tests.samples import text_pdf

    for i in range(count):
        text_pdf(
            drop / f"doc_{i:04d}.pdf",
            [
                f"1. Scope of procedure {i}",
                f"Procedure {i} applies to pump station {i % 17} at {10 + i % 9} bar.",
                "2. Inspection",
                f"Inspect seal {i} every {100 + i} hours.",
            ],
            title=f"Procedure {i}",
        )


def _tick(kb, instance, cursor):
    import dagster as dg

    from kb_pipeline.defs.sensors import build_sensors
    from kb_pipeline.settings import Settings

    # Every file waits for a second look, however long writing them took (ticks 1 and 2 below).
    drop_folder_sensor = build_sensors(Settings.from_env().model_copy(update={"drop_settle_seconds": 1e9}))[0]
    result = drop_folder_sensor(dg.build_sensor_context(instance=instance, cursor=cursor, resources={"kb": kb}))
    for request in result.dynamic_partitions_requests:
        instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
    for event in result.asset_events:  # the daemon records the sensor's observations
        instance.report_runless_asset_event(event)
    return result


def worker(assignment_file: Path) -> int:
    """Executes its share of the requested runs, one after another, in this process."""
    warnings.filterwarnings("ignore")
    import dagster as dg

    from kb_pipeline.cli.ingest import QUIET
    from kb_pipeline.definitions import definitions_for
    from kb_pipeline.defs.names import INGEST_JOB
    from kb_pipeline.settings import Settings

    job = definitions_for(Settings.from_env()).resolve_job_def(INGEST_JOB)
    failed = 0
    with dg.DagsterInstance.get() as instance:
        for item in json.loads(assignment_file.read_text()):
            result = job.execute_in_process(
                partition_key=item["partition"],
                instance=instance,
                tags=item["tags"],
                run_config=QUIET,
                raise_on_error=False,
            )
            failed += not result.success
    return 1 if failed else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=200)
    parser.add_argument("--workers", type=int, default=4, help="runs at once (dagster.yaml: max_concurrent_runs 4)")
    parser.add_argument("--pool-limit", type=int, default=2, help="the `mineru` pool limit (dagster.yaml: 2)")
    parser.add_argument("--workdir", type=Path, default=None, help="default: a new temp dir")
    parser.add_argument("--json", type=Path, default=None, help="write the report here too")
    parser.add_argument("--worker", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.worker)

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="kb-load-"))
    env = setup_deployment(workdir, args.pool_limit)
    os.environ.update(env)  # before kb_pipeline's definitions read their defaults
    warnings.filterwarnings("ignore")
    import logging

    import dagster as dg

    logging.getLogger("dagster").setLevel(logging.WARNING)  # the sensor's per-file lines

    from kb_pipeline.defs.resources import KnowledgeBase
    from kb_pipeline.defs.run_timeline import peak_concurrency, step_spans

    with _common.TreeMemorySampler(os.getpid(), interval=0.1) as sampler:
        report: dict = {
            "docs": args.docs,
            "workers": args.workers,
            "pool_limit": args.pool_limit,
            "workdir": str(workdir),
        }
        t0 = time.perf_counter()
        write_pdfs(Path(env["KB_DROP_FOLDER"]), args.docs)
        report["write_pdfs_seconds"] = round(time.perf_counter() - t0, 2)
        kb = KnowledgeBase(drop_folder=env["KB_DROP_FOLDER"], data_dir=env["KB_DATA_DIR"])

        with dg.DagsterInstance.get() as instance:
            t1 = time.perf_counter()
            first = _tick(kb, instance, None)
            second = _tick(kb, instance, first.cursor)
            requests = second.run_requests
            report["sensor_ticks_seconds"] = round(time.perf_counter() - t1, 2)
            report["tick1_runs"], report["tick2_runs"] = len(first.run_requests), len(requests)

            # Hand the requests out round-robin to the run workers, tagged as the daemon tags them.
            shares = [[] for _ in range(args.workers)]
            for n, request in enumerate(requests):
                shares[n % args.workers].append(
                    {
                        "partition": request.partition_key,
                        "tags": {
                            **request.tags,
                            "dagster/run_key": request.run_key,
                            "dagster/sensor_name": "drop_folder_sensor",
                        },
                    }
                )
            t2 = time.perf_counter()
            procs = []
            for n, share in enumerate(shares):
                if not share:
                    continue
                path = workdir / f"worker-{n}.json"
                path.write_text(json.dumps(share))
                procs.append(
                    subprocess.Popen(
                        [sys.executable, __file__, "--worker", str(path)],
                        cwd=REPO_ROOT,
                        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
                    )
                )
            worker_rcs = [p.wait() for p in procs]
            report["execute_seconds"] = round(time.perf_counter() - t2, 2)
            report["worker_exit_codes"] = worker_rcs

            runs = instance.get_runs(dg.RunsFilter(job_name="ingest_documents"))
            report["runs"] = len(runs)
            report["runs_succeeded"] = sum(r.status == dg.DagsterRunStatus.SUCCESS for r in runs)
            docs = {r.partition_key for r in requests}
            report["partitions_materialised"] = {
                asset: len(instance.get_materialized_partitions(dg.AssetKey(asset)) & docs) for asset in ASSETS
            }
            spans, pool_waits = step_spans(instance, [r.run_id for r in runs])
            parses = [span for span in spans if span.step_key == "mineru_raw_output"]
            report["parse_steps"] = len(parses)
            report["max_parses_at_once"] = peak_concurrency(parses)
            report["blocked_by_pool_events"] = pool_waits
            report["slots_held_after"] = len(instance.event_log_storage.get_concurrency_info("mineru").claimed_slots)

            t3 = time.perf_counter()
            again = _tick(kb, instance, second.cursor)
            lost = _tick(kb, instance, _tick(kb, instance, None).cursor)
            report["second_pass_runs"], report["lost_cursor_pass_runs"] = (
                len(again.run_requests),
                len(lost.run_requests),
            )
            report["second_pass_seconds"] = round(time.perf_counter() - t3, 2)
    report["wall_seconds"] = round(time.perf_counter() - t0, 2)
    report["runs_per_minute"] = round(60 * report["runs"] / max(report["execute_seconds"], 1e-9), 1)
    report["peak_rss_tree_mb"] = round(sampler.peak_rss_kib / 1024, 1)
    report["peak_single_process_hwm_mb"] = round(max(sampler.hwm_kib.values(), default=0) / 1024, 1)
    ok = (
        report["tick2_runs"] == args.docs
        and report["runs_succeeded"] == report["runs"] == args.docs
        and all(n == args.docs for n in report["partitions_materialised"].values())
        and report["max_parses_at_once"] <= args.pool_limit
        and report["second_pass_runs"] == 0
        and report["lost_cursor_pass_runs"] == 0
        and report["slots_held_after"] == 0
    )
    report["ok"] = ok
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
