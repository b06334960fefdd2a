"""Precision of each rule reader and each legend construction on the knowledge gold's exhaustive
pages, the tables in docs/QUALITY.md, "Rules, conditions, formulas and symbols".

- A rule reader (readers/rules/rules.py, `RULE_READERS`), settled or open: a candidate is right
  when a gold rule on its page (±1) shares 40 characters with its statement, as
  `score_glossary.py` pairs them. Settled readers under 0.85 would have to leave their
  statements open (the rule of docs/QUALITY.md).
- A legend construction (readers/formulas/legend.py, `LegendKind`): an explanation is right when
  a gold formula variable or a gold claim has its symbol and a meaning that starts as the
  explanation's does (25 characters, as the scorer reads variables).

The yardstick's own comparisons are imported from ../shared/knowledge/score_glossary.py; nothing
of the gold is copied into the product.

    python bench/rule_constructions.py --run RUN_DIR
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from collections import Counter
from pathlib import Path
from types import ModuleType

from _common import SHARED

from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.knowledge.language.analysis import document_analysis
from kb_pipeline.knowledge.readers.formulas.legend import document_math
from kb_pipeline.knowledge.readers.rules.rules import propose_rules

KNOWLEDGE = SHARED / "knowledge"


def _scorer() -> ModuleType:
    spec = importlib.util.spec_from_file_location("score_glossary", KNOWLEDGE / "score_glossary.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pages(gold: dict) -> tuple[int, int] | None:
    pages = gold.get("exhaustive_pages")
    return (pages[0], pages[1]) if pages else None


def measure(run: Path) -> tuple[Counter[str], Counter[str], Counter[str], Counter[str]]:
    sg = _scorer()
    rules_found, rules_right, legends_found, legends_right = Counter(), Counter(), Counter(), Counter()
    for gold_path in sorted((KNOWLEDGE / "gold").glob("*.json")):
        gold = json.loads(gold_path.read_text())
        pages, chunks = _pages(gold), run / gold_path.stem / "chunks.json"
        if pages is None or not chunks.is_file():
            continue
        document = ParsedDocument.model_validate_json(chunks.read_text())
        gold_rules = [(r["page_idx"], sg.sq(r["sentence"])) for r in gold.get("rules") or []]
        meanings = [
            (sg.tex_plain(v.get("symbol")), v.get("meaning_start"))
            for f in gold.get("formulas") or []
            for v in f.get("variables") or []
        ] + [(c.get("term"), c.get("definition_start")) for c in gold.get("claims") or []]
        with document_analysis(document), document_math(document) as math:
            for candidate in propose_rules(document):
                page = candidate.statement.chunk.page_idx
                if not pages[0] <= page <= pages[1]:
                    continue
                key = f"{candidate.reader} ({'settled' if candidate.decided else 'open'})"
                said = sg.sq(candidate.statement.text)
                rules_found[key] += 1
                rules_right[key] += any(abs(page - p) <= 1 and sg.overlap(said, g, 40) for p, g in gold_rules)
            for chunk in document.chunks:
                if not pages[0] <= chunk.page_idx <= pages[1]:
                    continue
                for e in math.explained(chunk):
                    legends_found[e.how] += 1
                    meaning = e.meaning.of(chunk.text)
                    legends_right[e.how] += any(
                        symbol == e.term and sg.starts_like(meaning, start, 25) for symbol, start in meanings
                    )
    return rules_found, rules_right, legends_found, legends_right


def _table(title: str, found: Counter[str], right: Counter[str]) -> None:
    print(f"{title:<28} {'n':>5} {'P':>6}")
    for name in sorted(found):
        print(f"{name:<28} {found[name]:>5} {right[name] / found[name]:>6.2f}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--run", type=Path, required=True, help="a `kb-pipeline run` output folder of the gold documents"
    )
    args = parser.parse_args()
    rules_found, rules_right, legends_found, legends_right = measure(args.run)
    _table("rule reader", rules_found, rules_right)
    _table("legend construction", legends_found, legends_right)


if __name__ == "__main__":
    main()
