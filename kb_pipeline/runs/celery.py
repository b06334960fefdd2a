"""dagster.celery.yaml's run launcher and `kb-pipeline worker`: Dagster's own `CeleryRunLauncher`
(dagster-celery) sending each run to a Celery worker over Redis, with the instance in Postgres so
that pools and run limits hold across hosts (docs/SCALING.md).

- The launcher takes dagster-celery's own config (`broker`, `backend`, `include`, `default_queue`,
  `config_source`), what it leaves out from the settings (`KB_CELERY_*`), and answers run
  monitoring honestly: a run's task STARTED that its worker does not list among its active
  tasks — the worker is gone, or was restarted under the same name and runs other tasks — is a
  dead run (dagster-celery reports it running for ever), so the daemon fails the run, frees its
  slots and run retries re-launch it.
- A worker imports the definitions and MinerU once, before Celery's prefork pool forks its
  processes; Celery replaces a pool process that dies or has run `max_tasks_per_child` runs. It
  tags each run with its node name, and refuses to start on a data root that is not the shared one.
"""

from __future__ import annotations

import json
import socket
import warnings
from dataclasses import dataclass
from typing import Any, cast

import dagster as dg
from celery.exceptions import DuplicateTaskNameWarning
from dagster_celery.launcher import CeleryRunLauncher as DagsterCeleryRunLauncher
from dagster_celery.tags import DAGSTER_CELERY_TASK_ID_TAG
from dagster_celery.tasks import create_execute_job_task, create_resume_job_task

from ..cluster import CeleryCluster, ClusterNotConfigured, NotSharedRoot, check_root, claim_root, is_celery_launcher
from ..defs.dead_runs import WORKER_DIED
from ..settings import Settings
from . import health
from .worker_checks import check_services

WORKER_TAG = "kb/celery_worker"
SHARED_ROOT_KEY = "kb/shared_data_root"
_PING_SECONDS = 3.0


class CeleryRunLauncher(DagsterCeleryRunLauncher):
    """dagster-celery's launcher with its config; what the config leaves out comes from the
    settings (`KB_CELERY_*`), the backend then defaulting to the broker."""

    def __init__(
        self,
        broker: str | None = None,
        backend: str | None = None,
        include: list[str] | None = None,
        default_queue: str | None = None,
        config_source: dict | None = None,
        inst_data=None,
    ) -> None:
        # Read once, when the instance builds its launcher (daemon, webserver, ingest, worker).
        cluster = Settings.from_env().celery
        broker = broker or cluster.broker_url
        if broker is None:
            raise ClusterNotConfigured(
                "the instance runs on Celery (dagster.celery.yaml) but its run launcher's config names no "
                "`broker` and KB_CELERY_BROKER_URL is not set in this process's environment"
            )
        super().__init__(
            default_queue=default_queue or cluster.queue,
            broker=broker,
            backend=backend or cluster.backend_url or broker,
            include=include,
            config_source=config_source,
            inst_data=inst_data,
        )

    @classmethod
    def config_type(cls):
        # dagster-celery's schema without its defaults (an `rpc://` backend, the `dagster` queue),
        # which would hide the settings'.
        schema = cast("dict[str, dg.Field]", super().config_type())
        return {
            key: dg.Field(field.config_type, is_required=False, description=field.description)
            for key, field in schema.items()
        }

    def launch_run(self, context) -> None:  # Dagster's LaunchRunContext, passed on as it is
        # dagster-celery registers its task anew at every launch, which Celery 5.5+ warns about.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DuplicateTaskNameWarning)
            super().launch_run(context)

    def check_run_worker_health(self, run: dg.DagsterRun) -> health.CheckRunHealthResult:
        task_id = run.tags.get(DAGSTER_CELERY_TASK_ID_TAG)
        if task_id is None:
            return health.alive("no Celery task yet")
        result = self.celery.AsyncResult(task_id)
        state = result.state
        if state == "SUCCESS":
            return health.finished()
        if state == "FAILURE":  # e.g. WorkerLostError: the pool process was killed
            return health.dead(f"{WORKER_DIED}: Celery task failed: {result.info!r}")
        node = result.info.get("hostname") if state == "STARTED" and isinstance(result.info, dict) else None
        if node:
            # The task itself, not the node's name: a worker restarted under the same name answers
            # a ping, but the task its predecessor held is not among its active ones.
            active = self.celery.control.inspect(destination=[node], timeout=_PING_SECONDS).active() or {}
            if node not in active:
                return health.dead(f"{WORKER_DIED}: Celery worker {node} does not answer (killed, or its host is down)")
            running = {task.get("id") for task in active[node]}
            # Read again after the look: a task that ended meanwhile is no longer STARTED.
            if task_id not in running and self.celery.AsyncResult(task_id).state == "STARTED":
                return health.dead(
                    f"{WORKER_DIED}: Celery task {task_id} is not running on {node} any more "
                    "(its worker was killed and started again under the same name?)"
                )
        return health.alive(f"Celery task {state}" + (f" on {node}" if node else ""))


