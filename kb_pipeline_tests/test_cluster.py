"""The Celery cluster's settings, the shared data root's marker (cluster.py) and the launcher's
answers to the daemon (runs/celery.py), without the cluster — one test has a redis-server and an
in-process Celery worker; the cluster itself is test_celery_cluster.py."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import dagster as dg
import pytest

from kb_pipeline.cluster import MARKER_NAME, CeleryCluster, NotSharedRoot, check_root, claim_root, is_celery_launcher
from kb_pipeline.settings import Settings

from .test_celery_cluster import redis_url  # noqa: F401 — the throwaway redis-server fixture


def test_the_celery_settings_come_from_the_environment_and_stay_out_of_reprs():
    assert Settings.from_env({}).celery == CeleryCluster(broker_url=None, backend_url=None)
    settings = Settings.from_env(
        {
            "KB_CELERY_BROKER_URL": "redis://:secret@broker:6379/0",
            "KB_CELERY_CONCURRENCY": "3",
            "KB_CELERY_QUEUE": "gpu",
        }
    )
    assert settings.celery.broker_url == "redis://:secret@broker:6379/0"
    assert (settings.celery.concurrency, settings.celery.queue, settings.celery.max_tasks_per_child) == (3, "gpu", 20)
    assert "secret" not in repr(settings)


def _instance_yaml(home: Path, launcher_config: str) -> dg.DagsterInstance:
    """An instance from a dagster.yaml whose run launcher is dagster.celery.yaml's, with this config."""
    home.mkdir()
    (home / "dagster.yaml").write_text(
        "run_launcher:\n  module: kb_pipeline.runs.celery\n  class: CeleryRunLauncher\n" + launcher_config
    )
    return dg.DagsterInstance.from_config(str(home))


def test_the_launcher_takes_dagster_celerys_config_with_the_settings_as_defaults(tmp_path, monkeypatch):
    """The instance yaml's `broker`, `backend`, `include`, `default_queue` and `config_source`
    (dagster-celery's keys; a value from the environment through `{env: …}`) reach the Celery
    app and win over `KB_CELERY_*`; what the yaml leaves out comes from `KB_CELERY_*`, the
    backend then defaulting to the broker, not to dagster-celery's `rpc://`."""
    monkeypatch.delenv("KB_CELERY_BACKEND_URL", raising=False)
    monkeypatch.setenv("KB_CELERY_BROKER_URL", "redis://settings-host:6379/0")
    monkeypatch.setenv("KB_CELERY_QUEUE", "settings-queue")
    monkeypatch.setenv("REDIS_BROKER", "rediss://:secret@broker.internal:6380/0")
    configured = """\
  config:
    broker: {env: REDIS_BROKER}
    backend: rediss://:secret@backend.internal:6380/1
    include: [kb_pipeline.cluster]
    default_queue: pdfs
    config_source:
      broker_use_ssl: {ssl_cert_reqs: required, ssl_ca_certs: /etc/ssl/certs/ca-certificates.crt}
      broker_transport_options: {visibility_timeout: 7200}
      worker_send_task_events: true
"""
    with _instance_yaml(tmp_path / "configured", configured) as instance:
        launcher = instance.run_launcher
        conf = launcher.celery.conf
        assert conf.broker_url == "rediss://:secret@broker.internal:6380/0"
        assert conf.result_backend == "rediss://:secret@backend.internal:6380/1"
        assert tuple(conf.include) == ("kb_pipeline.cluster",)
        assert launcher.default_queue == conf.task_default_queue == "pdfs"
        assert conf.broker_use_ssl == {
            "ssl_cert_reqs": "required",
            "ssl_ca_certs": "/etc/ssl/certs/ca-certificates.crt",
        }
        assert conf.broker_transport_options == {"visibility_timeout": 7200}
        assert conf.worker_send_task_events is True
        assert conf.worker_prefetch_multiplier == 1  # dagster-celery's own defaults stay under config_source
    with _instance_yaml(tmp_path / "settings", "") as instance:
        launcher = instance.run_launcher
        assert launcher.celery.conf.broker_url == launcher.celery.conf.result_backend == "redis://settings-host:6379/0"
        assert launcher.default_queue == "settings-queue"
    with _instance_yaml(tmp_path / "broker-only", "  config:\n    broker: redis://yaml-host:6379/2\n") as instance:
        assert instance.run_launcher.celery.conf.result_backend == "redis://yaml-host:6379/2"
    # Dagster's own checks of the config: an unknown key, and an {env: …} that is not set.
    with pytest.raises(dg.DagsterInvalidConfigError, match="brokr"):
        _instance_yaml(tmp_path / "typo", "  config:\n    brokr: redis://x:6379/0\n").run_launcher  # noqa: B018
    with pytest.raises(dg.DagsterInvalidConfigError, match="KB_NOT_SET_ANYWHERE"):
        _instance_yaml(tmp_path / "unset", "  config:\n    broker: {env: KB_NOT_SET_ANYWHERE}\n").run_launcher  # noqa: B018


