"""Unchanged input costs (almost) nothing: the corpus ingested again through the Dagster path,
and one drop-folder sensor tick over 1,000 unchanged files.

    .venv/bin/python bench/noop.py [--pdfs DIR] [--files 1000]

1. `ingest_folder` over the corpus (one drop folder, all documents in one call) on a fresh temp
   Dagster instance and a fresh data dir: the first run, MinerU calls counted.
2. `ingest_folder` again, nothing changed: MinerU calls (target 0) and wall time as a share of
   the first run (target ≤ 2 %). This is what `kb-pipeline ingest` and the sensor do: an
   unchanged document starts no run.
3. For information: a forced re-materialisation of every partition (the `ingest_documents` job
   per partition, as the UI's "Materialize" does). The cache answers, so MinerU is not called,
   but every run still pays Dagster's per-run cost.
4. `drop_folder_sensor` over N tiny unchanged files: two ticks prime the cursor (first look,
   then the stable second look that requests runs), the third is timed (target ≤ 2 s), then
   repeated 5 times from the same cursor.

MinerU calls are counted by wrapping `kb_pipeline.parsing.mineru_adapter.run_mineru`. The temp
instance gets the project's dagster.yaml concurrency and telemetry settings (see overhead.py).
"""

from __future__ import annotations

import argparse
import io
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import _common