def claim_shared_root(instance: dg.DagsterInstance, settings: Settings, move: bool = False) -> None:
    """On the instance's host: mark its data root as the shared one, in the root and the instance.
    Once a root is recorded, a host with another data root is refused (`NotSharedRoot`) rather
    than taking the record over from every worker, unless the root is `move`d on purpose."""
    recorded = _recorded_root(instance)
    if recorded is not None and not move:
        check_root(settings.data_dir, recorded)
        return
    marker_id = claim_root(settings.data_dir)
    instance.run_storage.set_cursor_values(
        {SHARED_ROOT_KEY: json.dumps({"id": marker_id, "path": str(settings.data_dir), "host": socket.gethostname()})}
    )


def _recorded_root(instance: dg.DagsterInstance) -> dict | None:
    value = instance.run_storage.get_cursor_values({SHARED_ROOT_KEY}).get(SHARED_ROOT_KEY)
    return json.loads(value) if value else None


@dataclass(frozen=True)
class WorkerOptions:
    """`kb-pipeline worker`'s options, those of `dagster-celery worker start` and Celery's worker;
    None: the settings' (`KB_CELERY_*`), the queue the launcher's."""

    name: str | None = None
    queues: str | None = None  # comma-separated, as Celery's --queues
    concurrency: int | None = None
    max_tasks_per_child: int | None = None
    events: bool = False  # task events, for Flower or `celery events`
    loglevel: str = "INFO"


def worker_argv(options: WorkerOptions, cluster: CeleryCluster, default_queue: str, host: str) -> list[str]:
    """Celery's `worker` command line for these options."""
    argv = ["worker", "--queues", options.queues or default_queue]
    argv += ["--concurrency", str(options.concurrency or cluster.concurrency)]
    argv += ["--max-tasks-per-child", str(options.max_tasks_per_child or cluster.max_tasks_per_child)]
    argv += ["--hostname", f"{options.name or 'kb'}@{host}", "--loglevel", options.loglevel]
    # A run is taken only when a pool process is free to start it: a run reserved by a worker that
    # then dies would stay STARTING until the instance's start timeout.
    argv += ["--disable-prefetch"]
    return argv + (["--task-events"] if options.events else [])


def start_worker(settings: Settings, options: WorkerOptions) -> int:
    """A Celery worker for the instance's runs (blocks until it is stopped)."""
    import multiprocessing.process

    from celery import signals

    from ..parsing.backends import stop_render_workers, warm_mineru
    from ..paths import DataLayout
    from ..processes import settle_heap

    check_services()  # first: building the instance connects to its database, retrying
    instance = dg.DagsterInstance.get()
    if not is_celery_launcher(instance.run_launcher):
        raise SystemExit(
            "error: `kb-pipeline worker` needs an instance on Celery (dagster.celery.yaml in DAGSTER_HOME)"
        )
    try:
        check_root(settings.data_dir, _recorded_root(instance))
    except NotSharedRoot as e:
        raise SystemExit(f"error: {e}") from None
    app = instance.run_launcher.celery  # type: ignore[attr-defined]
    create_execute_job_task(app)
    create_resume_job_task(app)

    @signals.task_prerun.connect(weak=False)
    def tag_run(task=None, kwargs=None, **_):
        packed = (kwargs or {}).get("execute_job_args_packed")
        if packed:
            args: Any = dg.deserialize_value(json.dumps(packed))  # dagster-celery's ExecuteRunArgs or ResumeRunArgs
            with dg.DagsterInstance.get() as run_instance:
                run_instance.add_run_tags(args.run_id, {WORKER_TAG: task.request.hostname})

    main_process = type(multiprocessing.process.current_process())  # multiprocessing's _MainProcess

    @signals.worker_process_init.connect(weak=False)
    def own_main_process(**_):
        # billiard makes each pool process multiprocessing's "current process": daemonic, which may
        # not start children, and with billiard's authkey, which multiprocessing refuses to send to
        # a spawned child. MinerU renders a PDF's page images in spawned children ("daemonic
        # processes are not allowed to have children", then "Pickling an AuthenticationString
        # object is disallowed"): to multiprocessing, each pool process is a main process of its own.
        multiprocessing.process._current_process = main_process()  # type: ignore[attr-defined]

    @signals.worker_process_shutdown.connect(weak=False)
    def stop_children(**_):
        # A pool process leaves without multiprocessing's exit handlers (warm_mineru's finalizer).
        stop_render_workers()

    # Paid once here, inherited by every pool process the prefork pool forks.
    import kb_pipeline.definitions  # noqa: F401

    warm_mineru(str(DataLayout(settings.data_dir).mineru_home))
    settle_heap()  # each pool process starts with it frozen: its collections skip it
    default_queue = instance.run_launcher.default_queue  # type: ignore[attr-defined]
    app.worker_main(worker_argv(options, settings.celery, default_queue, socket.gethostname()))
    return 0
