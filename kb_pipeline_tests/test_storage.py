"""The embedded instance's SQLite storage (kb_pipeline/runs/storage.py): a pool slot is claimed
under a file lock, so two processes cannot take the same free slot (Dagster's SELECT … FOR UPDATE
is a no-op on SQLite; under load two parses ran with the pool limited to 1)."""

from __future__ import annotations

import fcntl
import subprocess
import sys
import time

import dagster as dg

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
        other = subprocess.Popen(
            [sys.executable, "-c", _CLAIM, storage._base_dir], stdout=subprocess.PIPE, text=True
        )
        time.sleep(1.5)
        assert other.poll() is None, "the claim did not wait for the one in flight"
        # The claim in flight (Dagster's own, unlocked: this process holds the lock) takes the only slot.
        claimed = super(SlotSafeSqliteEventLogStorage, storage)._claim_concurrency_slot(
            "mineru", "run-a", "mineru_raw_output"
        )
        assert claimed.name == "CLAIMED"
    out, _ = other.communicate(timeout=30)
    assert out.strip() == "BLOCKED", "the waiting claim took a slot that was already taken"