TARGETS = {"mineru_calls_second_run": 0, "second_run_share": 0.02, "sensor_tick_seconds": 2.0}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pdfs", type=Path)
    parser.add_argument("--files", type=int, default=1000)
    args = parser.parse_args()
    _common.warn_if_busy()

    home = _common.setup_mineru()
    import dagster as dg
    import overhead

    from kb_pipeline.cli.ingest import ingest_folder
    from kb_pipeline.definitions import build_definitions
    from kb_pipeline.defs.resources import KnowledgeBase
    from kb_pipeline.defs.sensors import build_sensors
    from kb_pipeline.parsing import mineru_adapter
    from kb_pipeline.settings import Settings

    _common.quiet_dagster()
    import logging

    logging.getLogger("dagster").setLevel(logging.WARNING)  # the sensor logs a summary per tick
    calls: list[Path] = []
    real_run_mineru = mineru_adapter.run_mineru

    def counting_run_mineru(pdf, **kwargs):
        calls.append(pdf)
        return real_run_mineru(pdf, **kwargs)

    mineru_adapter.run_mineru = counting_run_mineru
    pdfs = _common.corpus_from(args.pdfs)
    result: dict = {"corpus": [str(p) for p in pdfs]}
    with tempfile.TemporaryDirectory(prefix="kb-bench-noop-") as tmp:
        scratch = Path(tmp)
        drop, data = scratch / "drop", scratch / "data"
        drop.mkdir()
        data.mkdir()
        for pdf in pdfs:
            shutil.copyfile(pdf, drop / pdf.name)
        (scratch / "dagster").mkdir()
        with dg.instance_for_test(
            temp_dir=str(scratch / "dagster"), overrides=overhead.project_instance_overrides(in_process=True)
        ) as instance:
            kb = KnowledgeBase(drop_folder=str(drop), data_dir=str(data))
            defs = build_definitions(kb)

            def ingest(label: str) -> dict:
                before = len(calls)
                started = time.perf_counter()
                outcomes = ingest_folder(kb, instance, progress=io.StringIO())
                seconds = time.perf_counter() - started
                statuses = {s: sum(o.status == s for o in outcomes) for s in ("ingested", "unchanged", "failed")}
                print(f"{label}: {seconds:.2f} s, MinerU calls {len(calls) - before}, {statuses}", flush=True)
                return {
                    "seconds": seconds,
                    "mineru_calls": len(calls) - before,
                    "statuses": statuses,
                    "pages": sum(int(o.metadata.get("pages", 0)) for o in outcomes),
                }

            first = ingest("first ingest_folder (all documents in one call)")
            second = ingest("second ingest_folder, nothing changed")
            job = defs.resolve_job_def("ingest_documents")
            before = len(calls)
            started = time.perf_counter()
            forced_ok = 0
            for doc_id in instance.get_dynamic_partitions("documents"):
                forced_ok += job.execute_in_process(
                    partition_key=doc_id, instance=instance, run_config=_quiet(), raise_on_error=False
                ).success
            forced = {
                "seconds": time.perf_counter() - started,
                "mineru_calls": len(calls) - before,
                "runs_ok": forced_ok,
            }
            print(
                f"forced re-materialisation of every partition: {forced['seconds']:.2f} s, "
                f"MinerU calls {forced['mineru_calls']}, {forced_ok} runs ok",
                flush=True,
            )

            # The sensor over many unchanged files.
            many = scratch / "many"
            many.mkdir()
            for i in range(args.files):
                (many / f"doc_{i:04d}.pdf").write_bytes(b"%PDF-1.4 stub " + str(i).encode())
            sensor_kb = KnowledgeBase(drop_folder=str(many), data_dir=str(data))

            def tick(cursor):
                context = dg.build_sensor_context(instance=instance, cursor=cursor, resources={"kb": sensor_kb})
                started = time.perf_counter()
                outcome = build_sensors(Settings.from_env())[0](context)
                seconds = time.perf_counter() - started
                # What the sensor daemon does with the result (outside the evaluation's time).
                for request in outcome.dynamic_partitions_requests:
                    instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
                return outcome, seconds

            priming = []
            cursor = None
            for _ in range(2):
                outcome, seconds = tick(cursor)
                cursor = outcome.cursor
                priming.append(round(seconds, 3))
            timed = []
            for _ in range(6):
                outcome, seconds = tick(cursor)
                assert outcome.run_requests == [] and f"{args.files} unchanged" in outcome.skip_reason.skip_message, (
                    outcome
                )
                timed.append(seconds)
            print(
                f"sensor over {args.files} files: priming ticks {priming} s; unchanged ticks "
                f"{[round(t, 3) for t in timed]} s",
                flush=True,
            )
    shutil.rmtree(home, ignore_errors=True)
    mineru_adapter.run_mineru = real_run_mineru

    share = second["seconds"] / first["seconds"]
    forced_share = forced["seconds"] / first["seconds"]
    result.update(
        {
            "first": first,
            "second": second,
            "second_run_share": share,
            "forced": forced,
            "forced_share": forced_share,
            "sensor": {
                "files": args.files,
                "priming_seconds": priming,
                "third_tick_seconds": timed[0],
                "repeat_ticks_seconds": timed[1:],
                "median_seconds": statistics.median(timed),
            },
            "targets": TARGETS,
        }
    )
    rows = [
        [
            "MinerU calls, 2nd ingest (unchanged)",
            second["mineru_calls"],
            "0",
            _common.verdict(second["mineru_calls"], 0, higher_is_better=False),
        ],
        [
            "2nd ingest wall time / 1st",
            f"{share:.2%} ({second['seconds']:.2f} s / {first['seconds']:.2f} s)",
            "≤ 2%",
            _common.verdict(share, 0.02, higher_is_better=False),
        ],
        [
            f"sensor tick, {args.files} unchanged files (3rd tick)",
            f"{timed[0]:.3f} s (median of 6: {statistics.median(timed):.3f} s)",
            "≤ 2 s",
            _common.verdict(timed[0], 2.0, higher_is_better=False),
        ],
        [
            "forced re-materialisation / 1st (info)",
            f"{forced_share:.1%} ({forced['seconds']:.2f} s, MinerU calls {forced['mineru_calls']})",
            "",
            "",
        ],
    ]
    print()
    print(_common.table(["measure", "measured", "target", "verdict"], rows))
    result["verdicts"] = {
        "mineru_calls_second_run": rows[0][3],
        "second_run_share": rows[1][3],
        "sensor_tick_seconds": rows[2][3],
    }
    print(f"\nwritten {_common.write_json('noop', result)}")


def _quiet() -> dict:
    from kb_pipeline.cli.ingest import QUIET

    return QUIET


if __name__ == "__main__":
    main()
