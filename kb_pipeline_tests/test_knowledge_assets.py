"""The knowledge payloads in the asset graph, on a real instance with the real MinerU: the
per-document asset and its checks, its data version, and the two corpus tables."""

from __future__ import annotations

import json

import dagster as dg
import pandas as pd
import pytest

from kb_pipeline.cli.ingest import ingest_folder
from kb_pipeline.cli.status import folder_status
from kb_pipeline.definitions import build_definitions
from kb_pipeline.defs.document_chain import document_chain_sensor
from kb_pipeline.defs.knowledge import (
    GLOSSARY_COLUMNS,
    REVIEW_QUEUE_COLUMNS,
    knowledge_code_version,
    knowledge_payloads_asset,
)
from kb_pipeline.defs.names import (
    GLOSSARY_TABLE,
    INGEST_JOB,
    KB_PACKAGE,
    KNOWLEDGE_PAYLOADS,
    PAGE_LAYOUT,
    PARSED_DOCUMENT,
    QUALITY_WARNINGS,
    REVIEW_QUEUE_TABLE,
)
from kb_pipeline.defs.resources import KnowledgeBase, ModelOptions
from kb_pipeline.knowledge.payloads.checks import link_problems, span_problems
from kb_pipeline.knowledge.payloads.contracts import Payloads
from kb_pipeline.knowledge.payloads.document_versions import list_versions
from kb_pipeline.knowledge.payloads.payload_folder import FAILURE_NAME, read_payloads
from kb_pipeline.pipeline import ARTIFACT_NAME, read_artifact, write_artifact
from kb_pipeline.versions import KNOWLEDGE_VERSION

from .conftest import SAMPLE_DOCS
from .helpers import asset_resources, latest

STANDARD = "STD_2026_006_parameter_produksi"
# The shipped glossary sample: its layout leaves one definition (Cycle time) for the model.
OPEN_SAMPLE = "haulage_glossary.pdf"


@pytest.fixture
def kb(tmp_path, layout, parses):
    """A drop folder with the standard-shaped sample (numbered headings, a formula, a table); the
    data root starts with the session's parse of it, so its runs hit the cache."""
    folder = tmp_path / "drop"
    folder.mkdir()
    (folder / f"{STANDARD}.pdf").write_bytes((SAMPLE_DOCS / f"{STANDARD}.pdf").read_bytes())
    parses.seed(layout, SAMPLE_DOCS / f"{STANDARD}.pdf")
    return KnowledgeBase(drop_folder=str(folder), data_dir=str(layout.root))


def test_knowledge_payloads_materialise_per_document_with_checks_and_tables(kb, instance):
    outcomes = {o.doc_id: o.status for o in ingest_folder(kb, instance)}
    assert outcomes == {STANDARD: "ingested"}

    # The payloads: seven files with the contract's keys.
    for doc_id in outcomes:
        folder = kb.layout.knowledge / doc_id
        assert sorted(p.name for p in folder.iterdir()) == sorted(f"{name}.json" for name in Payloads.model_fields)
        Payloads.model_validate({n: json.loads((folder / f"{n}.json").read_text()) for n in Payloads.model_fields})
    glossary = json.loads((kb.layout.knowledge / STANDARD / "glossary.json").read_text())
    (version,) = list_versions(kb.layout.document_versions(STANDARD))  # kept as its source's version
    assert (kb.layout.document_versions(STANDARD) / version.content_hash / "glossary.json").read_text() == (
        (kb.layout.knowledge / STANDARD / "glossary.json").read_text()
    )
    assert glossary and list(glossary[0]) == list(Payloads.model_fields["glossary"].annotation.__args__[0].model_fields)

    meta = latest(instance, KNOWLEDGE_PAYLOADS, STANDARD).metadata
    assert meta["entries"].value == len(glossary) > 0
    assert meta["model_calls"].value == 0 and meta["prompt_tokens"].value == 0  # no term left open
    assert meta["knowledge_version"].value == KNOWLEDGE_VERSION
    assert glossary[0]["term"] in meta["preview"].value

    # Both checks ran in each document's run and passed.
    evaluations = [
        record.dagster_event.event_specific_data
        for run in instance.get_runs(dg.RunsFilter(job_name=INGEST_JOB))
        for record in instance.all_logs(run.run_id, of_type=dg.DagsterEventType.ASSET_CHECK_EVALUATION)
    ]
    ours = [(e.check_name, e.passed) for e in evaluations if e.asset_key == dg.AssetKey(KNOWLEDGE_PAYLOADS)]
    assert sorted(ours) == sorted([("spans_verbatim", True), ("no_dangling_links", True)] * len(outcomes))

    # The corpus tables, refreshed by the ingest command: one row per entry of every document.
    table = pd.read_parquet(kb.layout.tables / "glossary.parquet")
    assert list(table.columns) == list(GLOSSARY_COLUMNS)
    assert len(table) == len(glossary) == latest(instance, GLOSSARY_TABLE).metadata["dagster/row_count"].value
    assert set(table["doc_id"]) == {STANDARD} and list(table["term_id"]) == [e["term_id"] for e in glossary]
    assert list(table["span"]) == [e["provenance"]["span"] for e in glossary]
    queue = pd.read_parquet(kb.layout.tables / "review_queue.parquet")
    rows = json.loads((kb.layout.knowledge / STANDARD / "review_queue.json").read_text())
    assert list(queue.columns) == list(REVIEW_QUEUE_COLUMNS)
    assert len(queue) == len(rows) == latest(instance, REVIEW_QUEUE_TABLE).metadata["dagster/row_count"].value


