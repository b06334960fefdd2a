"""The package holds every line of the PDF's text layer the artifact holds, the low-value
sections it drops by design aside (issue 33: it once lost what the normaliser recovered).
Measured as the artifact check measures the artifact (`quality.text_coverage`), on real MinerU
output: the seven fixtures with their PDFs, and two corpus documents parsed now."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.layout_contract import ParsedLayout
from kb_pipeline.parsing.mineru_adapter import SOURCE_COPY
from kb_pipeline.pdf_text import PdfTextLayer
from kb_pipeline.pipeline import normalise_mineru_output
from kb_pipeline.quality.text_coverage import measure_text_coverage
from kb_pipeline.rag import package_document
from kb_pipeline.rag.coverage import package_coverage

from .conftest import FIXTURE_NAMES, FIXTURE_PDFS, MINERU_FIXTURES


def _coverages(document: ParsedDocument, layout: ParsedLayout, pdf: Path, out: Path) -> tuple[float, float]:
    """(artifact, package + the chunks it dropped as low-value)."""
    result = package_document(document, layout, out, project_root=out, source_pdf=pdf)
    records = [json.loads(line) for line in result.chunks_path.read_text(encoding="utf-8").splitlines()]
    dropped = [chunk for chunk in document.chunks if chunk.chunk_id in set(result.low_value_chunks)]
    with PdfTextLayer(pdf) as text_layer:
        artifact = measure_text_coverage(document.chunks, text_layer)
        package = package_coverage(records, text_layer, dropped)
    return artifact.coverage, package.coverage


@pytest.mark.usefixtures("shared_fixtures")
@pytest.mark.parametrize("name", FIXTURE_NAMES)
def test_package_coverage_is_the_artifacts_on_the_fixtures(tmp_path: Path, name: str) -> None:
    input_dir = tmp_path / "mineru"
    shutil.copytree(MINERU_FIXTURES / name, input_dir, copy_function=shutil.copyfile)
    normalised, pdf = normalise_mineru_output(input_dir, doc_id=name, pdf=FIXTURE_PDFS / f"{name}.pdf")
    artifact, package = _coverages(normalised.document, normalised.layout, pdf, tmp_path / "kb")
    assert package >= artifact, (name, package, artifact)


@pytest.mark.parametrize(("name", "pages"), [("table_nces_projections_multipage", ""), ("manual_pymupdf_v1_8", "7-8")])
def test_package_coverage_is_the_artifacts_on_corpus_parses(corpus_run, tmp_path: Path, name: str, pages: str) -> None:
    run = corpus_run(name, pages)
    pdf = run.raw.path / SOURCE_COPY
    artifact, package = _coverages(run.document, run.layout, pdf, tmp_path)
    assert package >= artifact, (name, package, artifact)
