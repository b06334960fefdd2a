"""Candidate mining: the readers' findings (mentions) → noise filter → clusters, one per
canonical term, each with how often the document mentions the term."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..contracts import ParsedDocument
from .findings import READERS, Finding
from .text import canonical

_MAX_TERM_CHARS = 80


def is_noise(term: str) -> bool:
    """Not a term: empty, no letter, too long, or a sentence fragment ending in punctuation."""
    return (
        not any(ch.isalpha() for ch in term)
        or len(term) > _MAX_TERM_CHARS
        or term.endswith((",", ";", "."))
        or term[:1] in "(["
    )


@dataclass
class Cluster:
    canonical: str
    # Findings in reader precedence (READERS), then document order.
    findings: list[Finding]
    mention_count: int

    @property
    def term(self) -> str:
        return self.findings[0].term


def mentions(term: str, texts: list[str]) -> int:
    """Whole-word occurrences; case matters for an abbreviation (PA is not "pa")."""
    flags = 0 if any(ch.isupper() for ch in term[1:]) else re.IGNORECASE
    pattern = re.compile(rf"(?<!\w){re.escape(term)}(?!\w)", flags)
    return sum(len(pattern.findall(text)) for text in texts)


def cluster(document: ParsedDocument, findings: list[Finding]) -> list[Cluster]:
    """Clusters in the order the document first names them (stable across runs)."""
    position = {id(chunk): k for k, chunk in enumerate(document.chunks)}
    groups: dict[str, list[tuple[int, int, Finding]]] = {}
    for order, finding in enumerate(findings):
        if is_noise(finding.term):
            continue
        groups.setdefault(canonical(finding.term), []).append((order, READERS.index(finding.reader), finding))
    texts = [chunk.text for chunk in document.chunks]
    clusters = []
    for name, members in groups.items():
        ranked = [f for _, _, f in sorted(members, key=lambda m: (m[1], position[id(m[2].anchor.chunk)], m[0]))]
        clusters.append(Cluster(name, ranked, mentions(ranked[0].term, texts)))
    first_seen = {c.canonical: min(position[id(f.anchor.chunk)] for f in c.findings) for c in clusters}
    return sorted(clusters, key=lambda c: (first_seen[c.canonical], c.canonical))