def test_worker_options_reach_celerys_worker_command_line(tmp_path, monkeypatch):
    """`kb-pipeline worker --queues … --concurrency … --max-tasks-per-child … -E` as Celery's own
    worker command parses the argv the worker starts Celery with; without options, the settings'
    (`KB_CELERY_*`) and the launcher's queue."""
    from celery import Celery
    from celery.bin.base import CLIContext
    from celery.bin.worker import worker

    from kb_pipeline.cli.main import main
    from kb_pipeline.runs import celery as runs_celery

    # Set here, so that the command's defaults for them do not outlive the test.
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path))
    monkeypatch.setenv("KB_DAGSTER_DIR", str(tmp_path / "dagster"))
    given: list[runs_celery.WorkerOptions] = []
    monkeypatch.setattr(runs_celery, "start_worker", lambda settings, options: given.append(options) or 0)
    argv = ["worker", "--name", "gpu1", "--queues", "pdfs,scans", "--concurrency", "3"]
    assert main([*argv, "--max-tasks-per-child", "5", "-E", "--loglevel", "DEBUG"]) == 0
    assert main(["worker"]) == 0
    options, defaults = given
    app = Celery("kb-test", broker="redis://127.0.0.1:1/0")

    def parsed(argv: list[str]) -> dict:
        assert argv[0] == "worker"
        context = CLIContext(app=app, no_color=True, workdir=None, quiet=True)
        return worker.make_context("worker", argv[1:], obj=context).params

    cluster = Settings.from_env({"KB_CELERY_CONCURRENCY": "2"}).celery
    params = parsed(runs_celery.worker_argv(options, cluster, "dagster", "host-b"))
    assert params["queues"] == ["pdfs", "scans"] and params["hostname"] == "gpu1@host-b"
    assert (params["concurrency"], params["max_tasks_per_child"], params["task_events"]) == (3, 5, True)
    assert params["loglevel"] == logging.DEBUG and params["disable_prefetch"]
    params = parsed(runs_celery.worker_argv(defaults, cluster, "dagster", "host-b"))
    assert params["queues"] == ["dagster"] and params["hostname"] == "kb@host-b"
    assert (params["concurrency"], params["max_tasks_per_child"]) == (2, 20)
    assert not params["task_events"]  # then the app's `worker_send_task_events`: off by default
    with pytest.raises(SystemExit):
        main(["worker", "--concurrency", "0"])


def test_a_worker_refuses_a_data_root_that_is_not_the_shared_one(tmp_path):
    shared, private = tmp_path / "shared", tmp_path / "private"
    marker_id = claim_root(shared)
    assert claim_root(shared) == marker_id  # claimed once, kept
    recorded = {"id": marker_id, "path": str(shared), "host": "host-a"}
    check_root(shared, recorded)
    with pytest.raises(NotSharedRoot, match="no shared data root is recorded"):
        check_root(shared, None)
    with pytest.raises(NotSharedRoot, match=f"is not the shared one.*has no marker there.*{MARKER_NAME}"):
        check_root(private, {**recorded, "path": str(private)})
    claim_root(private)  # another instance's root at the recorded path
    with pytest.raises(NotSharedRoot, match="has another instance's marker"):
        check_root(private, {**recorded, "path": str(private)})
    with pytest.raises(NotSharedRoot, match=f"mount the shared filesystem at {shared}"):
        check_root(private, recorded)


def test_the_celery_launcher_is_told_without_importing_celery():
    from kb_pipeline.runs.launcher import LocalRunLauncher

    assert not is_celery_launcher(object.__new__(LocalRunLauncher))
    from kb_pipeline.runs.celery import CeleryRunLauncher

    assert is_celery_launcher(object.__new__(CeleryRunLauncher))
    # A launcher class, as the worker's first look reads it from dagster.yaml (runs/worker_checks.py).
    assert is_celery_launcher(CeleryRunLauncher) and not is_celery_launcher(LocalRunLauncher)


def test_once_a_root_is_recorded_another_host_cannot_take_it_over_unless_it_moves_it(tmp_path):
    import dagster as dg

    from kb_pipeline.runs.celery import claim_shared_root

    first = Settings.from_env({"KB_DATA_DIR": str(tmp_path / "first")})
    second = Settings.from_env({"KB_DATA_DIR": str(tmp_path / "second")})
    with dg.instance_for_test() as instance:
        claim_shared_root(instance, first)
        claim_shared_root(instance, first)  # the same root again: nothing changes
        with pytest.raises(NotSharedRoot, match="is not the shared one"):
            claim_shared_root(instance, second)
        claim_shared_root(instance, second, move=True)
        with pytest.raises(NotSharedRoot, match=f"shares {tmp_path / 'second'}"):
            claim_shared_root(instance, first)


