"""Shared test setup: where the real MinerU fixtures live, an isolated data root per test, one
Dagster instance per test, and MinerU's output of every PDF the tests parse, once per session.

`../shared/fixtures/` holds real MinerU 4.0.12 flash output and the PDFs it came from (see its
README). CI lays `shared/` beside the clone; `KB_SHARED_DIR` points elsewhere if needed.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from kb_pipeline.parsing import cache
from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.paths import DataLayout
from kb_pipeline.pipeline import DocumentRun, Parsing, content_hash_of, parse_raw, process_document
from kb_pipeline.settings import DATA_DIR_ENV
from kb_pipeline_tests.samples import SAMPLES

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("KB_SHARED_DIR", REPO_ROOT.parent / "shared"))
FIXTURES = SHARED / "fixtures"
MINERU_FIXTURES = FIXTURES / "mineru-4.0.12-flash"
FIXTURE_PDFS = FIXTURES / "pdfs"
# Every fixture document with its raw output; scanned_small_ocr is the negative one.
FIXTURE_NAMES = ["demo1", "demo2", "demo3", "chem_intro", "unittest_test", "sample", "scanned_small_ocr"]
TEXT_FIXTURES = [n for n in FIXTURE_NAMES if n != "scanned_small_ocr"]
# The structure-quality corpus (real PDFs; see its README). Tests parse a few of them with the
# real MinerU, once per session, through `corpus_run`.
CORPUS_PDFS = SHARED / "corpus" / "pdfs"
SAMPLE_DOCS = REPO_ROOT / "data" / "knowledge_docs"
# The shipped samples by name: a user's own files dropped into the folder are not test input.
SAMPLE_PDFS = [SAMPLE_DOCS / name for name in SAMPLES]


def pytest_collection_modifyitems(config, items):
    """On pytest-xdist's workers (`make test` runs two), the longest tests go first: those that
    drive servers, daemons and kills (`services`), then those that parse at length (`slow`),
    then the rest. `make test` hands out a module at a time (`--dist loadscope`), in the order
    of each module's first test, so the modules with long tests share the workers from the
    start and the short ones even out the end. The sort is stable: a module's tests keep their
    order."""
    if hasattr(config, "workerinput"):
        items.sort(
            key=lambda item: (item.get_closest_marker("services") is None, item.get_closest_marker("slow") is None)
        )


@pytest.fixture
def layout(tmp_path, monkeypatch) -> DataLayout:
    """A data root of its own for each test, so no test sees another's cache or artifacts."""
    root = tmp_path / "data"
    root.mkdir()
    monkeypatch.setenv(DATA_DIR_ENV, str(root))
    return DataLayout(root.resolve())


@pytest.fixture
def drop(tmp_path) -> Path:
    """A drop folder holding the shipped samples and unittest_test.pdf (a figure, a formula and
    a table on one page)."""
    folder = tmp_path / "drop"
    folder.mkdir()
    for pdf in [*SAMPLE_PDFS, FIXTURE_PDFS / "unittest_test.pdf"]:
        shutil.copy(pdf, folder)
    return folder


@pytest.fixture(scope="session")
def shared_fixtures() -> Path:
    if not MINERU_FIXTURES.is_dir():
        pytest.fail(f"real MinerU fixtures not found at {MINERU_FIXTURES}; set KB_SHARED_DIR")
    return FIXTURES


# Dagster's own launcher that executes a run in the launching process (`instance.launch_run`
# returns when it has ended): `ingest`'s runs in the test's process, where `mineru_calls` and
# monkeypatches see them.
IN_PROCESS_LAUNCHER = {
    "module": "dagster._core.launcher.sync_in_memory_run_launcher",
    "class": "SyncInMemoryRunLauncher",
}
# The shipped instance's launcher and run retries (dagster.yaml): runs in warm run workers.
WARM_RUNS = {
    "run_launcher": {"module": "kb_pipeline.runs.launcher", "class": "LocalRunLauncher"},
    "run_retries": {"enabled": True, "max_retries": 0, "retry_on_asset_or_op_failure": False},
}


@pytest.fixture
def instance(tmp_path):
    """A Dagster instance of its own for each test (SQLite storage under the test's temp dir),
    whose runs execute in the test's process."""
    import dagster as dg

    (tmp_path / "dagster").mkdir()
    with dg.instance_for_test(
        temp_dir=str(tmp_path / "dagster"), overrides={"run_launcher": IN_PROCESS_LAUNCHER}
    ) as instance:
        yield instance


@pytest.fixture
def warm_instance(tmp_path):
    """A Dagster instance of its own whose runs execute in warm run workers, retried as the
    shipped instance retries them."""
    import dagster as dg

    (tmp_path / "warm-dagster").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "warm-dagster"), overrides=WARM_RUNS) as instance:
        yield instance


