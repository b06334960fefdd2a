"""The readers measured on the team's own documents. Every decision is a
label: an approval says the reader was right, an edit that it found the entry but said it
imperfectly, a rejection that it was wrong, and an entry an expert added what it missed. Over
the documents and kinds a reviewer marked "review complete" (completion.py):

    precision = (approved + edited) / (approved + edited + rejected)
    recall    = (approved + edited) / (approved + edited + added)

A pending entry counts for neither (a complete mark over one is a reviewer's oversight, shown as
`pending`). `gold_documents` writes the same labels in the knowledge yardstick's gold v2 shape
(shared/knowledge/README.md), so a new version of the readers can be scored on them.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..knowledge.payloads.contracts import BriefContext, FormulaEntry, GlossaryEntry, RuleEntry
from .completion import MARKABLE
from .corpus import Corpus, Found
from .items import VARIABLE_FIELD
from .store import Decision

# A gold claim's and variable's `*_start`: the first words, as the yardstick's files give them.
START_WORDS = 8


@dataclass
class KindScore:
    """One document's (or, `doc_id` "TOTAL", every complete document's) counts for one kind."""

    doc_id: str
    kind: str
    approved: int = 0
    edited: int = 0
    rejected: int = 0
    added: int = 0
    pending: int = 0

    @property
    def found(self) -> int:
        return self.approved + self.edited

    @property
    def precision(self) -> tuple[int, int]:
        return self.found, self.found + self.rejected

    @property
    def recall(self) -> tuple[int, int]:
        return self.found, self.found + self.added

    def count(self, state: str, expert: bool) -> None:
        # An expert's own entry is what the readers missed: it counts for recall once it stands,
        # and never for the readers' precision (rejected or pending, it was none of theirs).
        if expert:
            self.added += state in ("approved", "edited")
        elif state in ("approved", "edited", "rejected", "pending"):
            setattr(self, state, getattr(self, state) + 1)


def ratio(part: tuple[int, int]) -> str:
    """ "2/3 (0.67)"; "-" with nothing to divide by."""
    n, d = part
    return f"{n}/{d} ({n / d:.2f})" if d else "-"


@dataclass
class Scores:
    documents: list[KindScore] = field(default_factory=list)  # by document, then kind
    totals: list[KindScore] = field(default_factory=list)  # by kind, over the documents


def score(
    corpus: Corpus, decisions: dict[str, Decision], complete: set[tuple[str, str]], doc: str | None = None
) -> Scores:
    """Per complete document and kind (`doc`: that document alone), and per kind over them."""
    by_key: dict[tuple[str, str], KindScore] = {key: KindScore(*key) for key in complete if doc in (None, key[0])}
    for found in corpus.items(decisions):
        counts = by_key.get((found.item.doc_id, found.item.kind))
        if counts is not None:
            counts.count(found.status.state, found.item.origin == "expert")
    documents = [by_key[key] for key in sorted(by_key, key=lambda k: (k[0], MARKABLE.index(k[1])))]
    totals: dict[str, KindScore] = {}
    for s in documents:
        total = totals.setdefault(s.kind, KindScore("TOTAL", s.kind))
        for name in ("approved", "edited", "rejected", "added", "pending"):
            setattr(total, name, getattr(total, name) + getattr(s, name))
    return Scores(documents, [totals[k] for k in MARKABLE if k in totals])


def _start(text: str | None) -> str | None:
    return " ".join(text.split()[:START_WORDS]) if text else None


def _approved_values(found: Found, decision: Decision) -> dict[str, str | None]:
    """The entry's fields as approved: the extraction's, with an edit's over them."""
    entity = found.entity
    values: dict[str, str | None] = {}
    if isinstance(entity, GlossaryEntry):
        values = {"term": entity.term, "full_name": entity.full_name, "definition": entity.definition}
    elif isinstance(entity, RuleEntry):
        values = {"statement": entity.statement, "condition": entity.condition, "rule_type": entity.rule_type}
    elif isinstance(entity, FormulaEntry):
        values = {"name": entity.name, "formula_latex": entity.formula_latex}
        values.update({VARIABLE_FIELD + v.symbol: v.meaning for v in entity.variables})
    elif isinstance(entity, BriefContext):
        values = {"title": entity.title}
    if decision.decision == "edit":
        if isinstance(entity, GlossaryEntry) and decision.edited_definition is not None:
            values["definition"] = decision.edited_definition
        values.update(decision.edited_fields or {})
    return values


def gold_documents(corpus: Corpus, decisions: dict[str, Decision], complete: set[tuple[str, str]]) -> dict[str, dict]:
    """doc_id → its gold v2 file: the approved, edited and added entries of each complete kind
    (`claims`, `rules`, `formulas`), the approved title, and `exhaustive_pages` (every page) when
    all three kinds are complete — else the lists score recall only, as the yardstick reads them."""
    kinds: dict[str, set[str]] = defaultdict(set)
    for doc_id, kind in complete:
        kinds[doc_id].add(kind)
    gold: dict[str, dict] = {}
    for doc_id in sorted(kinds):
        pages = corpus.pages(doc_id)
        gold[doc_id] = {
            "file": corpus.source_name(doc_id),
            "complete": False,
            "note": f"made by kb-pipeline knowledge export --format gold from the review desk's decisions on "
            f"{', '.join(k for k in MARKABLE if k in kinds[doc_id])} (marked review complete)",
            **({"exhaustive_pages": [0, pages - 1]} if set(MARKABLE) <= kinds[doc_id] and pages else {}),
            "entries": [],
            **{
                name: []
                for name, kind in (("claims", "term"), ("rules", "rule"), ("formulas", "formula"))
                if kind in kinds[doc_id]
            },
        }
    for found in corpus.items(decisions):
        item = found.item
        decision = decisions.get(item.id)
        if item.doc_id not in gold or decision is None or found.status.state not in ("approved", "edited"):
            continue
        document, values = gold[item.doc_id], _approved_values(found, decision)
        if item.kind == "brief" and values.get("title"):
            document["title"] = values["title"]
        elif item.kind not in kinds[item.doc_id]:
            continue
        elif item.kind == "term":
            document["claims"].append(
                {
                    "term": values["term"],
                    "full_name": values["full_name"] or None,
                    "definition_start": _start(values["definition"]),
                    "page_idx": item.page,
                }
            )
        elif item.kind == "rule":
            document["rules"].append(
                {
                    "page_idx": item.page,
                    "sentence": values["statement"],
                    "condition": values["condition"] or None,
                    "rule_type": values["rule_type"],
                }
            )
        elif item.kind == "formula":
            variables = {k.removeprefix(VARIABLE_FIELD): v for k, v in values.items() if k.startswith(VARIABLE_FIELD)}
            document["formulas"].append(
                {
                    "page_idx": item.page,
                    "name": values["name"],
                    "symbols": list(variables),
                    "variables": [{"symbol": s, "meaning_start": _start(m)} for s, m in variables.items() if m],
                }
            )
    return gold
