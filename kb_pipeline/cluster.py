"""Running beyond one machine (docs/SCALING.md): the Celery workers' settings and the shared data
root's marker. Pure: the Dagster side is runs/celery.py.

Every worker must see the instance host's data root at the same path — the parse cache, its
atomic publish, the drop folder and the packages are files there. The instance's host writes a
marker file into that root and records its id in the instance; a worker whose data root holds no
marker, or another one, is not on the shared filesystem and refuses to start rather than parse
into a private folder."""

from __future__ import annotations

import json
import socket
import uuid
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

MARKER_NAME = ".kb-shared-root.json"


class CeleryCluster(BaseModel):
    """Dagster's `CeleryRunLauncher` and the `kb-pipeline worker`s it sends runs to: the defaults of
    what the launcher's config and the worker's options leave out."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # May hold a password: kept out of reprs and out of Dagster config (defs/resources.py). None:
    # only the launcher's config names one (the backend: then the broker).
    broker_url: str | None = Field(default=None, repr=False)
    backend_url: str | None = Field(default=None, repr=False)
    queue: str = "dagster"
    # Runs one worker executes at once (Celery's prefork pool); each has MinerU imported.
    concurrency: int = Field(default=1, ge=1)
    # A pool process is replaced after this many runs: what MinerU and torch grow is given back.
    max_tasks_per_child: int = Field(default=20, ge=1)


class NotSharedRoot(Exception):
    """This host's data root is not the one the instance's host shares."""


class ClusterNotConfigured(Exception):
    """The instance runs on Celery but this process's settings name no broker. An exception, not
    an exit: in the daemon it fails what needs the launcher and leaves the rest running."""


def claim_root(data_dir: Path) -> str:
    """Write the marker into the data root (kept if there), and return its id."""
    marker = data_dir / MARKER_NAME
    if marker.is_file():
        return json.loads(marker.read_text())["id"]
    data_dir.mkdir(parents=True, exist_ok=True)
    claimed = {"id": uuid.uuid4().hex, "path": str(data_dir), "host": socket.gethostname()}
    partial = marker.with_suffix(".tmp")
    partial.write_text(json.dumps(claimed))
    partial.replace(marker)
    return claimed["id"]


def check_root(data_dir: Path, expected: dict | None) -> None:
    """Raise `NotSharedRoot`, saying what to do, unless `data_dir` holds the marker whose id and
    path the instance recorded (`expected`, None when no host has claimed a root yet)."""
    if expected is None:
        raise NotSharedRoot(
            "no shared data root is recorded in the Dagster instance: run `kb-pipeline shared-root` "
            "(or `kb-pipeline ingest`) on the instance's host first"
        )
    marker = data_dir / MARKER_NAME
    found = json.loads(marker.read_text()) if marker.is_file() else None
    if str(data_dir) != expected["path"] or found is None or found["id"] != expected["id"]:
        raise NotSharedRoot(
            f"data root {data_dir} is not the shared one: the instance's host ({expected['host']}) shares "
            f"{expected['path']} and this host "
            + ("has no marker there" if found is None else "has another instance's marker")
            + f" ({MARKER_NAME}); mount the shared filesystem at {expected['path']} and set KB_DATA_DIR to it"
        )


def is_celery_launcher(launcher: object) -> bool:
    """Whether an instance's run launcher (or a launcher class) is dagster-celery's (ours subclasses
    it), told without importing Celery: a caller with another launcher never pays for that import."""
    launcher_class = launcher if isinstance(launcher, type) else type(launcher)
    return any(cls.__module__.split(".")[0] == "dagster_celery" for cls in launcher_class.__mro__)
