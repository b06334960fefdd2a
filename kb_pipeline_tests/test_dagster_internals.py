"""The few Dagster names outside its public API that kb-pipeline relies on, each where Dagster
offers no public way (see the comments where they are used). A Dagster upgrade that moves or
changes one of them fails here, by name, instead of in a crash-recovery run."""

from __future__ import annotations

import inspect

import dagster as dg


def test_the_run_launcher_extension_point():
    from dagster._core.launcher import CheckRunHealthResult, WorkerStatus
    from dagster._core.launcher.base import LaunchRunContext

    assert {"launch_run", "check_run_worker_health", "supports_check_run_worker_health"} <= set(
        dir(dg.DefaultRunLauncher)
    )
    assert {"RUNNING", "NOT_FOUND", "UNKNOWN"} <= {s.name for s in WorkerStatus}
    assert "status" in inspect.signature(CheckRunHealthResult).parameters
    # What LocalRunLauncher.launch_run reads of the context Dagster hands it (not imported there).
    assert "dagster_run" in inspect.signature(LaunchRunContext).parameters


def test_failing_a_dead_run_and_freeing_its_slots():
    assert list(inspect.signature(dg.DagsterInstance.report_run_failed).parameters)[1:3] == ["dagster_run", "message"]
    assert list(inspect.signature(dg.DagsterInstance.report_run_canceled).parameters)[1:3] == ["dagster_run", "message"]
    from dagster._core.storage.event_log.base import EventLogStorage

    assert "run_id" in inspect.signature(EventLogStorage.free_concurrency_slots_for_run).parameters


def test_executing_a_run_in_a_warm_worker():
    # What `dagster api execute_run` calls, and how a termination request interrupts it.
    from dagster._core.execution.api import ExecuteRunWithPlanIterable
    from dagster._core.launcher.base import RunLauncher
    from dagster._grpc.impl import core_execute_run
    from dagster._utils.hosted_user_process import recon_job_from_origin

    assert list(inspect.signature(core_execute_run).parameters)[:4] == [
        "recon_job",
        "dagster_run",
        "instance",
        "inject_env_vars",
    ]
    assert list(inspect.signature(recon_job_from_origin).parameters) == ["origin"]
    # A warm worker does not hold interrupts itself: Dagster's execution holds them until a step
    # can stop (runs/warm_runs.py).
    assert "with capture_interrupts():" in inspect.getsource(ExecuteRunWithPlanIterable.__iter__)
    assert list(inspect.signature(RunLauncher.terminate).parameters) == ["self", "run_id"]
    assert list(inspect.signature(RunLauncher.dispose).parameters) == ["self"]


def test_a_warm_worker_recognises_ingest_s_runs_by_their_code_pointer(tmp_path):
    # runs/warm_runs.serves reads the module of a reconstructable job's pointer (not public).
    from kb_pipeline.defs.resources import KnowledgeBase

    fields = KnowledgeBase(drop_folder=str(tmp_path), data_dir=str(tmp_path)).config_json()
    recon = dg.build_reconstructable_job(
        "kb_pipeline.cli.ingest", "job_for", reconstructable_args=(fields, "ingest_documents")
    )
    pointer = recon.get_python_origin().repository_origin.code_pointer
    assert pointer.reconstructor_pointer.module == "kb_pipeline.cli.ingest"


def test_the_sqlite_storage_and_its_slot_claim():
    # kb_pipeline/runs/storage.py serialises Dagster's own slot claim on SQLite.
    from dagster._core.storage.event_log import SqliteEventLogStorage
    from dagster._core.storage.sqlite_storage import DagsterSqliteStorage

    assert list(inspect.signature(SqliteEventLogStorage._claim_concurrency_slot).parameters) == [
        "self",
        "concurrency_key",
        "run_id",
        "step_key",
    ]
    assert "_base_dir" in inspect.getsource(SqliteEventLogStorage.__init__)
    assert "_event_log_storage" in inspect.getsource(DagsterSqliteStorage.__init__)
    assert callable(DagsterSqliteStorage.from_local)


def test_every_private_name_the_package_imports_is_pinned_here():
    """A new private import must be added here (and to docs/decisions.md) with its reason."""
    import ast
    from pathlib import Path

    package = Path(__file__).resolve().parents[1] / "kb_pipeline"
    used, statements = set(), 0
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                assert not any(alias.name.startswith("dagster._") for alias in node.names), path
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dagster._"):
                used |= {f"{node.module}.{alias.name}" for alias in node.names}
                statements += 1
    pinned = set()
    for node in ast.walk(ast.parse(Path(__file__).read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dagster._"):
            pinned |= {f"{node.module}.{alias.name}" for alias in node.names}
    assert used <= pinned, sorted(used - pinned)
    # A ratchet: no more than today (docs/decisions.md lists them): five imports, six names.
    assert statements <= 5 and len(used) <= 6, sorted(used)
