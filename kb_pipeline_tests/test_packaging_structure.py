"""The RAG package built with the artifact's structure: sections from our normaliser (headings
MinerU read as paragraphs included) and flash formulas' text-layer characters. Real MinerU."""

from __future__ import annotations

import json

from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.parsing.mineru_adapter import SOURCE_COPY
from kb_pipeline.parsing.raw_output import load_raw_output
from kb_pipeline.pdf_text import PdfTextLayer
from kb_pipeline.pipeline import Parsing, process_document
from kb_pipeline.rag import package_document, structure_from_artifact

from .conftest import FIXTURE_PDFS, SAMPLE_DOCS


def _package(pdf, layout, tmp_path, with_structure: bool) -> list[dict]:
    run = process_document(pdf, Parsing.in_process(ParserConfig(), layout))
    raw_dir = run.raw.path
    structure = None
    if with_structure:
        with PdfTextLayer(raw_dir / SOURCE_COPY) as text_layer:
            structure = structure_from_artifact(run.document, load_raw_output(raw_dir), text_layer)
    out = tmp_path / ("with" if with_structure else "without") / pdf.stem
    result = package_document(raw_dir, out, project_root=layout.root.parent, structure=structure)
    return [json.loads(line) for line in result.chunks_path.read_text(encoding="utf-8").splitlines()]


def test_sections_come_from_the_artifact_where_mineru_missed_a_heading(layout, tmp_path):
    pdf = SAMPLE_DOCS / "pump_maintenance_manual.pdf"
    # MinerU reads "III. REFERENCES" as a paragraph: alone, the packager files what follows it
    # under the previous section; with the artifact's structure it gets its own.
    without = _package(pdf, layout, tmp_path, with_structure=False)
    with_structure = _package(pdf, layout, tmp_path, with_structure=True)
    datasheet = [c for c in with_structure if "Manufacturer datasheet" in c["chunk_text"]]
    assert datasheet and datasheet[0]["section_title"] == "III. REFERENCES"
    assert not any(c["section_title"] == "III. REFERENCES" for c in without)
    assert all(
        set(c) == {"chunk_id", "page_no", "content_type", "section_title", "chunk_text", "image_path"}
        for c in with_structure
    )


def test_flash_formulas_carry_their_text_layer_characters(layout, tmp_path):
    chunks = _package(FIXTURE_PDFS / "unittest_test.pdf", layout, tmp_path, with_structure=True)
    (formula,) = [c for c in chunks if c["content_type"] == "formula"]
    assert "(1 − λ) · C(p, p¯) + λ · wt(p, pt−1) · Ca(p, p¯)" in formula["chunk_text"]
    assert (layout.root.parent / formula["image_path"]).is_file()