def test_a_missing_broker_is_an_error_not_an_exit_and_the_instance_keeps_working(tmp_path, monkeypatch, capsys):
    """Without KB_CELERY_BROKER_URL the Celery launcher cannot be built: an exception naming the
    variable (the daemon's loops catch exceptions per turn and go on; a SystemExit ended the
    daemon), and on the command line one line and exit status 2."""
    import dagster as dg

    from kb_pipeline.cli.main import main
    from kb_pipeline.cluster import ClusterNotConfigured

    monkeypatch.delenv("KB_CELERY_BROKER_URL", raising=False)
    launcher = {"module": "kb_pipeline.runs.celery", "class": "CeleryRunLauncher"}
    with dg.instance_for_test(overrides={"run_launcher": launcher}) as instance:
        with pytest.raises(ClusterNotConfigured, match="KB_CELERY_BROKER_URL is not set"):
            instance.run_launcher  # noqa: B018 — built lazily, as the daemon builds it
        assert instance.get_runs() == []  # what does not need the launcher still works
        (tmp_path / "in").mkdir()
        monkeypatch.setenv("DAGSTER_HOME", instance.root_directory)
        monkeypatch.setenv("KB_DATA_DIR", str(tmp_path / "data"))
        assert main(["ingest", "--input", str(tmp_path / "in")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "KB_CELERY_BROKER_URL is not set" in err, err


def test_ingest_on_a_cluster_points_at_its_webserver_not_make_ui(tmp_path, monkeypatch, capsys):
    """`make ui` on a cluster's instance would start a second daemon beside the cluster's."""
    from kb_pipeline.cli.main import main

    monkeypatch.setenv("KB_CELERY_BROKER_URL", "redis://127.0.0.1:1/0")  # never reached: nothing to run
    launcher = {"module": "kb_pipeline.runs.celery", "class": "CeleryRunLauncher"}
    with dg.instance_for_test(overrides={"run_launcher": launcher}) as instance:
        (tmp_path / "in").mkdir()
        monkeypatch.setenv("DAGSTER_HOME", instance.root_directory)
        monkeypatch.setenv("KB_DAGSTER_DIR", str(tmp_path / "dagster"))
        monkeypatch.setenv("KB_DATA_DIR", str(tmp_path / "data"))
        assert main(["ingest", "--input", str(tmp_path / "in")]) == 0
    out = capsys.readouterr().out
    assert "the cluster's dagster-webserver" in out and "not `make ui`" in out, out


@pytest.mark.services
def test_a_run_whose_task_is_not_running_on_its_worker_is_dead_though_the_worker_answers(
    redis_url,  # noqa: F811
    monkeypatch,
    request,
):
    """Run monitoring asks about the run's own Celery task, not its worker's name: a worker killed
    and started again under the same name answers, but the task its predecessor had STARTED is
    not among its active ones. A real worker on a real redis-server; the stale task is recorded
    in the result backend as a killed worker leaves it (STARTED, its node and pid)."""
    import threading
    import uuid

    import dagster as dg
    from celery.contrib.testing.worker import start_worker
    from dagster._core.launcher import WorkerStatus
    from dagster_celery.tags import DAGSTER_CELERY_TASK_ID_TAG

    from kb_pipeline.defs.dead_runs import WORKER_DIED
    from kb_pipeline.runs.celery import CeleryRunLauncher

    monkeypatch.setenv("KB_CELERY_BROKER_URL", redis_url)
    launcher = CeleryRunLauncher()
    app, node, release = launcher.celery, "kb@restarted-host", threading.Event()

    @app.task(name="kb_test.hold", track_started=True)
    def hold() -> None:
        release.wait(60)

    def health(task_id: str):
        run = dg.DagsterRun(job_name="ingest_documents", tags={DAGSTER_CELERY_TASK_ID_TAG: task_id})
        return launcher.check_run_worker_health(run)

    # The embedded worker sets up Celery's logging in this process (the root logger at its level,
    # its handlers): restored afterwards, or the tests after this one on the same pytest worker
    # log nothing below ERROR.
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))
    request.addfinalizer(lambda level=root.level: root.setLevel(level))
    with start_worker(app, pool="threads", hostname=node, perform_ping_check=False, shutdown_timeout=10):
        running = hold.apply_async(queue="dagster")
        deadline = time.monotonic() + 30
        while running.state != "STARTED":
            assert time.monotonic() < deadline, running.state
            time.sleep(0.1)
        assert health(running.id).status == WorkerStatus.RUNNING
        stale = uuid.uuid4().hex
        app.backend.store_result(stale, {"hostname": node, "pid": 1}, "STARTED")
        dead = health(stale)
        assert dead.status == WorkerStatus.FAILED and WORKER_DIED in dead.msg, dead
        assert f"{stale} is not running on {node}" in dead.msg
        release.set()
        running.get(timeout=30)
        assert health(running.id).status == WorkerStatus.SUCCESS
