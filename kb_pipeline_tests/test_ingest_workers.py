"""`kb-pipeline ingest` with warm run workers (`ingest_folder(..., workers=2)`), on a real
instance in a temp dir with real MinerU: the same artifacts as one run after another, each run
in a worker (not this process), a bad document failing alone, and a worker killed mid-run
taking down nothing but a retry."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import dagster as dg
import pytest

from kb_pipeline.cli.ingest import format_outcomes, ingest_folder
from kb_pipeline.defs.dead_runs import worker_record
from kb_pipeline.defs.resources import KnowledgeBase
from kb_pipeline.parsing.cache import COMPLETE_MARKER
from kb_pipeline.paths import DataLayout

from .conftest import FIXTURE_PDFS, IN_PROCESS_LAUNCHER
from .deployment import make_deployment, processes

pytestmark = [pytest.mark.slow, pytest.mark.services]
DOCS = ["sample", "unittest_test", "chem_intro"]


def _drop(tmp_path, names, corrupt: bool = False):
    drop = tmp_path / "drop"
    drop.mkdir()
    for name in names:
        shutil.copy(FIXTURE_PDFS / f"{name}.pdf", drop)
    if corrupt:
        (drop / "broken.pdf").write_bytes(b"%PDF-1.7\nnot a pdf at all\n")
    return drop


def _chunks(data_dir, doc_id: str) -> list:
    return json.loads((DataLayout(data_dir).parsed_dir(doc_id) / "chunks.json").read_text())["chunks"]


class _TimedLines(io.StringIO):
    """Progress output that notes when each line was written."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[tuple[float, str]] = []

    def write(self, text: str) -> int:
        if text.strip():
            self.lines.append((time.time(), text))
        return super().write(text)


def _run_pids(instance) -> set[int]:
    runs = instance.get_runs(dg.RunsFilter(job_name="ingest_documents"))
    return {record.pid for run in runs if (record := worker_record(instance, run.run_id))}


def test_two_workers_give_the_artifacts_of_one_run_after_another_and_a_bad_pdf_fails_alone(tmp_path, warm_instance):
    instance = warm_instance
    drop = _drop(tmp_path, DOCS, corrupt=True)
    parallel = KnowledgeBase(drop_folder=str(drop), data_dir=str(tmp_path / "parallel"))
    progress = _TimedLines()
    outcomes = ingest_folder(parallel, instance, progress=progress, workers=2)

    assert [o.name for o in outcomes] == sorted(o.name for o in outcomes), "outcomes in folder order"
    # Each document's line is printed when its run ends, not once all have.
    ends = [
        instance.get_run_stats(r.run_id).end_time for r in instance.get_runs(dg.RunsFilter(job_name="ingest_documents"))
    ]
    first_line = min(t for t, text in progress.lines if "ingested:" in text or "FAILED" in text)
    assert first_line < max(ends), (first_line, sorted(ends))
    statuses = {o.doc_id: o.status for o in outcomes}
    assert statuses == {"broken": "failed", **dict.fromkeys(DOCS, "ingested")}
    assert next(o for o in outcomes if o.doc_id == "broken").reason
    # A step that failed is not retried: Dagster's run retries say so (`dagster/will_retry`).
    (broken,) = instance.get_runs(dg.RunsFilter(tags={"kb/source": "broken.pdf"}))
    assert (
        broken.tags["dagster/will_retry"] == "false" and not next(o for o in outcomes if o.doc_id == "broken").retries
    )
    assert "at a time" in progress.getvalue()
    pids = _run_pids(instance)
    assert pids and os.getpid() not in pids and len(pids) <= 2, pids  # each run in a worker
    table = instance.get_runs(dg.RunsFilter(job_name="refresh_tables"))
    assert [r.status for r in table] == [dg.DagsterRunStatus.SUCCESS]

    (tmp_path / "seq-dagster").mkdir()
    with dg.instance_for_test(
        temp_dir=str(tmp_path / "seq-dagster"), overrides={"run_launcher": IN_PROCESS_LAUNCHER}
    ) as seq_instance:
        sequential = KnowledgeBase(drop_folder=str(drop), data_dir=str(tmp_path / "sequential"))
        ingest_folder(sequential, seq_instance, progress=io.StringIO(), workers=1)
    for doc_id in DOCS:
        assert _chunks(tmp_path / "parallel", doc_id) == _chunks(tmp_path / "sequential", doc_id), doc_id

    # Nothing changed: nothing runs, no worker is started.
    again = ingest_folder(parallel, instance, progress=io.StringIO(), workers=2)
    assert {o.status for o in again if o.doc_id != "broken"} == {"unchanged"}


