"""The interpretation pack, deterministic part: only rules a sentence states outright as a
condition and its consequence ("If …, then …", "Apabila … maka …", "Si …, alors …"). Anything
less explicit is left for a model: an empty pack is acceptable, a wrong rule is not. A rule
about the document's own licence or copyright is not the domain's, and a sentence the document
repeats word for word is one rule (its first occurrence)."""

from __future__ import annotations

import re

from ..contracts import ParsedDocument
from .contracts import RuleEntry, RuleType
from .findings import Quote
from .glossary import provenance
from .ids import rule_id
from .spans import SpanCheck
from .text import squash, text_sentences

_CONDITIONAL = re.compile(
    r"^[•\-–·*\s]*(?P<condition>(?:If|When|Apabila|Jika|Bila|Jikalau|Si|Wenn|Falls|Se|Quando|Cuando)\b.+?)"
    # "then" only right after the condition's comma ("If X, the Y then …" is one clause).
    r"(?:,\s*(?P<consequence>(?:then|entonces|allora)\b.+?)|,?\s+(?P<main>(?:maka|alors|dann)\b.+?))[.!]?$",
    re.DOTALL,
)
_PUBLISHING_TERMS = re.compile(
    r"licen[cs]|copyright|creative commons|all rights reserved|reproduc|lisensi|hak cipta|droits? d'auteur|urheberrecht",
    re.IGNORECASE,
)
_CALCULATION = re.compile(r"calculat|comput|dihitung|perhitungan|rumus|formula|berechn|calcul|cálculo", re.IGNORECASE)


def rule_type(sentence: str) -> RuleType:
    """How a value is computed or sourced, or how to read one."""
    return "calculation" if _CALCULATION.search(sentence) else "interpretation"


def read_rules(document: ParsedDocument, check: SpanCheck) -> list[RuleEntry]:
    rules = []
    seen: set[str] = set()
    for chunk, sentence, said in text_sentences(document):
        text = chunk.text
        m = _CONDITIONAL.match(said)
        if not m or _PUBLISHING_TERMS.search(said) or squash(said) in seen:
            continue
        seen.add(squash(said))
        consequence = "consequence" if m.group("consequence") else "main"
        start = sentence.start + m.start("condition")
        span_text = text[start : sentence.start + m.end(consequence)]
        span = check.keep(Quote(span_text, chunk), entry=span_text[:40], field="provenance.span", branch="rule")
        if span is None:
            continue
        rules.append(
            RuleEntry(
                rule_id=rule_id(document.doc_id, chunk.chunk_id, start),
                rule_type=rule_type(said),
                statement=said,
                condition=m.group("condition"),
                consequence=m.group(consequence),
                provenance=provenance(document, span, Quote(span, chunk)),
            )
        )
    return rules
