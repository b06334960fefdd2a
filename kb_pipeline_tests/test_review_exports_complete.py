"""active_knowledge.json / .csv carry every field of an approved rule, formula and brief (issue
49, item 9; docs/review.md "Exports"): each field as approved, a reviewer's edit applied, with the
extracted value beside it, and the links. On a REAL MinerU parse of the pump handbook
(test_review_knowledge.py), decided through the desk's API, exported by `kb-pipeline knowledge
export`; the expected extracted values are read from the payloads the extraction wrote."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from kb_pipeline.cli.main import main as cli_main
from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.review.store import DecisionStore
from kb_pipeline.review_desk.app import create_app
from kb_pipeline.review_desk.dependencies import CSRF_HEADER

from .test_review_desk import _extract
from .test_review_knowledge import DOC, FORMULA, LOW_RULE, PURPOSE, SEAL_RULE, editions

editions = editions  # both editions of the handbook, parsed once for this module

MTBF = "MTBF (Mean Time Between Failures) is reported for every pump each month."
# What an expert adds as a rule from the MTBF sentence: every field verbatim in its chunk.
ADDED = {
    "statement": MTBF,
    "condition": "for every pump each month",
    "consequence": "MTBF (Mean Time Between Failures) is reported",
    "rule_type": "calculation",
}
SEAL_CONDITION = "the seal leaks during a test run or an inspection"
SEAL_CONSEQUENCE = "the pump is taken out of service and the seal replaced"
LOW_STATEMENT = "If the availability is below 80%, then the pump is sent to maintenance within a week."
MEANING = "the hours the pump was planned to run"
RULE_FIELDS = ("statement", "condition", "consequence", "rule_type")
FORMULA_FIELDS = ("name", "formula_latex", "unit")
BRIEF_FIELDS = ("title", "purpose")
OLD_COLUMNS = (
    "kind,id,doc_id,label,text,extracted_text,edited_fields,reviewer,decided_at,orphaned,source_changed,origin"
)


@pytest.fixture(scope="module")
def handbook(editions) -> ParsedDocument:
    return editions[0]


def _payload(layout, name: str) -> list[dict]:
    return json.loads((layout.knowledge / DOC / name).read_text(encoding="utf-8"))


def _csv_cell(value: object) -> str:
    """A JSON value as the CSV writes it: null empty, a list or object as JSON, a boolean as Python says it."""
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False) if isinstance(value, list | dict) else str(value)


def test_active_knowledge_carries_every_field_edited_and_extracted_in_json_and_csv(layout, handbook, tmp_path):
    _extract(layout, handbook)
    store = DecisionStore.open(None, layout)
    client = TestClient(create_app(layout, store), base_url="http://127.0.0.1")
    client.headers[CSRF_HEADER] = client.get("/api/csrf-token").json()["token"]

    def decide(entry_id: str, decision: str, **more) -> None:
        body = {"id": entry_id, "decision": decision, "reviewer": "Rina", **more}
        response = client.post("/api/decisions", json=body)
        assert response.status_code == 200, response.text

    try:
        rows = client.get("/api/queue", params={"kind": "all"}).json()
        ids = {r["item"]["text"]: r["entry_id"] for r in rows if r["kind"] != "term"}
        rules = {r["rule_id"]: r for r in _payload(layout, "interpretation_pack.json")}
        (formula,) = _payload(layout, "formulas.json")
        brief = json.loads((layout.knowledge / DOC / "brief_context.json").read_text(encoding="utf-8"))
        seal, low = rules[ids[SEAL_RULE]], rules[ids[LOW_RULE]]
        other_type = "interpretation" if seal["rule_type"] == "calculation" else "calculation"
        # What is edited differs from what was extracted, or the test could not tell them apart.
        assert (seal["condition"], seal["consequence"]) != (SEAL_CONDITION, SEAL_CONSEQUENCE)
        symbols = [v["symbol"] for v in formula["variables"]]
        assert "Scheduled Hours" in symbols and formula["unit"] != "%"
        decide(
            seal["rule_id"],
            "edit",
            fields={"condition": SEAL_CONDITION, "consequence": SEAL_CONSEQUENCE, "rule_type": other_type},
        )
        decide(low["rule_id"], "edit", fields={"statement": LOW_STATEMENT})
        decide(
            formula["formula_id"],
            "edit",
            fields={"name": "Pump availability", "unit": "%", "variables.Scheduled Hours": MEANING},
        )
        decide(brief["brief_id"], "approve")
        chunk = next(c.chunk_id for c in handbook.chunks if MTBF in c.text)
        body = {"doc_id": DOC, "kind": "rule", "chunk_id": chunk, "span": MTBF, "fields": ADDED, "reviewer": "Rina"}
        added = client.post("/api/entries", json=body)
        assert added.status_code == 200, added.text
        added_id = added.json()["entry_id"]
    finally:
        client.close()
        store.close()

    out = tmp_path / "export"
    assert cli_main(["knowledge", "export", "--format", "json", "--format", "csv", "--out", str(out)]) == 0
    exported = {k["id"]: k for k in json.loads((out / "active_knowledge.json").read_text(encoding="utf-8"))}
    assert set(exported) == {seal["rule_id"], low["rule_id"], formula["formula_id"], brief["brief_id"], added_id}

    # The reader's rule, its condition, consequence and type edited: each beside the extracted one.
    record = exported[seal["rule_id"]]
    assert (record["condition"], record["extracted_condition"]) == (SEAL_CONDITION, seal["condition"])
    assert (record["consequence"], record["extracted_consequence"]) == (SEAL_CONSEQUENCE, seal["consequence"])
    assert (record["rule_type"], record["extracted_rule_type"]) == (other_type, seal["rule_type"])
    assert record["statement"] == record["extracted_statement"] == record["text"] == SEAL_RULE
    assert (record["term_ids"], record["formula_ids"]) == (seal["term_ids"], seal["formula_ids"])
    # Its statement edited: the text and the statement are the edit's, the extraction's beside them.
    record = exported[low["rule_id"]]
    assert record["statement"] == record["text"] == LOW_STATEMENT
    assert record["extracted_statement"] == record["extracted_text"] == LOW_RULE
    for name in ("condition", "consequence", "rule_type"):
        assert record[name] == record[f"extracted_{name}"] == low[name], name
    # The expert's rule: the condition and consequence given when it was added (issue 49: they
    # were in the gold export only).
    record = exported[added_id]
    assert record["origin"] == "expert"
    for name, value in ADDED.items():
        assert record[name] == record[f"extracted_{name}"] == value, name

    # The formula: its name, unit and a variable's meaning edited, every variable kept.
    record = exported[formula["formula_id"]]
    assert (record["name"], record["extracted_name"]) == ("Pump availability", formula["name"])
    assert (record["unit"], record["extracted_unit"]) == ("%", formula["unit"])
    assert record["formula_latex"] == record["extracted_formula_latex"] == record["text"] == FORMULA
    extracted = [{k: v[k] for k in ("symbol", "meaning", "term_id")} for v in formula["variables"]]
    assert record["extracted_variables"] == extracted
    assert record["variables"] == [
        v | {"meaning": MEANING} if v["symbol"] == "Scheduled Hours" else v for v in extracted
    ]
    assert record["edited_fields"] == {"name": "Pump availability", "unit": "%", "variables.Scheduled Hours": MEANING}
    assert all(record[f] is None for f in (*RULE_FIELDS, "term_ids", "formula_ids"))  # not a formula's
    # The brief, approved as extracted.
    record = exported[brief["brief_id"]]
    assert (record["purpose"], record["title"]) == (PURPOSE, brief["title"])
    assert record["extracted_purpose"] == PURPOSE and record["key_parameters"] == brief["key_parameters"]

    # The CSV: the columns of before first, then the new ones; every cell the JSON's value.
    text = (out / "active_knowledge.csv").read_text(encoding="utf-8")
    assert text.startswith(OLD_COLUMNS + ",")
    reader = csv.DictReader(io.StringIO(text))
    own = (*RULE_FIELDS, *FORMULA_FIELDS, *BRIEF_FIELDS, "variables")
    links = ("term_ids", "formula_ids", "key_parameters")
    assert {*own, *(f"extracted_{name}" for name in own), *links} <= set(reader.fieldnames or ())
    rows = {r["id"]: r for r in reader}
    assert set(rows) == set(exported)
    for entry_id, record in exported.items():
        assert rows[entry_id] == {k: _csv_cell(v) for k, v in record.items()}, entry_id
    seal_row = rows[seal["rule_id"]]
    assert (seal_row["condition"], seal_row["extracted_condition"]) == (SEAL_CONDITION, seal["condition"] or "")
    variables = json.loads(rows[formula["formula_id"]]["variables"])
    assert {v["symbol"]: v["meaning"] for v in variables}["Scheduled Hours"] == MEANING
    assert rows[added_id]["condition"] == ADDED["condition"]


def test_an_orphaned_approval_keeps_what_its_decision_holds(layout, handbook, tmp_path):
    """An approved rule whose entry is gone from the payloads: its statement and the fields its
    edit set, nothing the payload alone said (no entry to read it from)."""
    _extract(layout, handbook)
    store = DecisionStore.open(None, layout)
    try:
        store.record(
            entry_id="r_gone",
            doc_id=DOC,
            term="If A, then B.",
            decision="edit",
            extracted_definition="If A, then B.",
            edited_definition="If A, then B.",
            edited_fields={"condition": "A holds"},
            reviewer="Rina",
            kind="rule",
        )
    finally:
        store.close()
    out = tmp_path / "export"
    assert cli_main(["knowledge", "export", "--format", "json", "--out", str(out)]) == 0
    (record,) = json.loads(Path(out / "active_knowledge.json").read_text(encoding="utf-8"))
    assert record["orphaned"] and record["statement"] == record["extracted_statement"] == "If A, then B."
    assert (record["condition"], record["extracted_condition"]) == ("A holds", None)
    assert record["consequence"] is None and record["term_ids"] is None
