"""The cluster's systemd units and their environment file (deploy/systemd/, docs/SCALING.md):
systemd's own checker reads them without a complaint, and the environment file names every
variable the cluster's instance config reads."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import yaml

from .conftest import REPO_ROOT

UNITS = REPO_ROOT / "deploy" / "systemd"
CHECKOUT = "/srv/kb-pipeline"  # where the units expect the repository and its .venv
ENV_FILE = "/etc/kb-pipeline/kb-pipeline.env"


def _env_example() -> dict[str, str]:
    lines = (UNITS / "kb-pipeline.env.example").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def _env_reads(config):
    """The variables of a Dagster config's `{env: …}` values."""
    if isinstance(config, dict):
        if set(config) == {"env"}:
            yield config["env"]
        for value in config.values():
            yield from _env_reads(value)
    elif isinstance(config, list):
        for value in config:
            yield from _env_reads(value)


def test_systemd_analyze_verifies_the_units(tmp_path):
    """`systemd-analyze verify` on the daemon's, the webserver's and the worker's units, with this
    checkout in place of /srv/kb-pipeline: it checks every directive and that each ExecStart is an
    executable of the venv. It exits 0 on a directive it cannot parse, only saying so on stderr,
    so any output fails the test."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian: the systemd package)")
    units = sorted(UNITS.glob("*.service"))
    assert [u.name for u in units] == [
        "kb-dagster-daemon.service",
        "kb-dagster-webserver.service",
        "kb-pipeline-worker.service",
    ]
    copies = []
    for unit in units:
        text = unit.read_text()
        assert f"EnvironmentFile={ENV_FILE}\n" in text and f"ExecStart={CHECKOUT}/.venv/bin/" in text
        copies.append(tmp_path / unit.name)
        copies[-1].write_text(text.replace(CHECKOUT, str(REPO_ROOT)))
    checked = subprocess.run([analyze, "verify", *map(str, copies)], capture_output=True, text=True, timeout=60)
    assert (checked.returncode, checked.stdout + checked.stderr) == (0, ""), checked.stdout + checked.stderr


def test_the_environment_file_names_what_the_instance_and_the_worker_read():
    """Every `{env: …}` of dagster.celery.yaml, the broker, and the two variables a worker host
    fails without: DAGSTER_HOME (the instance's dagster.yaml) and KB_DAGSTER_DIR (which
    dagster.celery.yaml reads for compute logs). The shared root is the path the units wait for."""
    env = _env_example()
    read = set(_env_reads(yaml.safe_load((REPO_ROOT / "dagster.celery.yaml").read_text())))
    assert {"KB_PG_HOST", "KB_PG_PASSWORD", "KB_DAGSTER_DIR"} <= read
    assert read | {"DAGSTER_HOME", "KB_DATA_DIR", "KB_CELERY_BROKER_URL"} <= set(env)
    for unit in ("kb-dagster-daemon.service", "kb-pipeline-worker.service"):
        assert f"RequiresMountsFor={env['KB_DATA_DIR']}\n" in (UNITS / unit).read_text()
