"""The Celery cluster's settings and the shared data root's marker (cluster.py), without services:
the cluster itself is test_celery_cluster.py."""

from __future__ import annotations

import pytest

from kb_pipeline.cluster import MARKER_NAME, NotSharedRoot, check_root, claim_root, is_celery_launcher
from kb_pipeline.settings import Settings


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
