"""The Dagster instance a command opens: the one DAGSTER_HOME's dagster.yaml configures
(cli/main.py `set_dagster_environment` sets DAGSTER_HOME unless it is set already)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import dagster as dg

# The repository's root: its dagster.yaml and workspace.yaml are the project's.
PROJECT_ROOT = Path(__file__).resolve().parents[2]


def open_instance() -> dg.DagsterInstance:
    """`dg.DagsterInstance.get()`, refused when DAGSTER_HOME holds no dagster.yaml: Dagster would
    open a default instance there, with a log line and no error, which knows none of the runs
    the project's instance (storage under KB_DAGSTER_DIR) recorded."""
    home = Path(os.environ["DAGSTER_HOME"]).expanduser()
    if (home / "dagster.yaml").is_file():
        import dagster as dg  # not on every command's import: `run` and the desk never need it

        return dg.DagsterInstance.get()
    # Refused rather than the project's dagster.yaml written there: a command that reads must not
    # write into a folder it was pointed at, maybe by a typo, maybe another project's default
    # instance (a dagster.yaml would send that instance's storage to KB_DAGSTER_DIR); and the
    # user, told, picks the right folder once instead of one being made behind their back.
    project = PROJECT_ROOT / "dagster.yaml"
    fix = (
        f"point DAGSTER_HOME at {PROJECT_ROOT} or copy {project} into {home}"
        if project.is_file()
        else f"point DAGSTER_HOME at the folder of the project's dagster.yaml, or copy that file into {home}"
    )
    raise SystemExit(
        f"error: DAGSTER_HOME {home} holds no dagster.yaml, so Dagster would open a default instance "
        f"there that knows none of this project's runs: {fix}"
    )
