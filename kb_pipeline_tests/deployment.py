"""A temp deployment laid out like the repo's, for the tests and benchmarks that start real
processes (`dagster dev`, run workers, drivers): its own DAGSTER_HOME holding an instance
config, a data root with an empty drop folder, and the environment that points Dagster and
kb-pipeline at them, with MinerU kept offline."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Deployment:
    home: Path
    data: Path
    drop: Path

    @property
    def env(self) -> dict[str, str]:
        return {
            "DAGSTER_HOME": str(self.home),
            "KB_DATA_DIR": str(self.data),
            "KB_DAGSTER_DIR": str(self.data / "dagster"),
            "KB_DROP_FOLDER": str(self.drop),
            "MINERU_MODEL_SOURCE": "local",
            "HF_HUB_OFFLINE": "1",
        }


def make_deployment(root: Path, instance_yaml: str | None = None) -> Deployment:
    """`root/home/dagster.yaml` (the repo's dagster.yaml unless given) and `root/data` with its
    drop folder `knowledge_docs/`; a SQLite instance's databases are created here already."""
    home, data = root / "home", root / "data"
    home.mkdir(parents=True, exist_ok=True)
    config = (REPO_ROOT / "dagster.yaml").read_text() if instance_yaml is None else instance_yaml
    (home / "dagster.yaml").write_text(config)
    drop = data / "knowledge_docs"
    drop.mkdir(parents=True, exist_ok=True)
    deployment = Deployment(home, data, drop)
    if "postgres" not in (yaml.safe_load(config).get("storage") or {}):  # a Postgres server needs no such care
        _create_storage(deployment)
    return deployment


def _create_storage(deployment: Deployment) -> None:
    """Create the instance's SQLite databases now, in this one process. Dagster creates them on
    first open and stamps their schema version without a lock: a test reading the instance while
    a freshly started stack's processes open it too can leave two version rows ("more than one
    head present") and fail."""
    import dagster as dg

    saved = {key: os.environ.get(key) for key in deployment.env}
    os.environ.update(deployment.env)
    try:
        with dg.DagsterInstance.from_config(str(deployment.home)):
            pass
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def free_port() -> int:
    """A TCP port on the loopback nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def review_desk(log: Path, env: Mapping[str, str] | None = None, host: str = "127.0.0.1") -> Iterator[str]:
    """`kb-pipeline review` on a free loopback port (of `host`: 127.0.0.1 or ::1), its output in
    `log`; its base URL once it answers `/health` (30 s at most), stopped on exit."""
    port = free_port()
    with log.open("w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "kb_pipeline.cli.main", "review", "--host", host, "--port", str(port)],
            env=dict(env) if env is not None else None,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    deadline = time.monotonic() + 30
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=2):
                    break
            except OSError:
                assert server.poll() is None, log.read_text()
                assert time.monotonic() < deadline, "the review desk did not answer in 30 s"
                time.sleep(0.2)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=20)


def processes() -> dict[int, tuple[int, int, str]]:
    """pid → (ppid, pgid, state) of every process of this machine (Linux /proc)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            found[int(entry.name)] = (int(fields[1]), int(fields[2]), fields[0])
    return found


def process_tree(root: int) -> set[int]:
    """`root`, its process group and all their descendants that are alive (not zombies): a
    stack started with `start_new_session=True`, even after `root` itself has exited."""
    procs = processes()
    tree = {root} | {pid for pid, (_pp, pgid, _s) in procs.items() if pgid == root}
    grew = True
    while grew:
        more = {pid for pid, (ppid, _pg, _s) in procs.items() if ppid in tree} - tree
        tree |= more
        grew = bool(more)
    return {pid for pid in tree if pid in procs and procs[pid][2] not in "ZX"}
