"""Precision and yield of each definition construction (readers/glossary/constructions.py), the
table in docs/QUALITY.md, "Definitions by construction".

Two yardsticks, neither copied into the product:
- DEFT (../shared/deft): the artifacts and gold sentences `score_deft.py` writes into its work
  folder (run it first: `python ../shared/deft/score_deft.py train --work W`); a reading is right
  when its term is a gold term of its sentence (DEFT's comparison: case, a leading article and
  punctuation aside) and its definition overlaps that pair's definition, and its sentence is
  right when the sentence holding its definition is a definition sentence;
- the knowledge gold (../shared/knowledge/gold): on each document's exhaustive pages, a reading
  is right when a gold claim has its term and a definition that starts as the reading's does.

    python bench/definition_constructions.py --deft W [--deft W2] [--run RUN_DIR]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from _common import SHARED

from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.knowledge.readers.glossary.constructions import CONSTRUCTIONS, Stated, stated_definitions

GOLD = SHARED / "knowledge" / "gold"


def _key(text: str) -> str:
    text = re.sub(r"^(?:the|a|an)\s+", "", text.strip(), flags=re.I)
    return re.sub(r"[^\w]+", "", text.casefold())


def _overlaps(a: tuple[int, int], b: tuple[int, int], a_text: str, b_text: str) -> bool:
    shorter = min(a[1] - a[0], b[1] - b[0])
    inter = min(a[1], b[1]) - max(a[0], b[0])
    first = a_text.split()[:1] == b_text.split()[:1]
    return (shorter > 0 and inter >= 0.5 * shorter) or first


def _deft(work: Path) -> tuple[Counter[str], Counter[str], Counter[str]]:
    found, pair_right, sentence_right = Counter(), Counter(), Counter()
    for path in sorted((work / "artifacts").iterdir()):
        document = ParsedDocument.model_validate_json((path / "chunks.json").read_text())
        units = json.loads((work / "gold" / f"{path.name}.json").read_text())
        by_chunk: dict[str, list[dict]] = {}
        for unit in units:
            by_chunk.setdefault(unit["chunk_id"], []).append(unit)
        for stated in stated_definitions(document):
            name, chunk = stated.construction, stated.at.chunk
            found[name] += 1
            d = stated.definition
            unit = next((u for u in by_chunk[chunk.chunk_id] if u["start"] <= d.start < u["end"] + 1), None)
            if unit is None:
                continue
            sentence_right[name] += unit["gold"]
            term = _key(stated.at.slice(*stated.term).of(chunk.text))
            text = d.of(chunk.text)
            pair_right[name] += any(
                _key(p["term"]) == term
                and _overlaps((d.start, d.end), (p["def_start"], p["def_end"]), text, p["definition"])
                for u in by_chunk[chunk.chunk_id]
                for p in u.get("pairs", [])
            )
    return found, pair_right, sentence_right


def _documents(run: Path) -> tuple[Counter[str], Counter[str]]:
    found, right = Counter(), Counter()
    for gold_path in sorted(GOLD.glob("*.json")):
        gold = json.loads(gold_path.read_text())
        pages = gold.get("exhaustive_pages")
        chunks = run / gold_path.stem / "chunks.json"
        if not pages or not chunks.is_file():
            continue
        document = ParsedDocument.model_validate_json(chunks.read_text())
        claims = [c for c in gold.get("claims", []) if c.get("definition_start")]
        for stated in stated_definitions(document):
            if not pages[0] <= stated.at.chunk.page_idx <= pages[1]:
                continue
            found[stated.construction] += 1
            right[stated.construction] += _matches(stated, claims)
    return found, right


def _matches(stated: Stated, claims: list[dict]) -> bool:
    chunk = stated.at.chunk
    term = _key(stated.at.slice(*stated.term).of(chunk.text))
    said = _key(stated.definition.of(chunk.text))
    return any(_key(c["term"]) == term and said.startswith(_key(c["definition_start"])[:20]) for c in claims)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deft", type=Path, action="append", default=[], help="a score_deft.py work folder")
    parser.add_argument("--run", type=Path, help="a `kb-pipeline run` output folder with the gold documents")
    args = parser.parse_args()
    columns = []
    for work in args.deft:
        found, pairs, sentences = _deft(work)
        columns.append((f"DEFT {work.name}", found, pairs, sentences))
    if args.run:
        found, right = _documents(args.run)
        columns.append(("documents", found, right, None))
    print("construction          trusted | " + " | ".join(f"{name:>28}" for name, *_ in columns))
    print(" " * 30 + "| " + " | ".join(f"{'n  pair P  sent P':>28}" for _ in columns))
    for construction in CONSTRUCTIONS:
        cells = []
        for _, found, right, sentences in columns:
            n = found[construction.name]
            p = f"{right[construction.name] / n:.2f}" if n else "-"
            s = f"{sentences[construction.name] / n:.2f}" if n and sentences is not None else "-"
            cells.append(f"{n:>10} {p:>8} {s:>8}")
        print(f"{construction.name:<21} {str(construction.trusted):>7} | " + " | ".join(cells))


if __name__ == "__main__":
    main()
