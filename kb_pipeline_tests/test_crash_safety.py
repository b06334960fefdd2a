"""Crash safety with real processes: `kill -9` in the middle of a MinerU parse and in the middle of
a write, then a re-run. Nothing half-made is ever read as complete, and the re-run completes.

Every producer here runs in its own session (`start_new_session=True`) and is killed with
`os.killpg(pgid, SIGKILL)`, so MinerU's render workers die with it, as in a power cut or an OOM
kill. The PDF is a generated ~50-page text document, long enough that MinerU is still parsing
when the kill lands. What each kill left on disk is printed (`pytest -s` shows it).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import dagster as dg
import pytest

from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.parsing.cache import COMPLETE_MARKER, complete_dir, read_marker
from kb_pipeline.parsing.raw_output import load_raw_output
from kb_pipeline.pipeline import ARTIFACT_NAME, read_artifact

from .conftest import REPO_ROOT

pytestmark = [pytest.mark.slow, pytest.mark.services]
BIN = Path(sys.executable).parent
DOC = "crash_manual"  # both fixtures: the long and the short manual


@pytest.fixture(scope="module")
def big_pdf(tmp_path_factory) -> Path:
    """~50 pages of numbered sections: MinerU flash takes several seconds on it."""
    return _numbered_sections(tmp_path_factory.mktemp("pdf") / f"{DOC}.pdf", 80)


@pytest.fixture(scope="module")
def short_pdf(tmp_path_factory) -> Path:
    """The same manual, ~5 pages: for kills at a write, which need no long parse."""
    return _numbered_sections(tmp_path_factory.mktemp("pdf") / f"{DOC}.pdf", 8)


def _numbered_sections(path: Path, sections: int) -> Path:
    from kb_pipeline_tests.samples import text_pdf

    paragraphs = []
    for i in range(1, sections + 1):
        paragraphs.append(f"{i}. Section {i}")
        paragraphs += [
            f"Paragraph {j} of section {i}: the pump is inspected every {i + j} hours and the "
            f"pressure is kept below {3 * i + j} bar. " * 4
            for j in range(6)
        ]
    text_pdf(path, paragraphs, title="Crash test manual")
    return path


def _env(data: Path, **extra) -> dict:
    return {
        **os.environ,
        "KB_DATA_DIR": str(data),
        "MINERU_MODEL_SOURCE": "local",
        "HF_HUB_OFFLINE": "1",
        "PYTHONPATH": str(REPO_ROOT),
        **extra,
    }


def _start(cmd: list[str], env: dict, log: Path) -> subprocess.Popen:
    with log.open("ab") as out:
        return subprocess.Popen(
            cmd,
            env=env,
            cwd=REPO_ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )


def _group(pgid: int) -> list[int]:
    """Live (non-zombie) processes of a process group."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            pids.append(int(entry.name))
    return pids


