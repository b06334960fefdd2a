"""Automation conditions through real automation ticks on a real instance
(`dg.evaluate_automation_conditions`, the evaluator the daemon's automation sensor runs).

1. The warnings table's condition, isolated: a stand-in pair of assets with the same shape as
   ours (a per-document asset and an unpartitioned table after it) carries
   `REFRESH_AFTER_ANY_DOCUMENT`, so the test does not need MinerU. A document updates while
   another document's run is in progress, and that run then fails: the table must still be
   requested once the run is over.
2. The shipped definitions around a real `ingest` of real PDFs in warm run workers, with a tick
   every few tenths of a second as it runs: automation requests nothing of a document that
   `ingest` brought up to date, and nothing at all once `ingest` is done.
"""

from __future__ import annotations

import io
import threading
import time

import dagster as dg

from kb_pipeline.cli.ingest import ingest_folder
from kb_pipeline.cli.status import folder_status
from kb_pipeline.definitions import build_definitions
from kb_pipeline.defs.assets import REFRESH_AFTER_ANY_DOCUMENT
from kb_pipeline.defs.resources import KnowledgeBase


def test_table_refreshes_after_an_update_seen_during_a_sibling_run_that_fails(tmp_path):
    # The scenario runs two Dagster executions at once on one SQLite instance; it is run in a
    # thread with a deadline so that a lock-up fails this test instead of stalling the suite.
    failure: list[BaseException] = []

    def scenario() -> None:
        try:
            _scenario(tmp_path)
        except BaseException as e:  # noqa: BLE001 — handed to the test's thread below
            failure.append(e)

    runner = threading.Thread(target=scenario, daemon=True)
    runner.start()
    runner.join(240)
    assert not runner.is_alive(), "the automation scenario did not finish within 240 s"
    if failure:
        raise failure[0]


def _scenario(tmp_path) -> None:
    documents = dg.DynamicPartitionsDefinition(name="documents")
    release = threading.Event()

    @dg.asset(partitions_def=documents)
    def quality_warnings(context) -> None:  # (no annotation: dagster reads it as a string here)
        if context.partition_key == "bad":
            release.wait(60)
            raise RuntimeError("this document's run fails")

    @dg.asset(deps=[quality_warnings], automation_condition=REFRESH_AFTER_ANY_DOCUMENT)
    def quality_warnings_table() -> None:
        pass

    defs = dg.Definitions(assets=[quality_warnings, quality_warnings_table])
    # No compute-log capture: two executions at once in one process would each redirect the
    # process's stdout/stderr (and wait on `tail` helpers) — a lock-up outside what is tested.
    no_capture = {
        "compute_logs": {"module": "dagster._core.storage.noop_compute_log_manager", "class": "NoOpComputeLogManager"}
    }
    with dg.instance_for_test(temp_dir=str(tmp_path), overrides=no_capture) as instance:
        instance.add_dynamic_partitions("documents", ["good", "bad"])
        dg.materialize([quality_warnings], partition_key="good", instance=instance)
        dg.materialize([quality_warnings_table], instance=instance)
        tick = dg.evaluate_automation_conditions(defs=defs, instance=instance)
        assert tick.total_requested == 0  # the table is current

        sibling = threading.Thread(
            target=lambda: dg.materialize(
                [quality_warnings], partition_key="bad", instance=instance, raise_on_error=False
            )
        )
        sibling.start()
        deadline = time.monotonic() + 60
        while not instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED])):
            assert time.monotonic() < deadline, "the sibling run never started"
            time.sleep(0.1)
        dg.materialize([quality_warnings], partition_key="good", instance=instance)  # an update, mid-run
        tick = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=tick.cursor)
        assert tick.total_requested == 0  # not while a document's run may still write warnings

        release.set()
        sibling.join(60)
        failed = instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.FAILURE]))
        assert len(failed) == 1
        tick = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=tick.cursor)
        assert tick.total_requested == 1  # the update is not lost


def _requested(tick) -> dict[str, set]:
    return {key.to_user_string(): set(keys) for key, keys in tick._requested_partitions_by_asset_key.items() if keys}


def test_automation_requests_nothing_of_what_ingest_brought_up_to_date(drop, layout, parses, warm_instance):
    instance = warm_instance
    # Parses from the session's cache: what is tested is the runs' records, not MinerU.
    parses.seed(layout, *sorted(drop.iterdir()))
    kb = KnowledgeBase(drop_folder=str(drop), data_dir=str(layout.root))
    defs = build_definitions(kb)
    cursor = dg.evaluate_automation_conditions(defs=defs, instance=instance).cursor
    during: list[dict[str, set]] = []
    done = threading.Event()

    def ticks() -> None:
        nonlocal cursor
        while not done.is_set():
            tick = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=cursor)
            cursor = tick.cursor
            during.append(_requested(tick))
            time.sleep(0.2)

    ticker = threading.Thread(target=ticks)
    ticker.start()
    try:
        outcomes = ingest_folder(kb, instance, progress=io.StringIO(), workers=2)
    finally:
        done.set()
        ticker.join()
    assert {o.status for o in outcomes} == {"ingested"}
    documents = {o.doc_id for o in outcomes}
    # Mid-ingest, a corpus table may be refreshed after a document's run (its condition says so);
    # a document's own assets never: `ingest`'s run updated them all together.
    assert not [request for request in during if documents & set().union(*request.values())], during
    for _ in range(3):  # and once it is done, nothing is left to do
        tick = dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=cursor)
        cursor = tick.cursor
        assert not _requested(tick), _requested(tick)
    assert {line.state for line in folder_status(kb, instance)} == {"ingested"}
