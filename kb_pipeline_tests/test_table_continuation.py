"""Tables continued on the next page, in the RAG package, on real MinerU output: the link is
recorded in the manifest and the previous table's header is carried forward."""

from __future__ import annotations

import json

from kb_pipeline.parsing.mineru_adapter import SOURCE_COPY
from kb_pipeline.rag import package_document


def _package(run, layout, out):
    result = package_document(
        run.document,
        run.layout,
        out,
        project_root=layout.root.parent,
        source_pdf=run.raw.path / SOURCE_COPY,
    )
    chunks = [json.loads(line) for line in result.chunks_path.read_text(encoding="utf-8").splitlines()]
    return chunks, json.loads(result.manifest_path.read_text(encoding="utf-8"))


def test_nces_table_14_continues_on_the_next_page(corpus_run, tmp_path):
    """Table 14 runs over pages 1–2 (more year columns on page 2; MinerU gives both bodies as
    laid-out text, the second captioned "…—Continued"). Tables 15–19 have titles of their own."""
    chunks, manifest = _package(corpus_run("table_nces_projections_multipage"), corpus_run.layout, tmp_path)
    tables = {c["chunk_id"]: c for c in chunks if c["content_type"] == "table"}
    ((continuation, previous),) = manifest["continues"].items()
    assert tables[continuation]["page_no"] == 2 and tables[previous]["page_no"] == 1
    # The part it continues is the last part of page 1's table.
    assert previous == max(i for i, c in tables.items() if c["page_no"] == 1)
    assert "Continued" in tables[continuation]["chunk_text"].splitlines()[0]
    # Both bodies are in the package (laid-out text read line by line), not "see the image".
    page1 = "\n".join(c["chunk_text"] for c in tables.values() if c["page_no"] == 1)
    page2 = "\n".join(c["chunk_text"] for c in tables.values() if c["page_no"] == 2)
    assert "2,753,438" in page1 and "Connecticut" in page1 and "3,183,360" in page2
    assert "Table body not extracted" not in page1 + page2


def test_a_headerless_continuation_takes_the_previous_header(corpus_run, tmp_path):
    """PyMuPDF manual pages 7–8: the "Key | Value" metadata table breaks after "modDate"; page 8
    goes on with "keywords | Keywords" and no header. Without the link that row became the header."""
    chunks, manifest = _package(corpus_run("manual_pymupdf_v1_8", "7-8"), corpus_run.layout, tmp_path)
    by_id = {c["chunk_id"]: c for c in chunks}
    ((continuation, previous),) = manifest["continues"].items()
    assert by_id[previous]["page_no"] == 7 and "Columns: Key | Value" in by_id[previous]["chunk_text"]
    text = by_id[continuation]["chunk_text"].splitlines()
    assert by_id[continuation]["page_no"] == 8
    assert text[0] == "Table: (untitled table on page 7) (continued)"
    assert text[1] == "Columns: Key | Value"
    assert text[2] == "Row 1: keywords | Keywords"
    # The other tables on page 8 open sections of their own: not continuations.
    assert sum(c["content_type"] == "table" and c["page_no"] == 8 for c in chunks) == 3
