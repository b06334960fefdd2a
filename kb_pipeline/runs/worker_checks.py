"""`kb-pipeline worker`'s first look at the services it needs, before anything else: the Dagster
instance's PostgreSQL database and the Celery broker (and result backend) let this host in, with
the credentials it was given. Without it, a wrong password or a host outside the database's
allowed networks shows late and long: Dagster retries the database and ends in a traceback, and
Celery retries its broker for minutes. Here either is one line, `error: …`, and the worker exits.

The services are read from `$DAGSTER_HOME/dagster.yaml` itself, as the instance would build them
(the launcher from its config, the settings filling in what it leaves out), without building the
instance: that is what connects to the database."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from ..cluster import is_celery_launcher

CONNECT_SECONDS = 5


class _Unset(Exception):
    """An environment variable the config names is not set: Dagster's own error says so."""


def check_services() -> None:
    """Raise SystemExit("error: …"), one line naming the service and its answer, unless the
    instance's database and the launcher's broker and backend accept a connection from here."""
    home = os.environ.get("DAGSTER_HOME")
    path = Path(home) / "dagster.yaml" if home else None
    if path is None or not path.is_file():
        return
    config = yaml.safe_load(path.read_text()) or {}
    for database in _database_configs(config):
        try:
            check_database(_resolved(database))
        except _Unset:
            continue
    launcher = config.get("run_launcher") or {}
    if not (launcher.get("module") and launcher.get("class")):
        return
    try:
        options = _resolved(launcher.get("config") or {})
    except _Unset:
        return
    launcher_class = getattr(importlib.import_module(launcher["module"]), launcher["class"])
    if not is_celery_launcher(launcher_class):
        return  # not on Celery: start_worker refuses the instance, saying so
    # Built as the instance would: the URLs it resolves, with the settings' defaults (no connection yet).
    try:
        app = launcher_class(**options).celery
    except TypeError:
        return  # a config the launcher refuses: the instance says why when the worker builds it

    check_celery_urls(app.conf.broker_url, app.conf.result_backend, app.conf.broker_connection_timeout)


def check_database(config: dict[str, Any]) -> None:
    """`config`: a dagster-postgres storage's (`postgres_db` or `postgres_url`), resolved."""
    import sqlalchemy
    from dagster_postgres.utils import pg_url_from_config

    engine = sqlalchemy.create_engine(
        pg_url_from_config(config), connect_args={"connect_timeout": CONNECT_SECONDS}, poolclass=sqlalchemy.NullPool
    )
    try:
        engine.connect().close()
    except sqlalchemy.exc.DBAPIError as e:
        raise SystemExit(
            f"error: cannot connect to the Dagster instance's database: {_one_line(e.orig)} "
            "(the storage in $DAGSTER_HOME/dagster.yaml, KB_PG_*)"
        ) from None
    finally:
        engine.dispose()


def check_celery_urls(broker: str, backend: str | None, timeout: float | None = None) -> None:
    """The broker, and the result backend when it is another Redis, answer a connection."""
    from kombu import Connection

    urls = [("Celery broker", broker)]
    if backend and backend != broker and backend.split("://")[0] in ("redis", "rediss"):
        urls.append(("Celery result backend", backend))
    for what, url in urls:
        connection = Connection(url, connect_timeout=timeout or CONNECT_SECONDS)
        try:
            connection.ensure_connection(max_retries=0)  # one attempt: a refusal is not transient
        except Exception as e:  # kombu's OperationalError, or the transport's own
            raise SystemExit(
                f"error: cannot connect to the {what} at {connection.as_uri()}: {_one_line(e)} "
                "(the run launcher's config in $DAGSTER_HOME/dagster.yaml, KB_CELERY_*)"
            ) from None
        finally:
            connection.release()


def _database_configs(value: Any) -> Iterator[dict]:
    """Every dagster-postgres config in the instance's (`storage: postgres:`, or a run, event
    log or schedule storage of its own)."""
    if isinstance(value, dict):
        if "postgres_db" in value or "postgres_url" in value:
            yield value
            return
        for item in value.values():
            yield from _database_configs(item)


def _resolved(value: Any) -> Any:
    """Dagster's `{env: NAME}` sources replaced by the variables' values."""
    if isinstance(value, dict):
        if set(value) == {"env"}:
            found = os.environ.get(value["env"])
            if found is None:
                raise _Unset(value["env"])
            return found
        return {key: _resolved(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_resolved(item) for item in value]
    return value


def _one_line(error: BaseException | None) -> str:
    return " ".join(str(error).split())  # psycopg2's messages span lines