@pytest.fixture
def mineru_calls(monkeypatch) -> list:
    """Counts real MinerU parses in this process (the in-process executor's too): the wrapper
    delegates to the real call."""
    from kb_pipeline.parsing import mineru_adapter

    calls = []
    real = mineru_adapter.run_mineru

    def counting(pdf, **kwargs):
        calls.append(pdf)
        return real(pdf, **kwargs)

    monkeypatch.setattr(mineru_adapter, "run_mineru", counting)
    return calls


class SessionParses:
    """MinerU's output (real, flash) of the PDFs the tests parse, once per session: one data root
    whose parse cache every test that only reads a parse shares. The cache is the product's,
    keyed by content hash and parser config, so a PDF generated again with the same bytes (the
    generators are deterministic) is not parsed again. A test that asserts a fresh parse, or
    that crashes, corrupts or counts parses, parses into its own data root instead.

    Under pytest-xdist every worker of the session shares the one data root: the cache publishes
    each entry by an atomic rename, and a lock file per PDF and config makes the second worker
    that asks for a parse wait for the first one's entry instead of parsing it too."""

    def __init__(self, root: Path) -> None:
        self.layout = DataLayout(root)

    def run(self, pdf: Path, config: ParserConfig | None = None) -> DocumentRun:
        """`pdf` through the whole core path; the raw output from the session's cache."""
        config = config or ParserConfig()
        with self._parsing(pdf, config):
            return process_document(pdf, Parsing.in_process(config, self.layout))

    def seed(self, layout: DataLayout, *pdfs: Path, config: ParserConfig | None = None) -> None:
        """Start `layout`'s parse cache with these PDFs' entries: copies, each with the marker a
        parse of that very file writes (its `source_path`), so that the test's runs hit the cache
        and whatever the test does to its own entries stays its own."""
        config = config or ParserConfig()
        for pdf in pdfs:
            with self._parsing(pdf, config):
                ref = parse_raw(pdf, content_hash_of(pdf), Parsing.in_process(config, self.layout))
            entry = layout.parse_cache / ref.path.name
            if entry.exists():  # the same bytes under another name: one entry, as a parse makes
                continue
            shutil.copytree(ref.path, entry)
            marker = {**ref.marker, "source_path": str(pdf)}
            (entry / cache.COMPLETE_MARKER).write_text(json.dumps(marker, indent=2, sort_keys=True), encoding="utf-8")

    @contextmanager
    def _parsing(self, pdf: Path, config: ParserConfig) -> Iterator[None]:
        locks = self.layout.root.parent / "locks"
        locks.mkdir(parents=True, exist_ok=True)
        with (locks / f"{content_hash_of(pdf)[:16]}-{config.fingerprint}").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield


@pytest.fixture(scope="session")
def parses(tmp_path_factory) -> SessionParses:
    # An xdist worker's base temp dir is `<the run's>/popen-gwN`: the run's is the one they share.
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    return SessionParses(shared / "session-parses" / "data")


@pytest.fixture(scope="session")
def corpus_run(parses):
    """`corpus_run(name, page_range="")`: a corpus PDF through the whole core path (real MinerU,
    flash), parsed once per session and argument pair; returns the `DocumentRun`."""
    layout = parses.layout
    runs = {}

    def run(name: str, page_range: str = ""):
        if (name, page_range) not in runs:
            pdf = CORPUS_PDFS / f"{name}.pdf"
            if not pdf.is_file():
                pytest.fail(f"corpus PDF {pdf} not found; set KB_SHARED_DIR")
            runs[name, page_range] = parses.run(pdf, ParserConfig(page_range=page_range))
        return runs[name, page_range]

    run.layout = layout
    return run


# Marker fields that say when and how fast a parse ran, not what it produced.
_TIMING_FIELDS = {"parse_seconds", "created_at"}


def assert_same_cache_entry(got_dir: Path, want_dir: Path) -> None:
    """Two raw-output cache entries hold the same files, byte for byte, and the same marker
    but for its timing fields: what "the same parse, wherever it ran" means."""

    def tree(path: Path) -> dict[str, bytes]:
        return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}

    got, want = tree(got_dir), tree(want_dir)
    marker_got, marker_want = (cache.read_marker(p) for p in (got_dir, want_dir))
    del got[cache.COMPLETE_MARKER], want[cache.COMPLETE_MARKER]
    assert sorted(got) == sorted(want), got_dir.name
    assert [name for name in want if got[name] != want[name]] == [], got_dir.name
    for field in _TIMING_FIELDS:
        marker_got.pop(field), marker_want.pop(field)
    assert marker_got == marker_want
