"""The warnings table's automation condition through real automation ticks on a real instance.

Isolates the condition: a stand-in pair of assets with the same shape as ours (a per-document
asset and an unpartitioned table after it) carries `REFRESH_AFTER_ANY_DOCUMENT`, so the test
does not need MinerU. A document updates while another document's run is in progress, and that
run then fails: the table must still be requested once the run is over.
"""

from __future__ import annotations

import threading
import time

import dagster as dg

from kb_pipeline.defs.assets import REFRESH_AFTER_ANY_DOCUMENT


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
