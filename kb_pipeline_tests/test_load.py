"""Load through the sensor path, small: `bench/load.py` (which does the full 200) with 8 PDFs
dropped at once, 3 concurrent run workers and the `mineru` pool limited to 1.

The execution path is real multi-run execution: the sensor's RunRequests are executed by three
processes at once, each running `ingest_documents` for its partitions against the same (temp,
sqlite) instance, with the job's own in-process executor — what the daemon's run workers do.
Each `mineru_raw_output` step must claim a slot of the `mineru` pool from the shared instance
before MinerU starts, so with a limit of 1 the other runs' parse steps wait ("Step blocked by
limit for pool mineru"): the limit is exercised, not just configured. Overlap is measured from
the runs' STEP_START/STEP_SUCCESS events. Then the sensor ticks again over the unchanged folder,
and once more from an empty cursor: neither requests a run.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import REPO_ROOT

pytestmark = [pytest.mark.slow, pytest.mark.services]
DOCS = 8


def test_drop_of_many_pdfs_through_the_sensor_respects_the_pool_and_second_pass_requests_nothing(tmp_path):
    report_file = tmp_path / "report.json"
    done = subprocess.run(
        [
            sys.executable,
            str(REPO_ROOT / "bench" / "load.py"),
            "--docs",
            str(DOCS),
            "--workers",
            "3",
            "--pool-limit",
            "1",
            "--workdir",
            str(tmp_path / "deployment"),
            "--json",
            str(report_file),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert report_file.is_file(), done.stderr[-3000:]
    report = json.loads(report_file.read_text())
    print("\nload:", json.dumps(report))
    assert report["tick1_runs"] == 0, "files seen once must wait for a second look"
    assert report["tick2_runs"] == DOCS
    assert report["worker_exit_codes"] == [0, 0, 0], done.stderr[-3000:]
    assert report["runs"] == report["runs_succeeded"] == DOCS
    assert report["partitions_materialised"] == dict.fromkeys(
        ["mineru_raw_output", "parsed_document", "quality_warnings", "kb_package", "knowledge_payloads"], DOCS
    )
    assert report["parse_steps"] == DOCS
    assert report["max_parses_at_once"] == 1, "the `mineru` pool (limit 1) let parses overlap"
    assert report["blocked_by_pool_events"] >= 1, "no run ever waited for the pool: the limit was not exercised"
    assert report["slots_held_after"] == 0
    assert report["second_pass_runs"] == 0 and report["lost_cursor_pass_runs"] == 0
    assert report["ok"] and done.returncode == 0
