"""The Celery cluster's settings, the shared data root's marker (cluster.py) and the launcher's
answers to the daemon (runs/celery.py), without the cluster — one test has a redis-server and an
in-process Celery worker; the cluster itself is test_celery_cluster.py."""

from __future__ import annotations

import logging
import time

import pytest

from kb_pipeline.cluster import MARKER_NAME, NotSharedRoot, check_root, claim_root, is_celery_launcher
from kb_pipeline.settings import Settings

from .test_celery_cluster import redis_url  # noqa: F401 — the throwaway redis-server fixture


def test_the_celery_settings_come_from_the_environment_and_stay_out_of_reprs():
    assert Settings.from_env({}).celery is None
    settings = Settings.from_env(
        {
            "KB_CELERY_BROKER_URL": "redis://:secret@broker:6379/0",
            "KB_CELERY_CONCURRENCY": "3",
            "KB_CELERY_QUEUE": "gpu",
        }
    )
    assert settings.celery is not None
    assert settings.celery.backend_url == settings.celery.broker_url  # the backend defaults to the broker
    assert (settings.celery.concurrency, settings.celery.queue, settings.celery.max_tasks_per_child) == (3, "gpu", 20)
    assert "secret" not in repr(settings)


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