def test_rematerialising_an_unchanged_partition_keeps_the_data_version(kb, instance):
    ingest_folder(kb, instance)
    first = latest(instance, KNOWLEDGE_PAYLOADS, STANDARD).tags["dagster/data_version"]
    job = build_definitions(kb).resolve_job_def(INGEST_JOB)
    result = job.execute_in_process(partition_key=STANDARD, instance=instance)
    assert result.success
    evaluations = {
        e.check_name: e.passed for e in result.get_asset_check_evaluations() if e.asset_key.path == [KNOWLEDGE_PAYLOADS]
    }
    assert evaluations == {"spans_verbatim": True, "no_dangling_links": True}
    again = latest(instance, KNOWLEDGE_PAYLOADS, STANDARD)
    assert again.tags["dagster/data_version"] == first
    # The ingest command sees the document as current: no run at all.
    assert {o.status for o in ingest_folder(kb, instance)} == {"unchanged"}


def test_a_document_without_text_gives_empty_payloads(kb, instance):
    ingest_folder(kb, instance)
    artifact = read_artifact(kb.layout.parsed_dir(STANDARD) / ARTIFACT_NAME)
    assert artifact is not None
    blank = artifact.model_copy(update={"doc_id": "blank", "chunks": []})
    write_artifact(kb.layout.parsed_dir("blank") / ARTIFACT_NAME, blank)
    instance.add_dynamic_partitions("documents", ["blank"])
    asset = knowledge_payloads_asset(KNOWLEDGE_VERSION)
    result = dg.materialize([asset], partition_key="blank", instance=instance, resources=asset_resources(kb))
    assert result.success and all(e.passed for e in result.get_asset_check_evaluations())
    meta = latest(instance, KNOWLEDGE_PAYLOADS, "blank").metadata
    assert (meta["entries"].value, meta["formulas"].value, meta["rules"].value) == (0, 0, 0)
    assert json.loads((kb.layout.knowledge / "blank" / "glossary.json").read_text()) == []


