"""A temp deployment laid out like the repo's, for the tests and benchmarks that start real
processes (`dagster dev`, run workers, drivers): its own DAGSTER_HOME holding an instance
config, a data root with an empty drop folder, and the environment that points Dagster and
kb-pipeline at them, with MinerU kept offline."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

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
    drop folder `knowledge_docs/`."""
    home, data = root / "home", root / "data"
    home.mkdir(parents=True, exist_ok=True)
    config = (REPO_ROOT / "dagster.yaml").read_text() if instance_yaml is None else instance_yaml
    (home / "dagster.yaml").write_text(config)
    drop = data / "knowledge_docs"
    drop.mkdir(parents=True, exist_ok=True)
    return Deployment(home, data, drop)
