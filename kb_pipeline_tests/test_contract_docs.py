"""The contract docs cannot drift from the models: the JSON Schemas in docs/schema/ and the field
tables of docs/contract.md and docs/knowledge.md are what `kb_pipeline.contract_docs` generates
from them, every contract model has a table, and a real artifact and its knowledge payloads
(the shipped standard, parsed by the real MinerU) conform to the checked-in schemas."""

from __future__ import annotations

import json
import re
import shutil
import typing

import jsonschema
import pytest

from kb_pipeline import contract_docs
from kb_pipeline.contracts import ParsedDocument, WarningCode
from kb_pipeline.knowledge.extract import extract_document

from .conftest import SAMPLE_DOCS

REPO = contract_docs.REPO


@pytest.fixture(scope="module")
def parsed(parses) -> ParsedDocument:
    """The shipped Indonesian standard (samples.py, reportlab), parsed once by the real MinerU."""
    return parses.run(SAMPLE_DOCS / "STD_2026_006_parameter_produksi.pdf").document


def test_the_schemas_and_field_tables_are_what_the_models_give():
    stale = contract_docs.stale_files()
    assert stale == [], f"stale: {[str(p.relative_to(REPO)) for p in stale]}; run python -m kb_pipeline.contract_docs"
    assert contract_docs.main(["--check"]) == 0


def test_every_contract_model_has_a_table():
    assert contract_docs.tabled_models() == set(contract_docs.documented_models())


def test_a_stale_table_or_schema_is_found_and_regenerated(tmp_path, capsys):
    for doc in contract_docs.DOCS:
        (tmp_path / doc).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / doc, tmp_path / doc)
    shutil.copytree(REPO / contract_docs.SCHEMA_DIR, tmp_path / contract_docs.SCHEMA_DIR)
    contract = tmp_path / "docs" / "contract.md"
    text = contract.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `page_idx` |"))
    contract.write_text(text.replace(row, "| `page_idx` | str | required | 1-based |"), encoding="utf-8")
    (tmp_path / contract_docs.SCHEMA_DIR / "parse_failure.schema.json").unlink()
    assert contract_docs.stale_files(tmp_path) == [
        tmp_path / contract_docs.SCHEMA_DIR / "parse_failure.schema.json",
        contract,
    ]
    with pytest.raises(KeyError, match="no model Nonesuch"):
        contract_docs.render_doc("<!-- fields: Nonesuch -->\n<!-- /fields -->", contract_docs.documented_models())


def test_the_warning_codes_table_lists_every_code():
    text = (REPO / "docs" / "contract.md").read_text(encoding="utf-8")
    table = text[text.index("| `jenis` | meaning |") :].split("\n\n", 1)[0]
    assert re.findall(r"^\| `(\w+)` \|", table, re.MULTILINE)[1:] == list(typing.get_args(WarningCode))


def _schema(name: str) -> dict:
    return json.loads((REPO / contract_docs.SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))


def test_a_real_artifact_and_its_payloads_conform_to_the_schemas(parsed):
    artifact = json.loads(parsed.model_dump_json())
    jsonschema.validate(artifact, _schema("parsed_document"))
    assert list(artifact) == list(_schema("parsed_document")["properties"])  # the file's key order
    payloads = json.loads(extract_document(parsed).model_dump_json())
    assert payloads["glossary"] and payloads["formulas"]
    jsonschema.validate(payloads, _schema("knowledge_payloads"))
    broken = {**artifact, "chunks": [{**artifact["chunks"][0], "page_idx": "1"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, _schema("parsed_document"))
