"""Write the 10-document speed corpus to bench/out/corpus/ (or DIR) and list it.

    .venv/bin/python bench/corpus.py [DIR]

Six fixture PDFs (demo1 13 pages, demo2 6, demo3 10, chem_intro 1, unittest_test 1, sample 2)
plus four generated with reportlab: the project's two drop-folder samples
(`kb_pipeline_tests.samples`: STD_2026_006_parameter_produksi 2 pages, pump_maintenance_manual 1) and
two reports from `_common.report_pdf` (8 and 16 pages: numbered headings, paragraphs, a ruled
table every third page, a formula line every second page). 60 pages in all.
"""

import sys
from pathlib import Path

import _common

if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else _common.CORPUS_DIR
    pdfs = _common.build_corpus(folder)
    rows = [[p.name, _common.pdf_pages(p), p.stat().st_size] for p in pdfs]
    print(_common.table(["document", "pages", "bytes"], rows))
    print(f"{len(pdfs)} documents, {sum(r[1] for r in rows)} pages in {folder}")
