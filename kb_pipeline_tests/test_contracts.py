"""The artifact's contract (schema 0.3.3): fields, defaults, serialisation order, round trip."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from kb_pipeline.contracts import (
    CHUNK_ID_PATTERN,
    SCHEMA_VERSION,
    Chunk,
    ParsedDocument,
    ParseFailure,
    QualityWarning,
    make_chunk_id,
)

# Literal values from the parsing contract's reference run (seed 000, sections 1 and 2).
SEED_CHUNK = {
    "chunk_id": "STD_2026_006_MNO::0003",
    "doc_id": "STD_2026_006_MNO",
    "kind": "text",
    "text": "Adalah serangkaian kegiatan yang dilakukan untuk menciptakan nilai tambah terhadap sumber daya …",
    "page_idx": 1,
    "page_idxs": [1],
    "section_no": "2.1.1",
    "heading": "Production",
    "chapters": [],
    "heading_path": ["2.1.1. Production"],
    "has_formula": True,
    "is_tabular": False,
    "source_items": [6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16],
    "bbox": [122, 293, 275, 307],
    "images": ["images/76503982720c45fc9d387accb74d5f5c5083f4f3109ed7fbf6a4da345bc20e0f.jpg"],
    "latex": ["$$\nP r o d u c t i o n = M O H H x Q t y x P A x U A x P t y\n$$"],
    "table_html": None,
}
SEED_DOCUMENT = {
    "doc_id": "STD_2026_006_MNO",
    "chunks": [SEED_CHUNK],
    "source_path": "data\\knowledge_docs\\STD_2026_006_MNO.pdf",
    "content_hash": "f10807178b20531e86237a2640ff4125d259aa68e5e9d9f910c0c2365cd92833",
    "n_pages": 9,
    "parser_name": "mineru",
    "parser_version": "3.4.4",
    "parser_backend": "pipeline",
    "parser_config": "b367868551b9",
    "version": 1,
    "schema_version": "0.3.0",
    "created_at": "2026-08-24T10:07:21",
    "raw_output_dir": "…/data/knowledge_cache/parse/f10807178b20531e-b367868551b9-3.4.4",
}
# contracts.py 0.3.3, in declaration order; pydantic writes the computed page_no last, as the
# original 0.3.3 model does.
CHUNK_FIELDS = [
    "chunk_id",
    "doc_id",
    "kind",
    "text",
    "page_idx",
    "page_idxs",
    "section_no",
    "heading",
    "chapters",
    "heading_path",
    "has_formula",
    "is_tabular",
    "source_items",
    "bbox",
    "images",
    "latex",
    "table_html",
    "generated_description",
    "page_no",
]
DOCUMENT_FIELDS = [
    "doc_id",
    "source_title",
    "source_path",
    "content_hash",
    "n_pages",
    "parser_name",
    "parser_version",
    "parser_backend",
    "parser_config",
    "normaliser_version",
    "version",
    "schema_version",
    "created_at",
    "raw_output_dir",
    "chunks",
]


def test_seed_example_round_trips_value_for_value():
    doc = ParsedDocument.model_validate(SEED_DOCUMENT)
    dumped = json.loads(doc.model_dump_json())
    for key, value in SEED_DOCUMENT.items():
        if key != "chunks":
            assert dumped[key] == value, key
    for key, value in SEED_CHUNK.items():
        assert dumped["chunks"][0][key] == value, key
    assert ParsedDocument.model_validate_json(doc.model_dump_json()) == doc


def test_serialisation_order_puts_metadata_before_chunks():
    dumped = json.loads(ParsedDocument.model_validate(SEED_DOCUMENT).model_dump_json())
    assert list(dumped) == DOCUMENT_FIELDS
    assert list(dumped["chunks"][0]) == CHUNK_FIELDS


def test_page_no_is_computed_one_based_and_never_stored_apart():
    chunk = Chunk.model_validate(SEED_CHUNK)
    assert chunk.page_no == 2
    assert json.loads(chunk.model_dump_json())["page_no"] == 2
    # A serialised page_no is ignored on the way back in: it is always derived from page_idx.
    reread = Chunk.model_validate({**json.loads(chunk.model_dump_json()), "page_idx": 4})
    assert reread.page_no == 5


def test_defaults_of_new_fields_are_null_for_older_artifacts():
    doc = ParsedDocument.model_validate(SEED_DOCUMENT)
    assert doc.source_title is None and doc.normaliser_version is None
    assert doc.chunks[0].generated_description is None
    assert ParsedDocument.model_validate({**SEED_DOCUMENT, "schema_version": SCHEMA_VERSION}).schema_version == "0.3.3"
    assert (
        ParsedDocument(doc_id="d", source_path="p", content_hash="h", n_pages=1, chunks=[]).schema_version
        == SCHEMA_VERSION
    )


def test_kind_is_an_enum():
    with pytest.raises(ValidationError):
        Chunk.model_validate({**SEED_CHUNK, "kind": "figure"})


def test_chunk_id_format():
    assert make_chunk_id("STD_2026_006_MNO", 3) == "STD_2026_006_MNO::0003"
    assert CHUNK_ID_PATTERN.match("STD_2026_006_MNO::0003")["doc_id"] == "STD_2026_006_MNO"
    assert not CHUNK_ID_PATTERN.match("STD_2026_006_MNO#0007")


def test_warning_and_failure_records():
    w = QualityWarning(doc_id="d", jenis="latex_tanpa_angka", page_idx=1, detail="P r o d u c t i o n")
    assert QualityWarning.model_validate_json(w.model_dump_json()) == w
    with pytest.raises(ValidationError):
        QualityWarning(doc_id="d", jenis="unknown_code", detail="x")
    f = ParseFailure(doc_id="d", source_path="d.pdf", error_type="EmptyFileError", message="d.pdf is empty")
    assert ParseFailure.model_validate_json(f.model_dump_json()) == f
