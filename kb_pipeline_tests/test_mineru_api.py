"""MinerU's API service as the parse backend (`KB_MINERU_API_URL`), against real `mineru-api` and
`mineru-router` processes started here on 127.0.0.1 (free ports): the cache entries are byte for
byte those of an in-process parse; a router spreads documents over two upstreams; a service that
is unreachable, or killed mid-parse, never leaves anything half-made in the cache."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from kb_pipeline.cli.ingest import ingest_folder
from kb_pipeline.defs.resources import KnowledgeBase, MineruApiOptions
from kb_pipeline.parsing import cache, mineru_api
from kb_pipeline.parsing.backends import InProcess
from kb_pipeline.parsing.cached_parse import parse_to_cache
from kb_pipeline.pipeline import content_hash_of
from kb_pipeline.sources import list_pdfs

from .conftest import CORPUS_PDFS, FIXTURE_PDFS, assert_same_cache_entry
from .deployment import free_port

pytestmark = pytest.mark.services

BIN = Path(os.environ.get("VIRTUAL_ENV", Path(__file__).resolve().parents[1] / ".venv")) / "bin"


class Service:
    """One `mineru-api` or `mineru-router` process, its log in a file."""

    def __init__(self, command: str, args: list[str], home: Path, log: Path, port: int | None = None):
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        # INFO: the access log is how the tests count requests (the suite may have set "warning").
        env = {
            **os.environ,
            "MINERU_HOME": str(home),
            "MINERU_MODEL_SOURCE": "local",
            "HF_HUB_OFFLINE": "1",
            "MINERU_LOG_LEVEL": "info",
        }
        with log.open("ab") as sink:
            self.process = subprocess.Popen(
                [str(BIN / command), "--host", "127.0.0.1", "--port", str(self.port), *args],
                stdout=sink,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,
            )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{command} exited: {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/v1/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"{command} did not answer on {self.url} within 90 s")

    def parse_requests(self) -> int:
        return sum("POST /v1/" in line for line in self.log.read_text(errors="replace").splitlines())

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def services(tmp_path_factory):
    """Two `mineru-api` upstreams (flash tier) and a `mineru-router` in front of them, started once."""
    root = tmp_path_factory.mktemp("mineru-services")
    started: list[Service] = []
    try:
        for name in ("api_a", "api_b"):
            started.append(
                Service(
                    "mineru-api",
                    ["--tier", "flash", "--upload-dir", str(root / f"{name}-uploads")],
                    root / f"{name}-home",
                    root / f"{name}.log",
                )
            )
        upstreams = [arg for api in started for arg in ("--upstream-url", api.url)]
        started.append(
            Service("mineru-router", [*upstreams, "--local-gpus", "none"], root / "router-home", root / "router.log")
        )
        yield {"a": started[0], "b": started[1], "router": started[2], "root": root}
    finally:
        for service in reversed(started):
            service.stop()


def _service_kb(drop: Path, layout, api_url: str, **options) -> KnowledgeBase:
    """The drop folder and data root through MinerU's API service at `api_url`."""
    return KnowledgeBase(
        drop_folder=str(drop), data_dir=str(layout.root), mineru_api=MineruApiOptions(url=api_url), **options
    )


def _entries(cache_root: Path) -> dict[str, Path]:
    return {p.name: p for p in cache_root.iterdir() if p.is_dir()}


def _assert_cache_clean(cache_root: Path) -> None:
    for entry in cache_root.iterdir():
        assert not entry.name.startswith(".tmp-"), f"temp dir left behind: {entry.name}"
        assert cache.complete_dir(cache_root, entry.name) is not None, f"incomplete cache entry {entry.name}"


def test_three_documents_through_the_api_are_byte_for_byte_the_in_process_output(
    services, drop, layout, instance, tmp_path, monkeypatch
):
    api = services["a"]
    before = api.parse_requests()
    api_url = api.url
    kb = _service_kb(drop, layout, api_url)
    outcomes = ingest_folder(kb, instance)
    assert [o.status for o in outcomes] == ["ingested"] * 3, [o.reason for o in outcomes]
    assert api.parse_requests() - before == 3

    local_root = tmp_path / "in-process-cache"
    for source in list_pdfs(drop)[0]:
        parse_to_cache(
            source.path,
            content_hash_of(source.path),
            kb.parser_config,
            local_root,
            layout.mineru_home,
            InProcess(),
            windows_per_worker=4,
        )
    remote, local = _entries(layout.parse_cache), _entries(local_root)
    assert sorted(remote) == sorted(local) and len(local) == 3
    for key in local:
        assert_same_cache_entry(remote[key], local[key])
    _assert_cache_clean(layout.parse_cache)


