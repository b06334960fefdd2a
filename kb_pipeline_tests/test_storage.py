"""The embedded instance's SQLite storage (kb_pipeline/runs/storage.py): a pool slot is claimed
under a file lock, so two processes cannot take the same free slot (Dagster's SELECT … FOR UPDATE
is a no-op on SQLite; under load two parses ran with the pool limited to 1); the idle connections
a process holds do not cross a fork."""

from __future__ import annotations

import contextlib
import fcntl
import os
import subprocess
import sys
import time

import dagster as dg

from kb_pipeline.processes import FORK
from kb_pipeline.runs.storage import _CLAIM_LOCK, SlotSafeSqliteEventLogStorage, SqliteStorage

from .deployment import make_deployment

_CLAIM = """
import sys
from kb_pipeline.runs.storage import SlotSafeSqliteEventLogStorage
storage = SlotSafeSqliteEventLogStorage(sys.argv[1])
print(storage._claim_concurrency_slot("mineru", "run-b", "mineru_raw_output").name, flush=True)
"""


def test_the_project_instance_uses_the_slot_safe_storage(tmp_path, monkeypatch):
    dep = make_deployment(tmp_path)
    for key, value in dep.env.items():
        monkeypatch.setenv(key, value)
    with dg.DagsterInstance.get() as instance:
        assert isinstance(instance.event_log_storage, SlotSafeSqliteEventLogStorage)
        # The same files as Dagster's own `storage: sqlite`, so an existing instance keeps its history.
        assert (dep.data / "dagster" / "history" / "runs" / "index.db").is_file()


def test_a_claim_waits_for_the_lock_and_a_taken_slot_is_not_taken_again(tmp_path):
    storage = SqliteStorage(str(tmp_path)).event_log_storage
    assert isinstance(storage, SlotSafeSqliteEventLogStorage)
    storage.set_concurrency_slots("mineru", 1)
    with open(storage._base_dir + "/" + _CLAIM_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a claim in flight in another process
        other = subprocess.Popen([sys.executable, "-c", _CLAIM, storage._base_dir], stdout=subprocess.PIPE, text=True)
        time.sleep(1.5)
        assert other.poll() is None, "the claim did not wait for the one in flight"
        # The claim in flight (Dagster's own, unlocked: this process holds the lock) takes the only slot.
        claimed = super(SlotSafeSqliteEventLogStorage, storage)._claim_concurrency_slot(
            "mineru", "run-a", "mineru_raw_output"
        )
        assert claimed.name == "CLAIMED"
    out, _ = other.communicate(timeout=30)
    assert out.strip() == "BLOCKED", "the waiting claim took a slot that was already taken"


def _open_database_files(folder) -> list[str]:
    """This process's open file handles on SQLite files (databases, WALs, shared-memory indexes)
    under `folder` (other tests in this process may hold their own)."""
    names = []
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own handle, closed since
            names.append(os.readlink(f"/proc/self/fd/{fd}"))
    return sorted(n for n in names if n.startswith(str(folder)) and n.endswith((".db", ".db-wal", ".db-shm")))


def _report_database_files(conn, folder) -> None:
    conn.send(_open_database_files(folder))


def test_no_sqlite_connection_crosses_a_fork(tmp_path):
    """A worker forked from `kb-pipeline ingest` (warm_runs.py) starts with none of the idle
    connections its parent held: sharing them, it would believe it held its parent's locks."""
    storage = SqliteStorage(str(tmp_path))
    storage.event_log_storage.set_concurrency_slots("mineru", 1)
    storage.run_storage.get_runs()
    assert _open_database_files(tmp_path), "the storage holds no idle connection to test with"
    parent, child = FORK.Pipe()
    process = FORK.Process(target=_report_database_files, args=(child, tmp_path))
    process.start()
    try:
        assert parent.recv() == []
    finally:
        process.join(timeout=10)
    assert process.exitcode == 0
    storage.run_storage.get_runs()  # the parent holds its own again at its next use
    assert _open_database_files(tmp_path)