@pytest.mark.slow
def test_a_parse_remade_alone_is_followed_by_the_rest_of_its_chain(kb, instance):
    """document_chain_sensor: a run that re-made parsed_document (and its page layout) alone
    requests that document's warnings, package and knowledge — which bring it up to date again —
    and a run of the whole chain requests nothing."""
    (whole,) = [o.doc_id for o in ingest_folder(kb, instance) if o.doc_id == STANDARD]
    defs = build_definitions(kb)

    def requests_after(run: dg.DagsterRun) -> list[dg.RunRequest]:
        context = dg.build_run_status_sensor_context(
            sensor_name="document_chain_sensor",
            dagster_instance=instance,
            dagster_run=run,
            dagster_event=instance.get_records_for_run(run.run_id, of_type=dg.DagsterEventType.RUN_SUCCESS)
            .records[0]
            .event_log_entry.dagster_event,
        )
        return list(document_chain_sensor(context) or [])

    ingest_run = instance.get_runs(dg.RunsFilter(job_name=INGEST_JOB, tags={"dagster/partition": whole}))[0]
    assert requests_after(ingest_run) == []
    parse_alone = defs.resolve_implicit_global_asset_job_def().execute_in_process(
        partition_key=STANDARD,
        instance=instance,
        asset_selection=[dg.AssetKey(PARSED_DOCUMENT), dg.AssetKey(PAGE_LAYOUT)],
    )
    assert parse_alone.success
    assert {line.doc_id: line.state for line in folder_status(kb, instance)}[STANDARD] != "ingested"
    (request,) = requests_after(parse_alone.dagster_run)
    assert request.partition_key == STANDARD
    assert [key.to_user_string() for key in request.asset_selection or []] == [
        QUALITY_WARNINGS,
        KB_PACKAGE,
        KNOWLEDGE_PAYLOADS,
    ]
    rest = defs.resolve_job_def(INGEST_JOB).execute_in_process(
        partition_key=STANDARD, instance=instance, asset_selection=request.asset_selection
    )
    assert rest.success and requests_after(rest.dagster_run) == []
    assert {line.doc_id: line.state for line in folder_status(kb, instance)}[STANDARD] == "ingested"


def test_the_checks_catch_an_invented_value_and_a_dangling_link(kb, instance):
    ingest_folder(kb, instance)
    document = read_artifact(kb.layout.parsed_dir(STANDARD) / ARTIFACT_NAME)
    assert document is not None
    payloads = read_payloads(kb.layout.knowledge / STANDARD)
    assert span_problems(document, payloads) == [] and link_problems(payloads) == []
    entry = payloads.glossary[0]
    entry.definition, entry.defining_formula_id = "a definition no chunk says", "f_missing"
    assert [p.split(":")[0] for p in span_problems(document, payloads)] == [f"{entry.term_id}.definition"]
    assert link_problems(payloads) == [f"{entry.term_id}.defining_formula_id → f_missing"]


def _open_partition(kb, instance) -> str:
    """A partition whose artifact leaves one glossary definition open for the model."""
    from .test_knowledge_model import _open_document

    write_artifact(kb.layout.parsed_dir("open") / ARTIFACT_NAME, _open_document().model_copy(update={"doc_id": "open"}))
    instance.add_dynamic_partitions("documents", ["open"])
    return "open"


@pytest.mark.slow
def test_the_model_is_asked_once_and_an_unchanged_partition_makes_no_call(kb, instance):
    partition = _open_partition(kb, instance)
    asset = knowledge_payloads_asset(knowledge_code_version(kb.settings.llm))
    for calls, cached in ((1, 0), (0, 1)):
        result = dg.materialize([asset], partition_key=partition, instance=instance, resources=asset_resources(kb))
        assert result.success and all(e.passed for e in result.get_asset_check_evaluations())
        meta = latest(instance, KNOWLEDGE_PAYLOADS, partition).metadata
        assert (meta["model_calls"].value, meta["cached_answers"].value) == (calls, cached)
        assert meta["model"].value == "SmolLM2-135M-Instruct.Q4_1"
    assert meta["prompt_tokens"].value == 0  # tokens are counted for calls made, not answers replayed
    # The model's calls; a record after them says the artifact, written alone, had no page layout.
    *calls, missing = json.loads((kb.layout.knowledge / partition / "usage.json").read_text())
    assert [u["simulated"] for u in calls] == [True] and calls[0]["prompt_tokens"] > 0
    assert missing["missing_artifact"] == "page_layout.json"
    # Another model is another code version: the partition shows unsynced before anything runs.
    other = KnowledgeBase(drop_folder=kb.drop_folder, data_dir=kb.data_dir, llm=ModelOptions(gguf="/models/other.gguf"))
    assert knowledge_code_version(other.settings.llm) != knowledge_code_version(kb.settings.llm)


