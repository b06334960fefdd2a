"""The local parse service (`kb-pipeline ui` serves it to the daemon's runs), with real MinerU:
a parse through it gives the cache entry an in-process parse gives, byte for byte, in a warm
worker that outlives the request; a service that is not
there, or whose worker is killed mid-parse, gives a `ParseServiceError` naming the socket and
publishes nothing; and the Dagster asset parses through it when KB_PARSE_SERVICE is set."""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
from pathlib import Path

import dagster as dg
import pytest

from kb_pipeline.config import ParserConfig
from kb_pipeline.defs.resources import KnowledgeBase
from kb_pipeline.instance.ingest import ingest_folder
from kb_pipeline.parsing import mineru_adapter
from kb_pipeline.parsing.cache import COMPLETE_MARKER
from kb_pipeline.parsing.errors import ParseServiceError
from kb_pipeline.parsing.service import SERVICE_ENV, parse_via_service, serving
from kb_pipeline.paths import DataLayout
from kb_pipeline.pipeline import parse_raw
from kb_pipeline.sources import sha256_file

from .conftest import FIXTURE_PDFS, assert_same_cache_entry

pytestmark = pytest.mark.slow


@pytest.fixture
def socket_path():
    # Unix socket paths must stay short: pytest's tmp_path can be too long.
    with tempfile.TemporaryDirectory(prefix="kbps-", dir="/tmp") as d:
        yield Path(d) / "parse.sock"


def _raw(layout: DataLayout, pdf: Path):
    return parse_raw(pdf, sha256_file(pdf), ParserConfig(), layout)


def test_a_parse_through_the_service_is_the_in_process_parse_in_a_warm_worker(tmp_path, socket_path, monkeypatch):
    local = _raw(DataLayout(tmp_path / "local"), FIXTURE_PDFS / "chem_intro.pdf")
    with serving(socket_path, 1, tmp_path / "mineru_home") as pool:
        monkeypatch.setenv(SERVICE_ENV, str(socket_path))
        remote = _raw(DataLayout(tmp_path / "remote"), FIXTURE_PDFS / "chem_intro.pdf")
        assert not remote.cache_hit and pool.pids, "the service parsed it"
        (worker,) = pool.pids
        assert worker != os.getpid()
        _raw(DataLayout(tmp_path / "again"), FIXTURE_PDFS / "sample.pdf")
        assert pool.pids == [worker], "the same warm worker took the next request"
    assert_same_cache_entry(remote.path, local.path)
    assert not socket_path.exists(), "the socket is removed when the service stops"


def test_no_service_at_the_socket_is_a_service_error_naming_it(tmp_path, socket_path):
    with pytest.raises(ParseServiceError, match=str(socket_path)):
        parse_via_service(
            str(socket_path),
            FIXTURE_PDFS / "sample.pdf",
            tmp_path / "out",
            config=ParserConfig(),
            ocr_mode="txt",
            pdf=FIXTURE_PDFS / "sample.pdf",
        )


def test_a_worker_killed_mid_parse_fails_that_parse_only_and_publishes_nothing(tmp_path, socket_path, monkeypatch):
    layout = DataLayout(tmp_path / "data")
    with serving(socket_path, 1, tmp_path / "mineru_home") as pool:
        monkeypatch.setenv(SERVICE_ENV, str(socket_path))
        _raw(layout, FIXTURE_PDFS / "sample.pdf")  # the worker is warm

        def kill_when_busy() -> None:
            deadline = time.monotonic() + 60
            while not pool.busy and time.monotonic() < deadline:
                time.sleep(0.05)
            for pid in list(pool.busy):
                os.kill(pid, signal.SIGKILL)

        killer = threading.Thread(target=kill_when_busy)
        killer.start()
        with pytest.raises(ParseServiceError, match="died while parsing demo1.pdf"):
            _raw(layout, FIXTURE_PDFS / "demo1.pdf")
        killer.join()
        entries = list(layout.parse_cache.iterdir())
        assert all((e / COMPLETE_MARKER).is_file() for e in entries if not e.name.startswith(".tmp-"))
        assert len([e for e in entries if not e.name.startswith(".tmp-")]) == 1, "only sample's entry"
        again = _raw(layout, FIXTURE_PDFS / "demo1.pdf")  # a fresh worker took over
        assert (again.path / COMPLETE_MARKER).is_file()


