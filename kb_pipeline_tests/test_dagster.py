"""The Dagster layer on a real instance in a temp dir, with the real MinerU: every asset for
several partitions, no MinerU call on re-materialisation, asset checks, the drop-folder sensor."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time

import dagster as dg
import pandas as pd
import pytest

from kb_pipeline import drop_folder, pipeline
from kb_pipeline.cli.ingest import ingest_folder
from kb_pipeline.cli.package import main as package_cli
from kb_pipeline.definitions import build_definitions
from kb_pipeline.defs.resources import KnowledgeBase, ParserOptions
from kb_pipeline.defs.sensors import build_sensors
from kb_pipeline.drop_folder import FolderState
from kb_pipeline.settings import Settings
from kb_pipeline.sources import list_pdfs
from kb_pipeline_tests.samples import text_pdf

from .conftest import FIXTURE_PDFS, SAMPLE_DOCS
from .helpers import latest

# The shipped sensor, built as the code location builds it, except that these tests tick right
# after writing a file and want it to wait for a second look whatever the machine's speed: no
# file counts as settled at first sight (test_a_settled_file_is_taken_at_the_first_look).
drop_folder_sensor = build_sensors(Settings.from_env().model_copy(update={"drop_settle_seconds": 3600.0}))[0]

ASSETS = ["mineru_raw_output", "parsed_document", "page_layout", "quality_warnings", "kb_package", "knowledge_payloads"]


@pytest.fixture
def kb(drop, layout, parses):
    """The drop folder's documents, with the session's parses of them in the data root's cache:
    a test that asserts MinerU's own work builds its `KnowledgeBase` on an empty cache instead."""
    parses.seed(layout, *sorted(drop.iterdir()))
    return KnowledgeBase(drop_folder=str(drop), data_dir=str(layout.root))


def _data_version(instance, asset, partition):
    return latest(instance, asset, partition).tags["dagster/data_version"]


def test_ingest_refuses_an_instance_whose_launcher_needs_a_code_server(drop, layout, tmp_path):
    """`ingest` launches its runs through the instance's launcher; Dagster's default one launches
    only through a code server, so `ingest` says so instead of failing each run."""
    kb = KnowledgeBase(drop_folder=str(drop), data_dir=str(layout.root))
    (tmp_path / "default").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "default")) as instance:
        with pytest.raises(SystemExit, match="DefaultRunLauncher.*LocalRunLauncher"):
            ingest_folder(kb, instance)
        assert not instance.get_runs()


@pytest.mark.slow
def test_every_asset_materialises_for_each_partition(drop, layout, instance, mineru_calls):
    kb = KnowledgeBase(drop_folder=str(drop), data_dir=str(layout.root))
    outcomes = ingest_folder(kb, instance)
    assert [o.status for o in outcomes] == ["ingested"] * 3 and len(mineru_calls) == 3
    partitions = instance.get_dynamic_partitions("documents")
    assert sorted(partitions) == ["STD_2026_006_parameter_produksi", "pump_maintenance_manual", "unittest_test"]
    for doc_id in partitions:
        for asset in ASSETS:
            assert latest(instance, asset, doc_id) is not None, (asset, doc_id)
        parsed = latest(instance, "parsed_document", doc_id).metadata
        assert parsed["chunks"].value > 0 and parsed["pages"].value >= 1
        assert "| chunk | kind |" in parsed["preview"].value
        raw = latest(instance, "mineru_raw_output", doc_id).metadata
        assert raw["cache_hit"].value is False and raw["parse_seconds"].value > 0
        assert (kb.layout.root / "parsed" / doc_id / "chunks.json").is_file()
        assert (kb.layout.root / "parsed" / doc_id / "page_layout.json").is_file()
        assert (kb.layout.kb / doc_id / "kb_chunks.jsonl").is_file()
    table = pd.read_parquet(kb.layout.tables / "quality_warnings.parquet")
    per_doc = sum(latest(instance, "quality_warnings", d).metadata["dagster/row_count"].value for d in partitions)
    assert len(table) == per_doc == latest(instance, "quality_warnings_table").metadata["dagster/row_count"].value
    # The source's data version is its content hash, as observed.
    observations = instance.fetch_observations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey("source_pdf"), asset_partitions=["unittest_test"]), limit=1
    ).records
    assert observations[0].asset_observation.tags["dagster/data_version"] == pipeline.content_hash_of(
        FIXTURE_PDFS / "unittest_test.pdf"
    )


