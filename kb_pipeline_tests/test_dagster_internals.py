"""The few Dagster names outside its public API that kb-pipeline relies on, each where Dagster
offers no public way (see the comments where they are used). A Dagster upgrade that moves or
changes one of them fails here, by name, instead of in a crash-recovery run."""

from __future__ import annotations

import inspect

import dagster as dg


def test_the_run_launcher_extension_point():
    from dagster._core.launcher import CheckRunHealthResult, WorkerStatus
    from dagster._core.launcher.base import LaunchRunContext
    from dagster._core.launcher.default_run_launcher import DefaultRunLauncher

    assert {"launch_run", "check_run_worker_health", "supports_check_run_worker_health"} <= set(dir(DefaultRunLauncher))
    assert {"RUNNING", "NOT_FOUND", "UNKNOWN"} <= {s.name for s in WorkerStatus}
    assert "status" in inspect.signature(CheckRunHealthResult).parameters
    assert LaunchRunContext is not None


def test_failing_a_dead_run_and_freeing_its_slots():
    from dagster._core.events import JobFailureData, RunFailureReason

    assert list(inspect.signature(dg.DagsterInstance.report_run_failed).parameters)[1:4] == [
        "dagster_run",
        "message",
        "job_failure_data",
    ]
    assert list(inspect.signature(dg.DagsterInstance.report_run_canceled).parameters)[1:3] == ["dagster_run", "message"]
    assert {"error", "failure_reason"} <= set(inspect.signature(JobFailureData).parameters)
    assert RunFailureReason.UNEXPECTED_TERMINATION
    from dagster._core.storage.event_log.base import EventLogStorage

    assert "run_id" in inspect.signature(EventLogStorage.free_concurrency_slots_for_run).parameters
