"""Claim precision per glossary reader and document (issue 34, item 1).

A payload's glossary entry does not record which reader proposed it (the contract has no such
field), so this re-runs each reader on the document and gives an entry to the readers whose
finding for its term quotes the entry's full name or definition. Each reader's entries are then
scored by the knowledge yardstick's own claim rule (score_glossary.py's `score_v2`), on the
gold's exhaustive pages.

    python bench/claims_by_reader.py RUN_DIR KB_DIR GOLD_DIR [GOLD_DIR …]

RUN_DIR holds the documents' chunks.json (any depth), KB_DIR the payloads of
`kb-pipeline extract`; the scorer is read from $KB_SHARED_DIR/knowledge (default ../shared).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

from _common import SHARED

from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.knowledge.document.layout import DocumentLayout, document_layout
from kb_pipeline.knowledge.document.text import canonical
from kb_pipeline.knowledge.extract import DETERMINISTIC_READERS
from kb_pipeline.knowledge.readers.findings import Finding
from kb_pipeline.knowledge.readers.formulas.legend import document_math
from kb_pipeline.pipeline import read_layout


def _scorer():
    spec = importlib.util.spec_from_file_location("score_glossary", SHARED / "knowledge" / "score_glossary.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _readers_of(entry: dict, findings: list[Finding]) -> set[str]:
    """The readers whose finding for the entry's term quotes its full name or definition."""
    values = {v for v in (entry.get("full_name"), entry.get("definition")) if v}
    name = canonical(entry["term"])
    return {
        f.reader
        for f in findings
        if (canonical(f.term) == name or (f.full_name and canonical(f.full_name.text) == name))
        and any(q and q.text in values for q in (f.full_name, f.definition))
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("kb", type=Path)
    parser.add_argument("gold", type=Path, nargs="+")
    args = parser.parse_args()
    score = _scorer()
    chunks = {p.parent.name: p for p in args.run.rglob("chunks.json")}
    totals: dict[str, list[int]] = {}
    print(f"{'doc_id':38s} {'reader':22s} {'right':>5s} {'of':>3s} {'prec':>5s}")
    for gold_dir in args.gold:
        for gold_file in sorted(gold_dir.glob("*.json")):
            doc_id, gold = gold_file.stem, json.loads(gold_file.read_text())
            document = ParsedDocument.model_validate_json(chunks[doc_id].read_bytes())
            layout = read_layout(chunks[doc_id], document)
            pages = DocumentLayout(layout) if layout is not None else None
            with document_layout.given(document, pages), document_math(document):
                findings = [f for read in DETERMINISTIC_READERS for f in read(document)]
            glossary = json.loads((args.kb / doc_id / "glossary.json").read_text())
            by_reader: dict[str, list[dict]] = {}
            for entry in glossary:
                for reader in _readers_of(entry, findings) or {"(none)"}:
                    by_reader.setdefault(reader, []).append(entry)
            for reader, entries in sorted(by_reader.items()):
                r: dict = {}
                score.score_v2(r, gold, entries, [], [], [])
                if not r["clp_n"]:
                    continue
                right, of = r["clp_ok"], r["clp_n"]
                total = totals.setdefault(f"{gold_dir.name} {reader}", [0, 0])
                total[0] += right
                total[1] += of
                print(f"{doc_id:38s} {reader:22s} {right:>5d} {of:>3d} {right / of:>5.2f}")
    print()
    for name, (right, of) in sorted(totals.items()):
        print(f"{'TOTAL ' + name:61s} {right:>5d} {of:>3d} {right / of:>5.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