@pytest.mark.slow
def test_rematerialising_unchanged_partition_calls_mineru_zero_times(kb, instance, mineru_calls):
    defs = build_definitions(kb)
    ingest_folder(kb, instance)
    before = {d: _data_version(instance, "parsed_document", d) for d in instance.get_dynamic_partitions("documents")}
    calls_after_first = len(mineru_calls)
    job = defs.resolve_job_def("ingest_documents")
    for doc_id in before:  # a forced re-materialisation, as from the UI
        assert job.execute_in_process(partition_key=doc_id, instance=instance).success
        assert latest(instance, "mineru_raw_output", doc_id).metadata["cache_hit"].value is True
        assert _data_version(instance, "parsed_document", doc_id) == before[doc_id]
        assert _data_version(instance, "page_layout", doc_id) == before[doc_id]  # the same step's, the same inputs
        assert latest(instance, "parsed_document", doc_id).metadata["version"].value == 1
    assert len(mineru_calls) == calls_after_first
    # And the ingest command does not even start a run for them.
    assert [o.status for o in ingest_folder(kb, instance)] == ["unchanged"] * 3


@pytest.mark.slow
def test_changed_bytes_give_a_new_artifact_version(kb, drop, instance, mineru_calls):
    text_pdf(drop / "policy.pdf", ["1. Scope", "Applies to all sites."])
    ingest_folder(kb, instance)
    first = _data_version(instance, "parsed_document", "policy")
    text_pdf(drop / "policy.pdf", ["1. Scope", "Applies to all sites and contractors."])
    outcomes = {o.doc_id: o.status for o in ingest_folder(kb, instance)}
    assert outcomes["policy"] == "ingested" and outcomes["unittest_test"] == "unchanged"
    assert _data_version(instance, "parsed_document", "policy") != first
    assert latest(instance, "parsed_document", "policy").metadata["version"].value == 2


def test_asset_checks_pass_on_good_artifacts(kb, instance):
    defs = build_definitions(kb)
    doc_ids = sorted(s.doc_id for s in list_pdfs(kb.folder)[0])
    instance.add_dynamic_partitions("documents", doc_ids)
    for doc_id in doc_ids:
        result = defs.resolve_job_def("ingest_documents").execute_in_process(partition_key=doc_id, instance=instance)
        evaluations = {e.check_name: e for e in result.get_asset_check_evaluations()}
        assert {name: e.passed for name, e in evaluations.items()} == {
            "chunk_ids_well_formed": True,
            "text_verbatim": True,
            "not_empty": True,
            "formula_numbers_match": True,
            "text_coverage": True,
            "spans_verbatim": True,
            "no_dangling_links": True,
        }, doc_id
        coverage = evaluations["text_coverage"]
        assert coverage.severity == dg.AssetCheckSeverity.WARN
        assert coverage.metadata["coverage"].value >= 0.99 and coverage.metadata["lines_counted"].value > 0


def test_package_cli_on_our_cache_entry_matches_the_kb_package_asset(tmp_path, layout, instance, parses):
    """`kb-pipeline package` on a cache entry normalises it and packages the artifact, as the
    asset does (one path): MinerU reads "III. REFERENCES" of the pump manual as a paragraph, and
    the normaliser's heading makes it a section of the package."""
    folder = tmp_path / "one"
    folder.mkdir()
    shutil.copy(SAMPLE_DOCS / "pump_maintenance_manual.pdf", folder)
    parses.seed(layout, folder / "pump_maintenance_manual.pdf")
    kb = KnowledgeBase(drop_folder=str(folder), data_dir=str(layout.root))
    assert [o.status for o in ingest_folder(kb, instance)] == ["ingested"]
    raw_dir = latest(instance, "mineru_raw_output", "pump_maintenance_manual").metadata["raw_output_dir"].value
    assert package_cli([raw_dir, "--output-dir", str(tmp_path / "cli"), "--project-root", str(layout.root.parent)]) == 0
    asset = (layout.kb / "pump_maintenance_manual" / "kb_chunks.jsonl").read_text(encoding="utf-8")
    cli = (tmp_path / "cli" / "kb_chunks.jsonl").read_text(encoding="utf-8")
    sections = [json.loads(line)["section_title"] for line in cli.splitlines()]
    assert "III. REFERENCES" in sections
    assert sections == [json.loads(line)["section_title"] for line in asset.splitlines()]
    assert cli == asset  # same doc id, same chunks, same image paths


