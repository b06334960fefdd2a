"""`LocalRunLauncher` (dagster.yaml's `run_launcher`): Dagster's default run launcher, plus
warm run workers and a check whether a run's worker is still alive.

- Runs of this project's code execute in warm run workers (`warm_runs.py`): `KB_RUN_WORKERS`
  of them in the daemon, as many as `kb-pipeline ingest` asks for in its own process
  (`start_workers`); other runs, and the daemon's with `KB_RUN_WORKERS=0`, get a fresh process
  from the code server.
- The default launcher cannot say whether a run's worker lives, so run monitoring would watch a
  killed run for ever. This one tags each run with its host and answers from the pid recorded
  for the run (`dead_runs.check_worker`); the daemon then fails a dead run, frees its slots and
  run retries re-launch it — all Dagster's own code.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import dagster as dg

from ..defs.dead_runs import check_worker, worker_tags
from ..paths import DataLayout
from ..settings import Settings
from . import health
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

    def start_workers(self, n: int, fork: bool = False, on_run_end: Callable[[], None] | None = None) -> None:
        """Start `n` warm run workers now, in a process that launches runs itself
        (`kb-pipeline ingest`), rather than `KB_RUN_WORKERS` of them at the first launch —
        forked from this process when `fork` (warm_runs.WarmRunPool.start_workers) — and call
        `on_run_end` whenever a worker is done with a run. Once this launcher has workers, it
        keeps them."""
        pool = self._warm_pool(n)
        if on_run_end is not None:
            pool.on_run_end = on_run_end
        pool.start_workers(fork=fork)

    def _warm_pool(self, n: int) -> WarmRunPool:
        with self._pool_lock:
            if self._pool is None:
                self._pool = WarmRunPool(n, self._instance, self._mineru_home)
            return self._pool

    # The launch context is Dagster's (`dagster._core.launcher.LaunchRunContext`): its run is
    # all this launcher reads of it.
    def launch_run(self, context) -> None:
        # The code server that starts the worker is on this machine (the workspace starts it);
        # a code location served from elsewhere gets "unknown" answers and is left alone.
        run = context.dagster_run
        warm = bool(self._run_workers or self._pool) and serves(run)
        self._instance.add_run_tags(run.run_id, {**worker_tags(), **({WARM_TAG: "true"} if warm else {})})
        if warm:
            self._warm_pool(self._run_workers).submit(run)
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

    def check_run_worker_health(self, run: dg.DagsterRun) -> health.CheckRunHealthResult:
        verdict = check_worker(self._instance, run, never_started_seconds=self._never_started_seconds)
        return health.dead(verdict.reason) if verdict.dead else health.alive(verdict.reason)
