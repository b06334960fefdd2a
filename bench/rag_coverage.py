"""Text coverage of the RAG package against the artifact it is built from, on the ten knowledge
documents (`../shared/knowledge/gold/`): the share of the PDF text layer's counted lines present
(`quality.text_coverage`, the artifact check's own measure; `rag.coverage` reads the package).

    .venv/bin/python bench/rag_coverage.py [--parsed DIR] [--out DIR]

`--parsed` is a data root's `parsed/` folder (`<doc_id>/chunks.json`, whose `raw_output_dir` is
the parse-cache entry it was normalised from; default: this checkout's `data/parsed`). Each
document is packaged again from its artifacts (chunks.json, page_layout.json) into `--out`
(default: a temporary folder).
Columns: artifact; package; package + the chunks it drops by design (low-value sections: a
table of contents, a revision history), which must not be below the artifact.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from _common import REPO, SHARED

from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.layout_contract import ParsedLayout
from kb_pipeline.parsing.mineru_adapter import SOURCE_COPY
from kb_pipeline.pdf_text import PdfTextLayer
from kb_pipeline.pipeline import read_layout
from kb_pipeline.quality.text_coverage import measure_text_coverage
from kb_pipeline.rag import package_document
from kb_pipeline.rag.coverage import package_coverage

KNOWLEDGE_DOCS = sorted(path.stem for path in (SHARED / "knowledge" / "gold").glob("*.json"))


def measure(document: ParsedDocument, layout: ParsedLayout, out: Path) -> tuple[float, float, float, int]:
    raw_dir = Path(document.raw_output_dir or "")
    result = package_document(document, layout, out, project_root=out, source_pdf=raw_dir / SOURCE_COPY)
    records = [json.loads(line) for line in result.chunks_path.read_text(encoding="utf-8").splitlines()]
    dropped = [chunk for chunk in document.chunks if chunk.chunk_id in set(result.low_value_chunks)]
    with PdfTextLayer(raw_dir / SOURCE_COPY) as text_layer:
        artifact = measure_text_coverage(document.chunks, text_layer).coverage
        package = package_coverage(records, text_layer).coverage
        aside = package_coverage(records, text_layer, dropped).coverage
    return artifact, package, aside, len(records)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parsed", type=Path, default=REPO / "data" / "parsed")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="rag_coverage_"))
    print("| document | artifact | package | package + low-value aside | chunks |\n|---|---|---|---|---|")
    for stem in KNOWLEDGE_DOCS:
        artifact_path = args.parsed / stem / "chunks.json"
        document = ParsedDocument.model_validate_json(artifact_path.read_text(encoding="utf-8"))
        layout = read_layout(artifact_path, document)
        if layout is None:
            print(f"| {stem} | no page_layout.json of this version: re-parse it |", flush=True)
            continue
        artifact, package, aside, n = measure(document, layout, out / stem)
        print(f"| {stem} | {artifact:.3f} | {package:.3f} | {aside:.3f} | {n} |", flush=True)


if __name__ == "__main__":
    main()
