"""`kb-pipeline worker`'s first look at its services (runs/worker_checks.py): a database or broker
that does not let it in is one line, `error: …`, before the worker builds the instance or imports
MinerU. The services a worker reaches over a network, with passwords and `pg_hba.conf`, are
test_cluster_netns.py's; these need no PostgreSQL (a port nobody listens on refuses at once) and,
for the password, a `redis-server`."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time

import pytest
import yaml

from kb_pipeline.runs.worker_checks import check_celery_urls, check_services

from .conftest import REPO_ROOT
from .deployment import free_port

CELERY_LAUNCHER = {"module": "kb_pipeline.runs.celery", "class": "CeleryRunLauncher"}


def _home(tmp_path, monkeypatch, **config) -> None:
    home = tmp_path / "home"
    home.mkdir(parents=True)
    (home / "dagster.yaml").write_text(yaml.safe_dump(config))
    monkeypatch.setenv("DAGSTER_HOME", str(home))


def _refusal(excinfo: pytest.ExceptionInfo[SystemExit]) -> str:
    message = str(excinfo.value.code)
    assert message.startswith("error: ") and "\n" not in message, message
    return message


def test_a_database_that_refuses_the_worker_is_one_line_naming_it(tmp_path, monkeypatch):
    shipped = yaml.safe_load((REPO_ROOT / "dagster.celery.yaml").read_text())
    _home(tmp_path, monkeypatch, storage=shipped["storage"])
    port = free_port()
    for key, value in {"KB_PG_HOST": "127.0.0.1", "KB_PG_PORT": str(port), "KB_PG_USER": "kb"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("KB_PG_PASSWORD", "pg-secret")
    monkeypatch.setenv("KB_PG_DB", "kb_dagster")
    started = time.monotonic()
    with pytest.raises(SystemExit) as refused:
        check_services()
    message = _refusal(refused)
    assert message.startswith("error: cannot connect to the Dagster instance's database: "), message
    assert f'"127.0.0.1", port {port} failed: Connection refused' in message and "pg-secret" not in message
    assert time.monotonic() - started < 10  # one attempt, not Dagster's retries

    # A variable the config names but the environment lacks: Dagster's own error says so.
    monkeypatch.delenv("KB_PG_HOST")
    check_services()


def test_a_broker_that_refuses_the_worker_is_one_line_without_its_password(tmp_path, monkeypatch):
    port = free_port()
    monkeypatch.setenv("KB_CELERY_BROKER_URL", f"redis://:broker-secret@127.0.0.1:{port}/0")
    _home(tmp_path, monkeypatch, run_launcher=CELERY_LAUNCHER)  # the instance's storage: SQLite
    with pytest.raises(SystemExit) as refused:
        check_services()
    message = _refusal(refused)
    assert message.startswith(f"error: cannot connect to the Celery broker at redis://:**@127.0.0.1:{port}/0: ")
    assert "Connection refused" in message and "broker-secret" not in message

    # The launcher's own config wins over the settings, as when the instance builds it; a result
    # backend of its own is looked at too.
    configured, backend = free_port(), free_port()
    config = {"broker": f"redis://127.0.0.1:{configured}/0", "backend": f"redis://127.0.0.1:{backend}/1"}
    _home(tmp_path / "config", monkeypatch, run_launcher={**CELERY_LAUNCHER, "config": config})
    with pytest.raises(SystemExit, match=re.escape(f"Celery broker at redis://:**@127.0.0.1:{configured}/0: ")):
        check_services()
    with pytest.raises(SystemExit, match=re.escape(f"Celery result backend at redis://:**@127.0.0.1:{backend}/1: ")):
        check_celery_urls("memory://", f"redis://127.0.0.1:{backend}/1")  # a broker without a server


def test_an_instance_not_on_celery_or_postgres_is_left_to_the_worker(tmp_path, monkeypatch):
    # The shipped one-box instance: SQLite, the local launcher; start_worker refuses it itself.
    _home(tmp_path, monkeypatch, **yaml.safe_load((REPO_ROOT / "dagster.yaml").read_text()))
    monkeypatch.setenv("KB_DAGSTER_DIR", str(tmp_path / "dagster"))
    check_services()
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "nowhere"))
    check_services()


@pytest.mark.services
def test_a_wrong_redis_password_is_one_line():
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail("redis-server is not installed: `make test-services` installs it")
    port = free_port()
    server = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--requirepass", "right", "--save", ""],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_for_port(port, server)
        check_celery_urls(f"redis://:right@127.0.0.1:{port}/0", None)
        with pytest.raises(SystemExit) as refused:
            check_celery_urls(f"redis://:wrong@127.0.0.1:{port}/0", None)
        assert _refusal(refused) == (
            f"error: cannot connect to the Celery broker at redis://:**@127.0.0.1:{port}/0: invalid "
            "username-password pair or user is disabled. (the run launcher's config in "
            "$DAGSTER_HOME/dagster.yaml, KB_CELERY_*)"
        )
    finally:
        server.kill()
        server.wait(timeout=20)


def _wait_for_port(port: int, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert server.poll() is None and time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
