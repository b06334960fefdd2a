"""The layout artifact (`page_layout.json` beside `chunks.json`, docs/contract.md): written by the
code that writes the artifact, in `kb-pipeline run` as in the asset graph, valid against its
schema; the knowledge payloads and the RAG package made from the artifacts alone, with neither
the PDF nor MinerU's output there to read; and a document without its layout extracted all the
same, its usage saying what was lost. On real MinerU parses."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from kb_pipeline import contract_docs
from kb_pipeline.batch import run_batch
from kb_pipeline.cli.extract import main as extract_main
from kb_pipeline.cli.package import package_directory
from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.knowledge.document.layout import WITHOUT_LAYOUT
from kb_pipeline.knowledge.payloads.payload_folder import PAYLOAD_NAMES
from kb_pipeline.layout_contract import LAYOUT_NAME, ParsedLayout
from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.parsing.mineru_adapter import SOURCE_COPY
from kb_pipeline.pipeline import ARTIFACT_NAME, read_layout, write_artifact, write_artifacts
from kb_pipeline.rag import package_document
from kb_pipeline_tests import lists_pdfs as pdfs

from .conftest import FIXTURE_PDFS, SAMPLE_DOCS


@pytest.fixture(scope="module")
def lists_run(parses, tmp_path_factory):
    """The generated cover and abbreviation lists (a title in large type, two-column lists): what
    the layout readers read."""
    pdf = tmp_path_factory.mktemp("page_layout") / "lists.pdf"
    pdfs.lists_pdf(pdf)
    return parses.run(pdf)


def _refuse_the_pdf_and_mineru_s_output(monkeypatch) -> None:
    """From here on, opening any PDF or reading MinerU's output fails the test."""
    import pypdfium2

    from kb_pipeline.parsing import raw_output

    def refused(*args, **kwargs):
        raise AssertionError(f"read the PDF or MinerU's output: {args}")

    monkeypatch.setattr(pypdfium2, "PdfDocument", refused)
    monkeypatch.setattr(raw_output, "load_raw_output", refused)


def test_the_layout_is_written_beside_the_artifact_and_follows_its_schema(parses, layout, tmp_path):
    """`kb-pipeline run` (the session's parse from the cache): page_layout.json beside each
    chunks.json, in the run and in the latest artifacts, valid against its JSON Schema, and
    the artifact's own: its identity, MinerU's pages, every item a chunk holds."""
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(SAMPLE_DOCS / "STD_2026_006_parameter_produksi.pdf", folder)
    parses.seed(layout, *folder.iterdir())
    manifest = run_batch(folder, layout.runs, ParserConfig(), layout)
    (entry,) = manifest.documents
    schema = json.loads((contract_docs.REPO / contract_docs.SCHEMA_DIR / "page_layout.schema.json").read_text())
    for doc_dir in (layout.runs / manifest.run_id / entry.doc_id, layout.parsed_dir(entry.doc_id)):
        document = ParsedDocument.model_validate_json((doc_dir / ARTIFACT_NAME).read_text())
        written = json.loads((doc_dir / LAYOUT_NAME).read_text())
        jsonschema.validate(written, schema)
        page_layout = read_layout(doc_dir / ARTIFACT_NAME, document)
        assert page_layout == ParsedLayout.model_validate(written)
        assert [page.page_idx for page in page_layout.pages] == list(range(document.n_pages))
        assert all(page.lines for page in page_layout.pages)
        weights = {line.weight for page in page_layout.pages for line in page.lines}
        assert len(weights - {None}) >= 2, weights  # body text and bold headings
        items = {item.item: item for page in page_layout.pages for item in page.items}
        held = {index for chunk in document.chunks for index in chunk.source_items}
        assert held and held <= set(items) and not any(items[index].removed for index in held)
        # The furniture removed: a running head and the page numbers.
        assert {"page_header", "page_number"} <= {item.kind for item in items.values() if item.removed}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**written, "pages": [{**written["pages"][0], "lines": [{"text": "x"}]}]}, schema)


def _extract(artifacts: Path, out: Path) -> dict[str, bytes]:
    assert extract_main([str(artifacts), "--out-dir", str(out)]) == 0
    (folder,) = out.iterdir()
    return {name: (folder / name).read_bytes() for name in PAYLOAD_NAMES}


