"""The embedded instance's SQLite storage (dagster.yaml's `storage`), with pool slots that two
processes cannot both claim.

Dagster's SQL event log claims a pool slot by selecting a free slot row `FOR UPDATE SKIP LOCKED`
and then updating that row by id. SQLite ignores `FOR UPDATE`, so two run processes claiming at
the same moment can select the same free slot and both take it: measured here under load, two
MinerU parses ran at once with the `mineru` pool limited to 1 (bench/load.py, test_load.py).
Postgres locks the row and is not affected. On SQLite the select and the update are made one
step across processes by a file lock beside the event log.

Commits that do not wait for the disk: Dagster opens a new SQLite connection for every read and
write (about 300 per document's run) and its databases are in WAL mode with SQLite's default
`synchronous=FULL`, so every commit syncs the WAL to disk, and every close of the last connection
checkpoints and syncs again — 17 ms an operation on this machine's disk against 1 ms in memory.
Here each connection to this storage's files gets `synchronous=NORMAL`, and each process keeps
one idle connection open to the files it used last (so another's close is not the last one):
a commit is then a write to the WAL in the page cache. That is what SQLite documents as safe
in WAL mode: a killed process loses nothing committed, a power cut may lose the last commits
but never corrupts the database (docs/decisions.md, "Event-log commits").
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
from collections import OrderedDict

# Not public: the SQLite storage classes and the slot claim they share with Postgres's storage
# (pinned by test_dagster_internals.py).
from dagster._core.storage.event_log import SqliteEventLogStorage
from dagster._core.storage.sqlite_storage import DagsterSqliteStorage
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import Pool

_CLAIM_LOCK = ".kb-slot-claim.lock"
# Idle connections a process keeps: the index, runs and schedules databases and its latest runs'.
_HELD = 8
_PATH = "kb_sqlite_path"


class _QuickCommits:
    """`synchronous=NORMAL` and a held idle connection for the SQLite files under the directories
    watched (module docstring). One per process: the listeners are on every SQLAlchemy engine."""

    def __init__(self) -> None:
        self._dirs: set[str] = set()
        self._held: OrderedDict[str, sqlite3.Connection] = OrderedDict()
        self._lock = threading.Lock()
        self._listening = False

    def watch(self, base_dir: str) -> None:
        with self._lock:
            self._dirs.add(os.path.join(os.path.abspath(base_dir), ""))
            if not self._listening:
                event.listen(Engine, "connect", self._connected)
                event.listen(Pool, "checkin", self._returned)
                self._listening = True

    def _connected(self, dbapi_connection, record) -> None:
        if not isinstance(dbapi_connection, sqlite3.Connection):
            return
        path = dbapi_connection.execute("PRAGMA database_list").fetchone()[2]
        if path and any(path.startswith(d) for d in self._dirs):
            dbapi_connection.execute("PRAGMA synchronous=NORMAL")
            record.info[_PATH] = path

    def _returned(self, _dbapi_connection, record) -> None:
        path = record.info.get(_PATH) if record is not None else None
        if path is None:
            return
        with self._lock:
            if path in self._held:
                self._held.move_to_end(path)
                return
        held = sqlite3.connect(path, timeout=30, check_same_thread=False)
        # A read maps the WAL index, which is what keeps another connection's close from being
        # the last one; a database not in WAL mode yet is held later, once it is.
        if held.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
            held.close()
            return
        held.execute("SELECT count(*) FROM sqlite_master").fetchone()
        with self._lock:
            if path in self._held:
                evicted = [held]
            else:
                self._held[path] = held
                evicted = [self._held.popitem(last=False)[1] for _ in range(len(self._held) - _HELD)]
        for connection in evicted:
            connection.close()

    def release(self) -> None:
        """Close the held connections. Before a fork: an SQLite connection must not cross one
        (the child would share its file handles and believe it holds its parent's locks); each
        process holds its own again at its next use."""
        with self._lock:
            held, self._held = list(self._held.values()), OrderedDict()
        for connection in held:
            connection.close()


_QUICK_COMMITS = _QuickCommits()
os.register_at_fork(before=_QUICK_COMMITS.release)


class SlotSafeSqliteEventLogStorage(SqliteEventLogStorage):
    def _claim_concurrency_slot(self, concurrency_key: str, run_id: str, step_key: str):
        with open(os.path.join(self._base_dir, _CLAIM_LOCK), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            return super()._claim_concurrency_slot(concurrency_key, run_id, step_key)


class SqliteStorage(DagsterSqliteStorage):
    """`storage: sqlite` of dagster.yaml (same `base_dir`, same files), with the slot-safe event log."""

    def __init__(self, base_dir: str, inst_data=None):
        _QUICK_COMMITS.watch(base_dir)
        super().__init__(base_dir, inst_data)
        self._event_log_storage = SlotSafeSqliteEventLogStorage(self._event_log_storage._base_dir)

    @classmethod
    def from_config_value(cls, inst_data, config_value):
        return cls.from_local(inst_data=inst_data, **config_value)