def test_the_command_forks_its_workers_and_they_give_the_artifacts_of_one_run_after_another(tmp_path, instance):
    """`kb-pipeline ingest` as a user runs it: its own process, so its two workers are forked
    from it (`fork_workers`), with MinerU and the definitions already loaded. A fork after
    MinerU had read a PDF in the command would fail every parse ("Inherited PDFium font
    runtime"); here each document is ingested, with the chunks of an in-process run."""
    dep = make_deployment(tmp_path / "command")
    for name in DOCS:
        shutil.copy(FIXTURE_PDFS / f"{name}.pdf", dep.drop)
    env = {**os.environ, **dep.env, "KB_PARSE_WORKERS": "2"}
    log = tmp_path / "ingest.log"
    with open(log, "w") as out:
        command = subprocess.Popen(
            [str(Path(sys.executable).parent / "kb-pipeline"), "ingest"], env=env, stdout=out, stderr=out
        )
        started: dict[int, str] = {}  # the command's child processes: pid → command line
        deadline = time.monotonic() + 600
        while command.poll() is None and time.monotonic() < deadline:
            for pid, (ppid, _group, _state) in processes().items():
                if ppid == command.pid and pid not in started:
                    with contextlib.suppress(OSError):
                        started[pid] = Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ").strip()
            time.sleep(0.1)
        command.kill()
        command.wait()
    output = log.read_text()
    assert command.returncode == 0, output[-3000:]
    assert f"{len(DOCS)} ingested, 0 unchanged, 0 failed" in output
    # A forked worker has the command's own command line; a spawned one multiprocessing's.
    workers = [line for line in started.values() if line.endswith("kb-pipeline ingest")]
    assert len(workers) == 2, started
    # Spawned: the command's one embedded model server, which every run's knowledge step asks.
    assert sum("multiprocessing.spawn" in line for line in started.values()) == 1, started

    sequential = KnowledgeBase(drop_folder=str(dep.drop), data_dir=str(tmp_path / "sequential"))
    ingest_folder(sequential, instance, progress=io.StringIO(), workers=1)
    for doc_id in DOCS:
        assert _chunks(dep.data, doc_id) == _chunks(tmp_path / "sequential", doc_id), doc_id


def test_a_worker_killed_mid_run_fails_nothing_but_its_run_and_the_document_is_ingested(tmp_path, warm_instance):
    instance = warm_instance
    drop = _drop(tmp_path, ["demo1", *DOCS])  # demo1: 13 pages, a parse of several seconds
    kb = KnowledgeBase(drop_folder=str(drop), data_dir=str(tmp_path / "data"))
    killed: list[str] = []

    def kill_demo1_worker() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            for run in instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED])):
                record = worker_record(instance, run.run_id)
                if run.tags.get("kb/source") == "demo1.pdf" and record:
                    os.kill(record.pid, signal.SIGKILL)
                    killed.append(run.run_id)
                    return
            time.sleep(0.2)

    killer = threading.Thread(target=kill_demo1_worker)
    killer.start()
    progress = io.StringIO()
    outcomes = ingest_folder(kb, instance, progress=progress, workers=2)
    killer.join()

    assert killed, "the test never saw demo1's run in a worker"
    assert {o.doc_id: o.status for o in outcomes} == dict.fromkeys(["demo1", *DOCS], "ingested")
    dead = instance.get_run_by_id(killed[0])
    assert dead.status == dg.DagsterRunStatus.FAILURE, dead.status  # ended, not left STARTED
    # Retried as Dagster's run retries are recorded (the run group the UI shows), and said so.
    (retry,) = [run for run in instance.get_runs() if run.parent_run_id == dead.run_id]
    assert retry.status == dg.DagsterRunStatus.SUCCESS and retry.root_run_id == dead.run_id
    assert retry.tags["dagster/retry_number"] == "1"
    said = f"retried after its worker died: run {dead.run_id[:8]}"
    assert {o.doc_id: o.retries for o in outcomes}["demo1"] == [said]
    assert said in progress.getvalue()
    assert dead.tags["dagster/auto_retry_run_id"] == retry.run_id
    assert "1 retried" in format_outcomes(outcomes, 1.0)
    assert not instance.get_runs(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED]))
    assert not instance.event_log_storage.get_concurrency_info("mineru").claimed_slots
    entries = list((tmp_path / "data" / "knowledge_cache" / "parse").iterdir())
    assert all((e / COMPLETE_MARKER).is_file() for e in entries if not e.name.startswith(".tmp-"))
