"""Every setting kb-pipeline takes from the environment, read in one place into one frozen,
typed object. Entry points read it once (`Settings.from_env()`: the CLI, the Dagster code
location when it loads, the run launcher) and hand it down; nothing reads `KB_*` at import.

| variable | setting | default |
|---|---|---|
| `KB_DATA_DIR` | `data_dir`: the data root (cache, artifacts, tables, packages) | `./data` |
| `KB_DROP_FOLDER` | `drop_folder`: where PDFs are dropped | `<data_dir>/knowledge_docs` |
| `KB_TIER`, `KB_PARSE_MODE`, `KB_PAGE_RANGE`, `KB_MAX_PAGES`, `KB_OCR_LANGS`, `KB_PARSE_WINDOW` | `parser` (`ParserConfig`) | flash, auto, all pages, 3000, eng, 50 |
| `KB_SENSOR_INTERVAL` | `sensor_interval_seconds`: the drop-folder sensor's minimum interval. Dagster's sensor daemon loops every 5 s and skips a sensor whose last tick began less than this ago, so 5 would skip every other loop now and then (a 10 s wait); 1 means every loop | 1 |
| `KB_DROP_SETTLE_SECONDS` | `drop_settle_seconds`: a file unchanged this long is finished at the sensor's first look; a younger one waits for a second look | 2 |
| `KB_DEAD_RUN_INTERVAL` | `dead_run_interval_seconds`: the dead-run sensor's tick | 5 |
| `KB_NEVER_STARTED_SECONDS` | `never_started_seconds`: a launched run with no worker pid after this is dead | 30 |
| `KB_PARSE_RETRIES`, `KB_PARSE_RETRY_SECONDS` | `parse_retries`, `parse_retry_seconds`: a failed parse backend is retried | 2, 10 |
| `KB_RUN_WORKERS` | `run_workers`: warm run workers of the process that launches runs (the daemon); 0: a fresh process per run, Dagster's default | `KB_PARSE_WORKERS` |

The parse backends read theirs when they run (not at import): `KB_MINERU_API_URL`,
`KB_MINERU_API_KEY`, `KB_MINERU_API_TIMEOUT` (parsing/mineru_api.py), `KB_PARSE_WORKERS` (warm
workers of `run` and `ingest`, and the default of `KB_RUN_WORKERS`: one per core;
parsing/workers.py) and `KB_PARSE_WINDOWS_PER_WORKER` (parsing/windows.py).

`DAGSTER_HOME` and `KB_DAGSTER_DIR` are Dagster's own: `dagster.yaml` reads them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from .config import ParserConfig
from .parsing.workers import default_workers

DATA_DIR_ENV = "KB_DATA_DIR"
DEFAULT_NEVER_STARTED_SECONDS = 30.0


class Settings(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    data_dir: Path
    drop_folder: Path
    parser: ParserConfig = ParserConfig()
    sensor_interval_seconds: int = Field(default=1, ge=1)
    drop_settle_seconds: float = Field(default=2.0, ge=0)
    dead_run_interval_seconds: int = Field(default=5, ge=1)
    never_started_seconds: float = Field(default=DEFAULT_NEVER_STARTED_SECONDS, gt=0)
    parse_retries: int = Field(default=2, ge=0)
    parse_retry_seconds: float = Field(default=10.0, ge=0)
    run_workers: int = Field(default_factory=default_workers, ge=0)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        data_dir = Path(env.get(DATA_DIR_ENV) or "data").resolve()
        defaults = ParserConfig()
        parser = ParserConfig.model_validate(
            {
                "tier": env.get("KB_TIER") or defaults.tier,
                "parse_mode": env.get("KB_PARSE_MODE") or defaults.parse_mode,
                "page_range": env.get("KB_PAGE_RANGE", defaults.page_range),
                "max_pages": env.get("KB_MAX_PAGES") or defaults.max_pages,
                "ocr_langs": env.get("KB_OCR_LANGS") or defaults.ocr_langs,
                "parse_window": env.get("KB_PARSE_WINDOW") or defaults.parse_window,
            }
        )
        numbers = {
            field: env[name]
            for field, name in (
                ("sensor_interval_seconds", "KB_SENSOR_INTERVAL"),
                ("drop_settle_seconds", "KB_DROP_SETTLE_SECONDS"),
                ("dead_run_interval_seconds", "KB_DEAD_RUN_INTERVAL"),
                ("never_started_seconds", "KB_NEVER_STARTED_SECONDS"),
                ("parse_retries", "KB_PARSE_RETRIES"),
                ("parse_retry_seconds", "KB_PARSE_RETRY_SECONDS"),
            )
            if env.get(name)
        }
        numbers["run_workers"] = env.get("KB_RUN_WORKERS") or str(default_workers(env))
        return cls(
            data_dir=data_dir,
            drop_folder=Path(env.get("KB_DROP_FOLDER") or data_dir / "knowledge_docs").resolve(),
            parser=parser,
            **numbers,
        )