def test_an_empty_artifact_fails_its_check_loudly_and_blocks_downstream(kb, instance, monkeypatch):
    """Isolates the not-empty check: the chunker is replaced by one that yields nothing, as a
    broken stage would; MinerU and everything else are real."""
    monkeypatch.setattr(pipeline, "build_chunks", lambda doc_id, raw, text_layer, texts: [])
    defs = build_definitions(kb)
    instance.add_dynamic_partitions("documents", ["unittest_test"])
    result = defs.resolve_job_def("ingest_documents").execute_in_process(
        partition_key="unittest_test", instance=instance, raise_on_error=False
    )
    evaluations = {e.check_name: e for e in result.get_asset_check_evaluations()}
    assert evaluations["not_empty"].passed is False
    assert evaluations["not_empty"].severity == dg.AssetCheckSeverity.ERROR
    assert not result.success  # the blocking check stops the run: nothing trusts an empty artifact
    assert latest(instance, "quality_warnings", "unittest_test") is None


def test_a_bad_document_fails_its_run_with_the_reason(kb, drop, instance):
    (drop / "broken.pdf").write_bytes(b"%PDF-1.7\n" + b"\0" * 200)
    outcomes = {o.doc_id: o for o in ingest_folder(kb, instance)}
    assert outcomes["broken"].status == "failed" and "CorruptPdfError" in outcomes["broken"].reason
    assert [o.status for d, o in outcomes.items() if d != "broken"] == ["ingested"] * 3


def _tick(kb, instance, cursor, sensor=drop_folder_sensor):
    context = dg.build_sensor_context(instance=instance, cursor=cursor, resources={"kb": kb})
    result = sensor(context)
    for request in result.dynamic_partitions_requests:
        instance.add_dynamic_partitions(request.partitions_def_name, list(request.partition_keys))
    return result


def test_sensor_ticks_over_new_unchanged_changed_half_written_non_pdf_and_removed(kb, drop, instance, monkeypatch):
    hashed = []
    real_hash = drop_folder.sha256_file
    monkeypatch.setattr(drop_folder, "sha256_file", lambda p: hashed.append(p.name) or real_hash(p))
    (drop / "notes.txt").write_text("not a PDF")

    first = _tick(kb, instance, None)  # everything is new: seen once, waits for a second look
    assert first.run_requests == [] and "3 waiting" in first.skip_reason.skip_message
    second = _tick(kb, instance, first.cursor)
    assert sorted(r.partition_key for r in second.run_requests) == [
        "STD_2026_006_parameter_produksi",
        "pump_maintenance_manual",
        "unittest_test",
    ]
    assert sorted(instance.get_dynamic_partitions("documents")) == sorted(r.partition_key for r in second.run_requests)
    assert [e.tags["dagster/data_version"] for e in second.asset_events if e.partition == "unittest_test"] == [
        pipeline.content_hash_of(drop / "unittest_test.pdf")
    ]
    assert len(hashed) == 3

    third = _tick(kb, instance, second.cursor)  # unchanged: no run, no hashing
    assert third.run_requests == [] and len(hashed) == 3 and "3 unchanged" in third.skip_reason.skip_message

    # Half-written: a file whose size moves between ticks is not requested until it settles.
    partial = drop / "arriving.pdf"
    partial.write_bytes((FIXTURE_PDFS / "demo2.pdf").read_bytes()[:5000])
    fourth = _tick(kb, instance, third.cursor)
    partial.write_bytes((FIXTURE_PDFS / "demo2.pdf").read_bytes()[:50000])
    fifth = _tick(kb, instance, fourth.cursor)
    assert fourth.run_requests == [] and fifth.run_requests == []
    partial.write_bytes((FIXTURE_PDFS / "demo2.pdf").read_bytes())
    sixth = _tick(kb, instance, fifth.cursor)
    seventh = _tick(kb, instance, sixth.cursor)
    assert sixth.run_requests == [] and [r.partition_key for r in seventh.run_requests] == ["arriving"]

    # Changed content: a new run key for the same partition; the old run key is never reused.
    old_key = next(r.run_key for r in second.run_requests if r.partition_key == "unittest_test")
    shutil.copy(FIXTURE_PDFS / "chem_intro.pdf", drop / "unittest_test.pdf")
    eighth = _tick(kb, instance, seventh.cursor)
    ninth = _tick(kb, instance, eighth.cursor)
    assert [r.partition_key for r in ninth.run_requests] == ["unittest_test"]
    assert ninth.run_requests[0].run_key != old_key

    # Removed: no run, partition and artifacts kept; the cursor survives a "restart".
    (drop / "pump_maintenance_manual.pdf").unlink()
    tenth = _tick(kb, instance, ninth.cursor)
    assert tenth.run_requests == [] and "1 removed" in tenth.skip_reason.skip_message
    assert "pump_maintenance_manual" in instance.get_dynamic_partitions("documents")
    assert "notes.txt" in FolderState.from_json(tenth.cursor).skipped