def test_the_dagster_runs_parse_through_the_service(tmp_path, socket_path, monkeypatch):
    drop = tmp_path / "drop"
    drop.mkdir()
    for name in ("sample", "unittest_test"):
        (drop / f"{name}.pdf").write_bytes((FIXTURE_PDFS / f"{name}.pdf").read_bytes())
    kb = KnowledgeBase(drop_folder=str(drop), data_dir=str(tmp_path / "data"))
    (tmp_path / "dagster").mkdir()
    with (
        serving(socket_path, 2, tmp_path / "mineru_home") as pool,
        dg.instance_for_test(temp_dir=str(tmp_path / "dagster")) as instance,
    ):
        monkeypatch.setenv(SERVICE_ENV, str(socket_path))
        calls: list[Path] = []
        real = mineru_adapter.run_mineru
        monkeypatch.setattr(mineru_adapter, "run_mineru", lambda pdf, **kw: calls.append(pdf) or real(pdf, **kw))
        outcomes = ingest_folder(kb, instance)
        assert [o.status for o in outcomes] == ["ingested", "ingested"]
        assert pool.pids, "the service's workers parsed"
        assert not calls, "nothing was parsed in the run's own process"


@pytest.mark.services
def test_make_ui_serves_its_runs_and_stops_cleanly(tmp_path, monkeypatch):
    """`kb-pipeline ui` (what `make ui` runs) on a temp deployment: a dropped PDF is ingested by
    a daemon-launched run whose parse went to the service's warm workers (children of the ui
    process, started on that first parse); SIGTERM stops dagster dev, the workers and the socket."""
    import shutil
    import subprocess
    import sys

    from kb_pipeline.instance.status import folder_status

    from .conftest import REPO_ROOT
    from .deployment import free_port, make_deployment, process_tree, processes

    # The parse service's socket goes under the data root: keep the path short.
    with tempfile.TemporaryDirectory(prefix="kbui-", dir="/tmp") as short:
        deployment = make_deployment(Path(short))
        drop, data, env = deployment.drop, deployment.data, deployment.env
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        port = free_port()
        log = tmp_path / "ui.log"
        with log.open("wb") as out:
            ui = subprocess.Popen(
                [str(Path(sys.executable).parent / "kb-pipeline"), "ui", "--port", str(port)],
                env={**os.environ, **env},
                cwd=REPO_ROOT,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            shutil.copy(FIXTURE_PDFS / "sample.pdf", drop)
            kb = KnowledgeBase(drop_folder=str(drop), data_dir=str(data))
            deadline = time.monotonic() + 180
            state = None
            while time.monotonic() < deadline:
                with dg.DagsterInstance.get() as instance:
                    (status,) = folder_status(kb, instance)
                state = status.state
                if state in ("ingested", "failed"):
                    break
                time.sleep(1)
            assert state == "ingested", (state, log.read_text(errors="replace")[-3000:])
            assert (data / "parse-service.sock").exists()
            workers = [
                pid
                for pid, (ppid, _pgid, _state) in processes().items()
                if ppid == ui.pid and b"multiprocessing.spawn" in Path(f"/proc/{pid}/cmdline").read_bytes()
            ]
            assert workers, "no warm parse worker under the ui process: the run parsed elsewhere"
        finally:
            ui.send_signal(signal.SIGTERM)
            code = ui.wait(timeout=90)
        assert code == 0, log.read_text(errors="replace")[-3000:]
        assert not (data / "parse-service.sock").exists()
        deadline = time.monotonic() + 30  # dagster dev's own children finish shutting down
        while (left := process_tree(ui.pid)) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not left, f"processes of the stack still alive 30 s after it stopped: {left}"
