"""The RAG package is built from the artifact: its sections are the normaliser's (headings MinerU
read as paragraphs included) and flash formulas carry their text-layer characters. Real MinerU."""

from __future__ import annotations

import json

from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.parsing.mineru_adapter import SOURCE_COPY
from kb_pipeline.pipeline import Parsing, process_document
from kb_pipeline.rag import package_document

from .conftest import FIXTURE_PDFS, SAMPLE_DOCS


def _package(pdf, layout, tmp_path) -> list[dict]:
    run = process_document(pdf, Parsing.in_process(ParserConfig(), layout))
    raw_dir = run.raw.path
    result = package_document(
        run.document,
        run.layout,
        tmp_path / pdf.stem,
        project_root=layout.root.parent,
        source_pdf=raw_dir / SOURCE_COPY,
    )
    return [json.loads(line) for line in result.chunks_path.read_text(encoding="utf-8").splitlines()]


def test_sections_come_from_the_artifact_where_mineru_missed_a_heading(layout, tmp_path):
    # MinerU reads "III. REFERENCES" as a paragraph; the normaliser opens a section there, and
    # the package files what follows under it.
    chunks = _package(SAMPLE_DOCS / "pump_maintenance_manual.pdf", layout, tmp_path)
    datasheet = [c for c in chunks if "Manufacturer datasheet" in c["chunk_text"]]
    assert datasheet and datasheet[0]["section_title"] == "III. REFERENCES"
    assert all(
        set(c) == {"chunk_id", "page_no", "content_type", "section_title", "chunk_text", "image_path"} for c in chunks
    )


def test_flash_formulas_carry_their_text_layer_characters(layout, tmp_path):
    chunks = _package(FIXTURE_PDFS / "unittest_test.pdf", layout, tmp_path)
    (formula,) = [c for c in chunks if c["content_type"] == "formula"]
    assert "(1 − λ) · C(p, p¯) + λ · wt(p, pt−1) · Ca(p, p¯)" in formula["chunk_text"]
    assert (layout.root.parent / formula["image_path"]).is_file()