def _wait_for(predicate, proc: subprocess.Popen, log: Path, what: str, timeout: float = 120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        if proc.poll() is not None:
            pytest.fail(f"the process ended (rc {proc.returncode}) before {what}:\n{log.read_text()[-3000:]}")
        time.sleep(0.02)
    _kill9(proc)
    pytest.fail(f"timed out waiting for {what}:\n{log.read_text()[-3000:]}")


def _kill9(proc: subprocess.Popen) -> int:
    """SIGKILL the whole group; returns how many live processes it had."""
    alive = len(_group(proc.pid))
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=30)
    deadline = time.monotonic() + 10
    while _group(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _group(proc.pid), "processes of the killed group survived"
    return alive


def _listing(root: Path) -> dict:
    """What is on disk under `root`: every file with its size (the kill report)."""
    if not root.exists():
        return {}
    return {str(p.relative_to(root)): p.stat().st_size for p in sorted(root.rglob("*")) if p.is_file()}


def _cache_entries(cache: Path) -> tuple[list[Path], list[Path]]:
    """(final-name entries, temp dirs) in the parse cache."""
    entries = sorted(cache.iterdir()) if cache.is_dir() else []
    return [p for p in entries if not p.name.startswith(".tmp-")], [p for p in entries if p.name.startswith(".tmp-")]


def _assert_nothing_incomplete_is_final(cache: Path) -> None:
    finals, _temps = _cache_entries(cache)
    for entry in finals:
        assert (entry / COMPLETE_MARKER).is_file(), f"{entry} is under its final name without its marker"


def _assert_complete_and_valid(data: Path, manifest: dict, pdf: Path) -> ParsedDocument:
    """The document's cache entry and artifact are complete and valid: every page of `pdf` parsed."""
    import pypdfium2

    cache = data / "knowledge_cache" / "parse"
    [doc] = manifest["documents"]
    assert doc["status"] == "ok", doc
    raw_dir = Path(doc["raw_output_dir"])
    assert not raw_dir.name.startswith(".tmp-")
    assert complete_dir(cache, raw_dir.name) == raw_dir
    marker = read_marker(raw_dir)
    raw = load_raw_output(raw_dir)
    source = pypdfium2.PdfDocument(str(pdf))
    try:
        assert raw.n_pages == marker["n_pages"] == len(source)
    finally:
        source.close()
    for name in ("content_list.json", "content_list_v2.json"):
        assert json.loads((raw_dir / name).read_text(encoding="utf-8"))
    artifact = data / "parsed" / DOC / ARTIFACT_NAME
    document = ParsedDocument.model_validate_json(artifact.read_text(encoding="utf-8"))
    assert document.raw_output_dir == str(raw_dir) and document.chunks
    run_copy = Path(manifest["run_dir"] if "run_dir" in manifest else "") / DOC / ARTIFACT_NAME
    if run_copy.is_file():
        ParsedDocument.model_validate_json(run_copy.read_text(encoding="utf-8"))
    return document


def _batch(data: Path, drop: Path, log: Path, helper: Path | None = None, stage: str = "") -> subprocess.Popen:
    args = ["--input", str(drop), "--out", str(data / "knowledge_runs")]
    cmd = (
        [sys.executable, str(helper), stage, str(data / "ready"), *args]
        if helper
        else [sys.executable, "-m", "kb_pipeline.cli.run", *args]
    )
    return _start(cmd, _env(data), log)


def _finish(proc: subprocess.Popen, log: Path, data: Path) -> dict:
    rc = proc.wait(timeout=300)
    assert rc == 0, log.read_text()[-3000:]
    runs = sorted((data / "knowledge_runs").glob("*/manifest.json"), key=lambda p: p.stat().st_mtime)
    manifest = json.loads(runs[-1].read_text(encoding="utf-8"))
    manifest["run_dir"] = str(runs[-1].parent)
    return manifest


def test_kill_9_mid_parse_then_rerun_completes(tmp_path, big_pdf):
    """The batch producer (`python -m kb_pipeline.cli.run`), killed twice while its parse is in
    flight: once as soon as its cache temp dir appears (copying and preflighting the source),
    once after MinerU has been parsing for two seconds. Nothing is faked."""
    data, drop, log = tmp_path / "data", tmp_path / "drop", tmp_path / "run.log"
    drop.mkdir()
    shutil.copy(big_pdf, drop)
    cache = data / "knowledge_cache" / "parse"
    report = []
    for delay in (0.0, 2.0):
        proc = _batch(data, drop, log)
        temps = _wait_for(lambda: _cache_entries(cache)[1], proc, log, "the cache temp dir")
        time.sleep(delay)
        killed = _kill9(proc)
        finals, temps = _cache_entries(cache)
        report.append(
            {
                "after_seconds_in_temp": delay,
                "processes_killed": killed,
                "final_entries": [p.name for p in finals],
                "temp_dirs": {t.name: _listing(t) for t in temps},
            }
        )
        assert finals == [], "a killed parse left a cache entry under its final name"
        assert temps, "the kill did not land while the parse was in flight"
        _assert_nothing_incomplete_is_final(cache)
        assert read_artifact(data / "parsed" / DOC / ARTIFACT_NAME) is None
    leftovers = {t.name for t in _cache_entries(cache)[1]}

    manifest = _finish(_batch(data, drop, log), log, data)
    document = _assert_complete_and_valid(data, manifest, big_pdf)
    assert manifest["documents"][0]["cache_hit"] is False, "a leftover temp dir was used as a cache entry"
    remaining = {t.name for t in _cache_entries(cache)[1]}
    report.append(
        {
            "rerun": "ok",
            "chunks": len(document.chunks),
            "pages": document.n_pages,
            "leftover_temps_before": sorted(leftovers),
            "temps_after_rerun": sorted(remaining),
        }
    )
    print("\nkill -9 mid-parse:", json.dumps(report, indent=1))
    # Temp dirs of dead processes are removed by the next write of the same key.
    assert remaining == set()


HELPER = textwrap.dedent('''
    """Runs `python -m kb_pipeline.cli.run` with one write made to stop halfway: it signals by
    creating the ready file, then hangs until it is killed."""
    import os, sys, time
    from pathlib import Path


    def hang(ready):
        # open(), not Path.write_text: the artifact stage replaces that one with a cut write,
        # which would call back here (on tmpfs its fsyncs are instant, so the recursion ran out
        # and the error removed the half-written temp file before the test's kill came).
        with open(ready, "w") as f:
            f.write(str(os.getpid()))
        while True:
            time.sleep(60)


    if __name__ == "__main__":  # MinerU's spawn workers re-import this file
        stage, ready = sys.argv[1], Path(sys.argv[2])
        from kb_pipeline import pipeline
        from kb_pipeline.parsing import mineru_adapter

        if stage == "cache":
            real_write = mineru_adapter._write_raw_output

            def write_then_hang(result, out, keep_images):
                real_write(result, out, keep_images)  # every raw output file is written...
                hang(ready)                            # ...but not the marker, and no rename

            mineru_adapter._write_raw_output = write_then_hang
        elif stage == "artifact":
            real_atomic = pipeline.write_text_atomically

            def atomic_cut_halfway(path, text):
                if path.name != "chunks.json" or path.parent.parent.name != "parsed":
                    return real_atomic(path, text)
                real_write_text = Path.write_text

                def half_then_hang(self, data, *args, **kwargs):
                    with open(self, "w", encoding="utf-8") as f:
                        f.write(data[: len(data) // 2])
                        f.flush()
                        os.fsync(f.fileno())
                    hang(ready)

                Path.write_text = half_then_hang  # the real function, its temp write cut off
                try:
                    real_atomic(path, text)
                finally:
                    Path.write_text = real_write_text

            pipeline.write_text_atomically = atomic_cut_halfway
        from kb_pipeline.cli.run import main

        sys.argv = ["kb_pipeline.cli.run", *sys.argv[3:]]
        sys.exit(main())
''')


def test_kill_9_mid_write_of_cache_and_artifact(tmp_path, short_pdf):
    """Kills during the two writes readers trust, made deterministic by a helper that runs the
    real batch producer with one write stopped halfway (it signals, then hangs until killed):

    - "cache": MinerU really parsed and `_write_raw_output` really wrote every file into the temp
      dir; the fake only stops before the completion marker and the rename. Isolates: a full
      set of raw output files without a marker is never taken as a cache entry.
    - "artifact": the real `write_text_atomically` for data/parsed/<doc>/chunks.json, with its
      temp-file write cut off after half the bytes (fsynced). Isolates: a half-written artifact
      is never read — neither when there was no artifact yet, nor when it replaces a complete one.
    """
    data, drop, log = tmp_path / "data", tmp_path / "drop", tmp_path / "run.log"
    drop.mkdir()
    shutil.copy(short_pdf, drop)
    helper = tmp_path / "cut_write.py"
    helper.write_text(HELPER)
    cache, ready = data / "knowledge_cache" / "parse", data / "ready"
    artifact = data / "parsed" / DOC / ARTIFACT_NAME
    report = []

    def killed_during(stage: str) -> dict:
        ready.unlink(missing_ok=True)
        proc = _batch(data, drop, log, helper, stage)
        _wait_for(ready.is_file, proc, log, f"the {stage} write to start", timeout=180)
        killed = _kill9(proc)
        finals, temps = _cache_entries(cache)
        entry = {
            "stage": stage,
            "processes_killed": killed,
            "cache_final": [p.name for p in finals],
            "cache_temps": {t.name: sorted(_listing(t)) for t in temps},
            "parsed_dir": _listing(artifact.parent),
        }
        report.append(entry)
        _assert_nothing_incomplete_is_final(cache)
        return entry

    # 1. Killed after the raw output is written but before the marker: no cache entry.
    first = killed_during("cache")
    assert first["cache_final"] == [] and any(
        "content_list.json" in files and COMPLETE_MARKER not in files for files in first["cache_temps"].values()
    )
    assert read_artifact(artifact) is None

    # 2. Killed halfway through the first artifact: the parse is redone (the temp dir of the dead
    #    process is neither used nor kept), the cache completes, chunks.json does not exist.
    second = killed_during("artifact")
    assert len(second["cache_final"]) == 1 and not second["cache_temps"]
    [half] = [p for p in artifact.parent.glob(".chunks.json.*.tmp")]
    with pytest.raises(json.JSONDecodeError):
        json.loads(half.read_text(encoding="utf-8"))
    assert not artifact.exists() and read_artifact(artifact) is None

    # 3. A normal run completes from the cache.
    manifest = _finish(_batch(data, drop, log), log, data)
    assert manifest["documents"][0]["cache_hit"] is True
    _assert_complete_and_valid(data, manifest, short_pdf)
    complete_bytes = artifact.read_bytes()

    # 4. Killed halfway through replacing that artifact: the complete one is still in place.
    killed_during("artifact")
    assert artifact.read_bytes() == complete_bytes
    ParsedDocument.model_validate_json(complete_bytes)

    # 5. And the next run completes again, clearing the dead writers' half-written temp files.
    manifest = _finish(_batch(data, drop, log), log, data)
    document = _assert_complete_and_valid(data, manifest, short_pdf)
    assert not list(artifact.parent.glob(".chunks.json.*.tmp"))
    report.append(
        {
            "rerun": "ok",
            "version": document.version,
            "chunks": len(document.chunks),
            "parsed_dir_after": _listing(artifact.parent),
        }
    )
    print("\nkill -9 mid-write:", json.dumps(report, indent=1))


def _instance_state() -> tuple[dict, dict]:
    """Run statuses and the `mineru` pool's claimed slots, read from the instance DAGSTER_HOME names."""
    with dg.DagsterInstance.get() as instance:
        info = instance.event_log_storage.get_concurrency_info("mineru")
        runs = {r.run_id: r.status.value for r in instance.get_runs()}
        return runs, {s.run_id: s.step_key for s in info.claimed_slots}


def test_kill_9_mid_parse_in_dagster_ingest_then_rerun_completes(tmp_path, big_pdf, monkeypatch):
    """`kb-pipeline ingest` (the asset graph, in-process executor, pool `mineru` limited to 1 in
    this temp instance) killed while MinerU parses, then run again. Nothing is faked. The killed
    run holds its `mineru` slot and stays STARTED; the re-run must not wait for that slot for
    ever. Deadlock is detected, not waited out: the re-run's step pending while the only slots
    are held by killed runs for 10 s."""
    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    config = (REPO_ROOT / "dagster.yaml").read_text().replace("default_limit: 2", "default_limit: 1")
    assert "default_limit: 1" in config
    (home / "dagster.yaml").write_text(config)
    drop = data / "knowledge_docs"
    drop.mkdir(parents=True)
    shutil.copy(big_pdf, drop)
    env = _env(data, DAGSTER_HOME=str(home), KB_DAGSTER_DIR=str(data / "dagster"), KB_DROP_FOLDER=str(drop))
    for key in ("DAGSTER_HOME", "KB_DAGSTER_DIR"):  # this process reads the same instance
        monkeypatch.setenv(key, env[key])
    log, cache = tmp_path / "ingest.log", data / "knowledge_cache" / "parse"

    proc = _start([str(BIN / "kb-pipeline"), "ingest"], env, log)
    _wait_for(lambda: _cache_entries(cache)[1], proc, log, "the cache temp dir")
    time.sleep(1.0)
    killed = _kill9(proc)
    assert _cache_entries(cache)[0] == [] and read_artifact(data / "parsed" / DOC / ARTIFACT_NAME) is None
    runs, slots = _instance_state()
    print(f"\nkill -9 mid-parse (Dagster): {killed} processes killed; runs {runs}; mineru slots held {slots}")
    dead_runs = set(runs)

    rerun = _start([str(BIN / "kb-pipeline"), "ingest"], env, log)
    deadline, blocked_since = time.monotonic() + 240, None
    while rerun.poll() is None:
        assert time.monotonic() < deadline, "re-run did not finish in 240 s"
        runs, slots = _instance_state()
        blocked = set(runs) - dead_runs and slots and set(slots) <= dead_runs
        blocked_since = (blocked_since or time.monotonic()) if blocked else None
        if blocked_since and time.monotonic() - blocked_since > 10:
            _kill9(rerun)
            pytest.fail(
                f"the re-run waits for ever: the `mineru` slots are held by killed runs {slots} (statuses {runs})"
            )
        time.sleep(0.25)
    assert rerun.returncode == 0, log.read_text()[-3000:]
    manifest = {"documents": [{"status": "ok", "raw_output_dir": str(next(iter(_cache_entries(cache)[0])))}]}
    _assert_complete_and_valid(data, manifest, big_pdf)
    runs, slots = _instance_state()
    assert slots == {}, f"slots still held after the re-run: {slots}"
