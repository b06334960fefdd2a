"""What a run launcher answers when the daemon's run monitoring asks whether a run's worker is
alive (`check_run_worker_health`): the one place that builds Dagster's answer, for the local and
the Celery launcher alike."""

from __future__ import annotations

# Not public: the answer type of a Dagster extension point (run launchers' health checks), exported
# nowhere else; dagster-celery's own launcher imports it from the same module (pinned by
# test_dagster_internals.py).
from dagster._core.launcher import CheckRunHealthResult, WorkerStatus


def alive(reason: str = "") -> CheckRunHealthResult:
    """Running, or cannot tell: the daemon fails a run on any status but RUNNING or SUCCESS, so
    "cannot tell" must be this answer."""
    return CheckRunHealthResult(WorkerStatus.RUNNING, reason)


def finished() -> CheckRunHealthResult:
    return CheckRunHealthResult(WorkerStatus.SUCCESS)


def dead(reason: str) -> CheckRunHealthResult:
    """The worker is gone: the daemon fails the run with `reason`, frees its slots and run
    retries may re-launch it."""
    return CheckRunHealthResult(WorkerStatus.FAILED, reason)