def test_a_router_spreads_six_documents_over_both_upstreams(services, drop, layout, instance, monkeypatch):
    for name in ("demo2", "sample", "chem_intro"):
        shutil.copy(FIXTURE_PDFS / f"{name}.pdf", drop)
    counts = {name: services[name].parse_requests() for name in ("a", "b")}
    api_url = services["router"].url
    outcomes = ingest_folder(_service_kb(drop, layout, api_url), instance)
    assert [o.status for o in outcomes] == ["ingested"] * 6, [o.reason for o in outcomes]
    used = {name: services[name].parse_requests() - counts[name] for name in ("a", "b")}
    assert used["a"] >= 1 and used["b"] >= 1, used
    assert used["a"] + used["b"] >= 6, used
    _assert_cache_clean(layout.parse_cache)


def test_an_unreachable_service_fails_the_document_naming_the_url_after_retries(drop, layout, instance, monkeypatch):
    url = f"http://127.0.0.1:{free_port()}"
    api_url = url
    for extra in list(drop.iterdir())[1:]:
        extra.unlink()
    [outcome] = ingest_folder(_service_kb(drop, layout, api_url, parse_retries=1, parse_retry_seconds=0.2), instance)
    assert outcome.status == "failed"
    assert url in outcome.reason and "ParseServiceError" in outcome.reason and "after 1 retries" in outcome.reason
    assert not layout.parse_cache.exists() or list(layout.parse_cache.iterdir()) == []


def test_the_service_killed_mid_parse_retries_that_document_and_the_others_finish(
    services, drop, layout, instance, monkeypatch
):
    """The service dies while it parses a 47-page PDF; a supervisor (here: the test) starts it
    again on the same port. That document's step is retried and succeeds; nothing half-made is
    ever in the cache; the other documents finish."""
    long_pdf = drop / "long_manual.pdf"
    shutil.copy(CORPUS_PDFS / "manual_pymupdf_v1_8.pdf", long_pdf)
    root = services["root"]
    api = Service(
        "mineru-api",
        ["--tier", "flash", "--upload-dir", str(root / "kill-uploads")],
        root / "kill-home",
        root / "kill.log",
    )
    api_url = api.url

    sent: list[str] = []
    killed = threading.Event()
    real_fetch = mineru_api.fetch_zip

    def fetch(url, pdf, **kw):
        sent.append(kw["filename"])
        return real_fetch(url, pdf, **kw)

    monkeypatch.setattr(mineru_api, "fetch_zip", fetch)
    restarted: list[Service] = []

    def kill_then_restart() -> None:
        deadline = time.monotonic() + 60
        while long_pdf.name not in sent and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.5)  # well inside its ~7 s parse
        api.stop()
        killed.set()
        restarted.append(
            Service(
                "mineru-api",
                ["--tier", "flash", "--upload-dir", str(root / "kill-uploads-2")],
                root / "kill-home",
                root / "kill-2.log",
                port=api.port,
            )
        )

    killer = threading.Thread(target=kill_then_restart, daemon=True)
    killer.start()
    try:
        kb = _service_kb(drop, layout, api_url, parse_retries=4, parse_retry_seconds=3)
        outcomes = {o.name: o for o in ingest_folder(kb, instance)}
    finally:
        killer.join(timeout=120)
        for service in (api, *restarted):
            service.stop()
    assert killed.is_set()
    assert sent.count(long_pdf.name) >= 2, sent  # retried after the kill
    assert {o.status for o in outcomes.values()} == {"ingested"}, {n: o.reason for n, o in outcomes.items()}
    assert len(outcomes) == 4
    _assert_cache_clean(layout.parse_cache)
    assert len(_entries(layout.parse_cache)) == 4