def test_knowledge_from_the_artifacts_alone_is_the_same_with_the_pdf_gone(lists_run, layout, tmp_path, monkeypatch):
    """The payloads of a document read from its artifacts, with its PDF and raw output where
    the artifact says, and again with both gone (the artifact moved elsewhere): the same bytes,
    and what only the layout gives is there (the cover's title, the borderless list's rows)."""
    monkeypatch.setenv("KB_LLM", "off")
    _refuse_the_pdf_and_mineru_s_output(monkeypatch)
    document = lists_run.document
    write_artifacts(tmp_path / "here" / document.doc_id, document, lists_run.layout)
    moved = document.model_copy(update={"source_path": "/gone/lists.pdf", "raw_output_dir": "/gone/raw"})
    write_artifacts(tmp_path / "moved" / document.doc_id, moved, lists_run.layout)
    here = _extract(tmp_path / "here", tmp_path / "out-here")
    assert _extract(tmp_path / "moved", tmp_path / "out-moved") == here
    brief = json.loads(here["brief_context.json"])
    assert brief["title"] == " ".join(pdfs.TITLE_LINES)
    names = {e["term"]: e["full_name"] for e in json.loads(here["glossary.json"])}
    assert all(names[term] == expansion for term, expansion in pdfs.BORDERLESS)
    assert json.loads(here["usage.json"]) == []


def test_without_its_layout_a_document_is_extracted_and_its_usage_says_what_was_lost(
    lists_run, layout, tmp_path, monkeypatch, capsys
):
    """A chunks.json alone (written before layouts were, or copied without it), one beside
    another version's layout, and one beside a layout cut short: extracted all the same, from
    the chunks' text, and usage.json names the missing artifact and what each of its readers did
    without it."""
    monkeypatch.setenv("KB_LLM", "off")
    document = lists_run.document
    write_artifact(tmp_path / "bare" / document.doc_id / ARTIFACT_NAME, document)
    stale = lists_run.layout.model_copy(update={"normaliser_version": "000000000000"})
    write_artifacts(tmp_path / "stale" / document.doc_id, document, stale)
    write_artifacts(tmp_path / "cut" / document.doc_id, document, lists_run.layout)
    cut = tmp_path / "cut" / document.doc_id / LAYOUT_NAME
    cut.write_bytes(cut.read_bytes()[: cut.stat().st_size // 2])
    lost = {"missing_artifact": LAYOUT_NAME, "lost": list(WITHOUT_LAYOUT)}
    for name in ("bare", "stale", "cut"):
        payloads = _extract(tmp_path / name, tmp_path / f"out-{name}")
        assert json.loads(payloads["usage.json"]) == [lost]
        assert json.loads(payloads["glossary.json"])  # read from the chunks' text
        assert json.loads(payloads["brief_context.json"])["title"] != " ".join(pdfs.TITLE_LINES)
        assert f"read without {LAYOUT_NAME}: usage.json says what was lost" in capsys.readouterr().out
    assert any(line.startswith("glossary: ") for line in WITHOUT_LAYOUT)
    assert any(line.startswith("brief: ") for line in WITHOUT_LAYOUT)


def test_the_package_reads_the_artifacts_not_the_pdf_nor_mineru_s_output(parses, tmp_path, monkeypatch):
    """A figure, a formula and a table (captions, the formula's markup or characters, image
    files): packaged from the artifacts with the PDF and MinerU's output unread, the same
    chunks as `kb-pipeline package` makes from MinerU's output."""
    run = parses.run(FIXTURE_PDFS / "unittest_test.pdf")
    from_output = package_directory(run.raw.path, tmp_path / "cli", project_root=tmp_path)
    _refuse_the_pdf_and_mineru_s_output(monkeypatch)
    from_artifacts = package_document(
        run.document, run.layout, tmp_path / "artifacts", project_root=tmp_path, source_pdf=run.raw.path / SOURCE_COPY
    )
    assert from_artifacts.chunks_path.read_bytes() == from_output.chunks_path.read_bytes()
    kinds = {json.loads(line)["content_type"] for line in from_artifacts.chunks_path.read_text().splitlines()}
    assert {"figure", "formula", "table"} <= kinds