def test_a_settled_file_is_taken_at_the_first_look_a_fresh_one_at_the_second(tmp_path):
    folder = tmp_path / "drop"
    folder.mkdir()
    for name in ("settled.pdf", "fresh.pdf"):
        shutil.copy(FIXTURE_PDFS / "sample.pdf", folder / name)
    now = 1_900_000_000.0
    os.utime(folder / "settled.pdf", (now - 3, now - 3))
    os.utime(folder / "fresh.pdf", (now - 1, now - 1))
    first, state = drop_folder.scan(folder, FolderState(), "identity", settle_seconds=2, now=now)
    assert [r.source.path.name for r in first.ready] == ["settled.pdf"]
    assert [s.path.name for s in first.waiting] == ["fresh.pdf"]
    second, _ = drop_folder.scan(
        folder, drop_folder.mark_requested(state, first.ready), "identity", settle_seconds=2, now=now
    )
    assert [r.source.path.name for r in second.ready] == ["fresh.pdf"], "unchanged at the second look"


def test_the_shipped_sensor_takes_a_fresh_drop_in_one_tick_but_not_a_file_still_being_written(tmp_path, instance):
    shipped = build_sensors(Settings.from_env())[0]  # KB_DROP_SETTLE_SECONDS: 2 s
    folder = tmp_path / "drop"
    folder.mkdir()
    kb = KnowledgeBase(drop_folder=str(folder), data_dir=str(tmp_path / "data"))
    shutil.copy(FIXTURE_PDFS / "sample.pdf", folder / "dropped.pdf")
    first = _tick(kb, instance, None, shipped)
    assert [r.partition_key for r in first.run_requests] == ["dropped"], "looked at again within the tick"

    growing = folder / "growing.pdf"
    data = (FIXTURE_PDFS / "demo2.pdf").read_bytes()
    growing.write_bytes(data[:5000])

    def write_slowly() -> None:  # a copy over a slow link: more bytes every 0.3 s for 4 s
        for end in range(10_000, 10_000 + 14 * 1000, 1000):
            time.sleep(0.3)
            growing.write_bytes(data[:end])

    writer = threading.Thread(target=write_slowly)
    writer.start()
    second = _tick(kb, instance, first.cursor, shipped)
    writer.join()
    assert second.run_requests == [] and "1 waiting" in second.skip_reason.skip_message
    growing.write_bytes(data)
    third = _tick(kb, instance, second.cursor, shipped)
    assert [r.partition_key for r in third.run_requests] == ["growing"]


def test_sensor_requests_again_when_the_parser_config_changes(kb, instance, drop):
    first = _tick(kb, instance, None)
    second = _tick(kb, instance, first.cursor)
    txt_kb = KnowledgeBase(drop_folder=kb.drop_folder, data_dir=kb.data_dir, parser=ParserOptions(parse_mode="txt"))
    third = _tick(txt_kb, instance, second.cursor)
    assert len(second.run_requests) == len(third.run_requests) == 3
    assert {r.run_key for r in second.run_requests}.isdisjoint(r.run_key for r in third.run_requests)


def test_sensor_tick_over_1000_unchanged_files_hashes_none(tmp_path, layout, instance, monkeypatch):
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(1000):
        (folder / f"doc_{i:04d}.pdf").write_bytes(b"%PDF-1.4 stub " + str(i).encode())
    kb = KnowledgeBase(drop_folder=str(folder), data_dir=str(layout.root))
    cursor = _tick(kb, instance, _tick(kb, instance, None).cursor).cursor
    hashed = []
    monkeypatch.setattr(drop_folder, "sha256_file", lambda p: hashed.append(p))
    result = _tick(kb, instance, cursor)
    assert result.run_requests == [] and hashed == [] and "1000 unchanged" in result.skip_reason.skip_message
