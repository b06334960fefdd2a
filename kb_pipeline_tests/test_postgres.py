"""The Postgres variant of the instance (dagster.postgres.yaml) against a REAL PostgreSQL server:
a temp cluster on a free loopback port, a database for Dagster, and the `ingest_documents` job
for three partitions at once, each run on the multiprocess executor (every step its own
process), all of them writing runs, events, partitions and pool slots into that database.

Needs PostgreSQL's server binaries (Debian's `postgresql` package). When they are missing the
test installs them itself if it runs as root (as CI does), else it fails saying how to get
them: it never skips.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import dagster as dg
import pytest

from kb_pipeline.defs.run_timeline import peak_concurrency, step_spans
from kb_pipeline_tests.samples import text_pdf

from .conftest import REPO_ROOT
from .deployment import make_deployment
from .services import MissingServer, postgres_server

pytestmark = [pytest.mark.slow, pytest.mark.services]
ASSETS = ["mineru_raw_output", "parsed_document", "quality_warnings", "kb_package", "knowledge_payloads"]
DOCS = ["alpha", "beta", "gamma"]

# The same definitions with `ingest_documents` on the multiprocess executor (the shipped job runs
# in-process to save process start-ups; swapping the executor is configuration, as it is for the
# k8s or Celery executors in docs/SCALING.md). Its step processes are forked from a server that
# has imported the definitions once, rather than each importing them again.
MULTIPROCESS_DEFS = """
import dagster as dg
from kb_pipeline.definitions import definitions_for
from kb_pipeline.defs.jobs import ingest_job
from kb_pipeline.settings import Settings

shipped = definitions_for(Settings.from_env())
defs = dg.Definitions(
    assets=shipped.assets, resources=shipped.resources,
    jobs=[dg.define_asset_job(ingest_job.name, selection=ingest_job.selection,
                              executor_def=dg.multiprocess_executor.configured({
                                  "max_concurrent": 2,
                                  "start_method": {"forkserver": {"preload_modules": ["kb_pipeline.definitions"]}},
                              }))],
)
"""

# One run of `ingest_documents` for one partition: execute_job with a reconstructable job, so
# the multiprocess executor can start each step in a process of its own.
DRIVER = """
import json, sys, warnings
warnings.simplefilter("ignore")
import dagster as dg
from dagster._core.definitions.reconstruct import ReconstructableRepository

job = ReconstructableRepository.for_file(sys.argv[2], "defs").get_reconstructable_job("ingest_documents")
with dg.DagsterInstance.get() as instance:
    result = dg.execute_job(job, instance, tags={"dagster/partition": sys.argv[1]})
    print(json.dumps({"run_id": result.run_id, "success": result.success}))
"""


@pytest.fixture
def postgres():
    """A throwaway cluster listening only on 127.0.0.1; yields its connection settings."""
    try:
        import dagster_postgres  # noqa: F401
        import psycopg2  # noqa: F401
    except ImportError as e:
        pytest.fail(
            f"{e.name} is not installed: `make setup` (the dev extra) installs psycopg2-binary, "
            "and `.venv/bin/pip install --no-deps -c constraints.txt dagster-postgres` dagster-postgres"
        )
    try:
        with postgres_server() as settings:
            yield settings
    except MissingServer as e:
        pytest.fail(str(e))


def _failures(stderr: str) -> str:
    """The engine's error lines of a failed run, for the assertion message."""
    lines = [line for line in stderr.splitlines() if "ERROR" in line or "Error" in line or "error" in line]
    return "\n".join(lines[-20:])[-4000:]


def test_ingest_on_postgres_with_parallel_runs_and_steps(tmp_path, postgres, monkeypatch):
    started = time.monotonic()
    deployment = make_deployment(tmp_path, (REPO_ROOT / "dagster.postgres.yaml").read_text())
    drop, data = deployment.drop, deployment.data
    for i, name in enumerate(DOCS):
        text_pdf(
            drop / f"{name}.pdf",
            [
                f"{i + 1}. {name.title()}",
                f"The {name} pump runs at {10 + i} bar.",
                "2. Maintenance",
                f"Inspect the {name} seal every {100 * (i + 1)} hours.",
            ],
        )
    env = {**deployment.env, **postgres}
    for key, value in env.items():
        monkeypatch.setenv(key, value)

    with dg.DagsterInstance.get() as instance:
        storage = type(instance.run_storage).__name__
        assert storage == "PostgresRunStorage", storage
        instance.add_dynamic_partitions("documents", DOCS)
        # Create the `mineru` and `llm` pools' rows (at dagster.yaml's default_limit) before runs start:
        # Dagster 1.13.28 creates it on a step's first claim, and two runs' first claims at once
        # race on Postgres (UniqueViolation "concurrency_limits_concurrency_key_key", the run
        # fails). See docs/SCALING.md.
        for pool in ("mineru", "llm"):
            instance.event_log_storage.initialize_concurrency_limit_to_default(pool)
            assert instance.event_log_storage.get_concurrency_info(pool).slot_count == 2

    # Three runs at once, each its own orchestrator process with the multiprocess executor.
    defs_file = tmp_path / "multiprocess_defs.py"
    defs_file.write_text(MULTIPROCESS_DEFS)
    drivers = {
        doc: subprocess.Popen(
            [sys.executable, "-c", DRIVER, doc, str(defs_file)],
            cwd=REPO_ROOT,
            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for doc in DOCS
    }
    results = {}
    for doc, proc in drivers.items():
        out, err = proc.communicate(timeout=240)
        (tmp_path / f"{doc}.log").write_text(err)
        assert proc.returncode == 0, err[-3000:]
        results[doc] = json.loads(out.strip().splitlines()[-1])
        assert results[doc]["success"], (doc, err[-3000:])

    with dg.DagsterInstance.get() as instance:
        for doc, result in results.items():
            run = instance.get_run_by_id(result["run_id"])
            assert run.status == dg.DagsterRunStatus.SUCCESS and run.tags["dagster/partition"] == doc
        assert sorted(instance.get_dynamic_partitions("documents")) == DOCS
        for asset in ASSETS:
            materialized = instance.get_materialized_partitions(dg.AssetKey(asset))
            assert materialized == set(DOCS), (asset, materialized)
        spans, _pool_waits = step_spans(instance, [r["run_id"] for r in results.values()])
        assert len(spans) == len(DOCS) * len(ASSETS)
        # Multiprocess: each run's steps ran in processes other than its orchestrator, in parallel.
        for result in results.values():
            assert len({span.pid for span in spans if span.run_id == result["run_id"]}) == len(ASSETS)
        overall = peak_concurrency(spans)
        # A parse of these documents takes seconds; 0.25 s absorbs how the steps' event
        # timestamps (from other processes) straddle the slot hand-over (CI saw 3 "overlap").
        parse_spans = [span for span in spans if span.step_key == "mineru_raw_output"]
        parses = peak_concurrency(parse_spans, slack=0.25)
        assert overall >= 2, "no two steps ever ran at the same time"
        assert parses <= 2, f"{parses} MinerU parses overlapped; the `mineru` pool allows 2: {parse_spans}"
        assert instance.event_log_storage.get_concurrency_info("mineru").claimed_slots == []
    for doc in DOCS:
        assert (data / "parsed" / doc / "chunks.json").is_file() and (data / "kb" / doc / "kb_chunks.jsonl").is_file()
    print(
        f"\npostgres: {len(DOCS)} runs, {len(spans)} steps, max {overall} steps and {parses} parses at once, "
        f"{time.monotonic() - started:.1f} s"
    )
