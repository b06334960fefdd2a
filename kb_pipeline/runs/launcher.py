"""`LocalRunLauncher` (dagster.yaml's `run_launcher`): Dagster's default run launcher, plus
warm run workers and a check whether a run's worker is still alive.

- Runs of this project's code execute in warm run workers (`warm_runs.py`, `KB_RUN_WORKERS`);
  other runs, and every run with `KB_RUN_WORKERS=0`, get a fresh process from the code server.
- The default launcher cannot say whether a run's worker lives, so run monitoring would watch a
  killed run for ever. This one tags each run with its host and answers from the pid recorded
  for the run (`dead_runs.check_worker`); the daemon then fails a dead run, frees its slots and
  run retries re-launch it — all Dagster's own code.
"""

from __future__ import annotations

import threading

import dagster as dg

# Not public: the launch context and the health answer of a run launcher, a Dagster extension
# point whose other types live only under dagster._core (pinned by test_dagster_internals.py).
from dagster._core.launcher import CheckRunHealthResult, WorkerStatus
from dagster._core.launcher.base import LaunchRunContext

from ..defs.dead_runs import check_worker, worker_tags
from ..paths import DataLayout
from ..settings import Settings
from .warm_runs import WARM_TAG, WarmRunPool, serves


class LocalRunLauncher(dg.DefaultRunLauncher):
    def __init__(self, inst_data=None) -> None:
        super().__init__(inst_data)
        # Read once, when the instance builds its launcher (the daemon, the webserver).
        settings = Settings.from_env()
        self._never_started_seconds = settings.never_started_seconds
        self._run_workers = settings.run_workers
        self._mineru_home = DataLayout(settings.data_dir).mineru_home
        self._pool: WarmRunPool | None = None
        self._pool_lock = threading.Lock()

    def launch_run(self, context: LaunchRunContext) -> None:
        # The code server that starts the worker is on this machine (the workspace starts it);
        # a code location served from elsewhere gets "unknown" answers and is left alone.
        run = context.dagster_run
        warm = bool(self._run_workers) and serves(run)
        self._instance.add_run_tags(run.run_id, {**worker_tags(), **({WARM_TAG: "true"} if warm else {})})
        if warm:
            with self._pool_lock:
                if self._pool is None:
                    self._pool = WarmRunPool(self._run_workers, self._instance, self._mineru_home)
                pool = self._pool
            pool.submit(run)
        else:
            super().launch_run(context)

    def terminate(self, run_id: str) -> bool:
        run = self._instance.get_run_by_id(run_id)
        if run is None or run.is_finished:
            return False
        if WARM_TAG not in run.tags:
            return super().terminate(run_id)
        # A warm worker polls its run's status and interrupts it (warm_runs.py); a run still
        # waiting is ended by the worker that takes it.
        self._instance.report_run_canceling(run)
        return True

    def dispose(self) -> None:
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
        super().dispose()

    @property
    def supports_check_run_worker_health(self) -> bool:
        return True

    def check_run_worker_health(self, run: dg.DagsterRun) -> CheckRunHealthResult:
        verdict = check_worker(self._instance, run, never_started_seconds=self._never_started_seconds)
        if verdict.dead:
            return CheckRunHealthResult(WorkerStatus.FAILED, verdict.reason)
        # The daemon fails a run on any status but RUNNING or SUCCESS: "cannot tell" must not.
        return CheckRunHealthResult(WorkerStatus.RUNNING, verdict.reason)