def test_a_model_endpoint_down_fails_the_partition_with_url_and_records_it(kb, instance):
    partition = _open_partition(kb, instance)
    # (A new resource, not `model_copy`: Dagster rebuilds a resource from its constructor's config.)
    down = KnowledgeBase(
        drop_folder=kb.drop_folder,
        data_dir=kb.data_dir,
        llm=ModelOptions(base_url="http://127.0.0.1:9/v1", model="m", retries=0),
    )
    asset = knowledge_payloads_asset(knowledge_code_version(down.settings.llm))
    result = dg.materialize(
        [asset], partition_key=partition, instance=instance, resources=asset_resources(down), raise_on_error=False
    )
    assert not result.success
    (failure,) = [e for e in result.all_events if e.is_step_failure]
    description = failure.step_failure_data.user_failure_data.description
    assert "http://127.0.0.1:9/v1" in description and "unreachable" in description
    # The failure is recorded where the payloads would be, as `kb-pipeline extract` records it.
    assert [p.name for p in (kb.layout.knowledge / partition).iterdir()] == [FAILURE_NAME]
    assert "unreachable" in (kb.layout.knowledge / partition / FAILURE_NAME).read_text()
    assert (kb.layout.parsed_dir(partition) / ARTIFACT_NAME).is_file()  # the artifact is untouched


@pytest.mark.slow
def test_a_model_outage_fails_the_knowledge_not_the_parse_and_a_rerun_retries_only_it(
    tmp_path, layout, parses, instance
):
    from kb_pipeline.cli.ingest import format_outcomes
    from kb_pipeline.cli.status import folder_status, format_status
    from kb_pipeline.defs.history import PARSED, latest_materialization
    from kb_pipeline.defs.names import KNOWLEDGE_JOB

    folder = tmp_path / "drop"
    folder.mkdir()
    (folder / OPEN_SAMPLE).write_bytes((SAMPLE_DOCS / OPEN_SAMPLE).read_bytes())
    parses.seed(layout, SAMPLE_DOCS / OPEN_SAMPLE)
    url = "http://127.0.0.1:9/v1"  # nothing listens: the connection is refused
    down = KnowledgeBase(
        drop_folder=str(folder), data_dir=str(layout.root), llm=ModelOptions(base_url=url, model="m", retries=0)
    )
    (outcome,) = ingest_folder(down, instance)
    # Parsed, with its chunks and warnings; its knowledge failed, naming the endpoint; still a failure.
    assert outcome.status == "ingested" and outcome.metadata["chunks"] and outcome.failed
    assert outcome.knowledge_failure.startswith("knowledge failed: ModelFailed")
    assert url in outcome.knowledge_failure and "unreachable" in outcome.knowledge_failure
    assert "knowledge failed" in format_outcomes([outcome], 1.0)
    (status,) = folder_status(down, instance)
    assert status.state == "ingested" and status.failed and "chunks" in status.detail
    assert "knowledge failed: ModelFailed" in status.detail and url in status.detail
    assert "(1 ingested without knowledge" in format_status([status], folder)
    parse = latest_materialization(instance, PARSED, outcome.doc_id)

    # The model back (here: none, KB_LLM=off): a re-run runs the knowledge step alone.
    up = KnowledgeBase(drop_folder=str(folder), data_dir=str(layout.root), llm=None)
    (again,) = ingest_folder(up, instance)
    assert again.status == "ingested" and not again.failed
    assert again.knowledge.endswith("rules, 0 formulas, 0 model calls (0 cached)") and " terms, " in again.knowledge
    assert (
        instance.get_runs(dg.RunsFilter(tags={"dagster/partition": outcome.doc_id}), limit=1)[0].job_name
        == KNOWLEDGE_JOB
    )
    assert latest_materialization(instance, PARSED, outcome.doc_id).storage_id == parse.storage_id
    (status,) = folder_status(up, instance)
    assert status.state == "ingested" and not status.failed and f"knowledge: {again.knowledge}" in status.detail
    (unchanged,) = ingest_folder(up, instance)
    assert unchanged.status == "unchanged" and unchanged.knowledge == again.knowledge
