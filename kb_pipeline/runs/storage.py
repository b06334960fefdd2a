"""The embedded instance's SQLite storage (dagster.yaml's `storage`), with pool slots that two
processes cannot both claim.

Dagster's SQL event log claims a pool slot by selecting a free slot row `FOR UPDATE SKIP LOCKED`
and then updating that row by id. SQLite ignores `FOR UPDATE`, so two run processes claiming at
the same moment can select the same free slot and both take it: measured here under load, two
MinerU parses ran at once with the `mineru` pool limited to 1 (bench/load.py, test_load.py).
Postgres locks the row and is not affected. On SQLite the select and the update are made one
step across processes by a file lock beside the event log; nothing else changes.
"""

from __future__ import annotations

import fcntl
import os

# Not public: the SQLite storage classes and the slot claim they share with Postgres's storage
# (pinned by test_dagster_internals.py).
from dagster._core.storage.event_log import SqliteEventLogStorage
from dagster._core.storage.sqlite_storage import DagsterSqliteStorage

_CLAIM_LOCK = ".kb-slot-claim.lock"


class SlotSafeSqliteEventLogStorage(SqliteEventLogStorage):
    def _claim_concurrency_slot(self, concurrency_key: str, run_id: str, step_key: str):
        with open(os.path.join(self._base_dir, _CLAIM_LOCK), "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            return super()._claim_concurrency_slot(concurrency_key, run_id, step_key)


class SqliteStorage(DagsterSqliteStorage):
    """`storage: sqlite` of dagster.yaml (same `base_dir`, same files), with the slot-safe event log."""

    def __init__(self, base_dir: str, inst_data=None):
        super().__init__(base_dir, inst_data)
        self._event_log_storage = SlotSafeSqliteEventLogStorage(self._event_log_storage._base_dir)

    @classmethod
    def from_config_value(cls, inst_data, config_value):
        return cls.from_local(inst_data=inst_data, **config_value)
