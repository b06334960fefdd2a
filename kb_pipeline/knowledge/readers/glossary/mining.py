"""Candidate mining: the readers' findings (mentions) → noise filter → clusters, one per
canonical term, each with how often the document mentions the term."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ....contracts import ParsedDocument
from ...document.math_text import is_symbol
from ...document.text import canonical
from ..findings import PROPOSERS, READERS, Finding
from .abbreviations import is_abbreviation

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


def _is_abbreviation_like(term: str) -> bool:
    return any(ch.isupper() for ch in term[1:])


def mentions(term: str, texts: list[str]) -> int:
    """Whole-word occurrences; case matters for an abbreviation (PA is not "pa")."""
    return mention_counts([term], texts)[term]


_TOKEN = re.compile(r"\w+|[^\w\s]")


def _term_tokens(term: str) -> tuple[list[str], bool]:
    """A term as the token sequence a mention must repeat, and whether case matters (it does for
    an abbreviation: PA is not "pa"); both indexes below look terms up so."""
    sensitive = _is_abbreviation_like(term)
    return _TOKEN.findall(term if sensitive else term.casefold()), sensitive


def mention_counts(terms: list[str], texts: list[str]) -> dict[str, int]:
    """Whole-word occurrences of every term (token-wise, so "R&D" also matches "R & D")."""
    index = MentionIndex(texts)
    return {term: index.count(term) for term in terms}


class MentionIndex:
    """`mentions(term, texts)` for many terms asked one at a time: the texts are tokenised once
    (on the first question), each token's positions indexed, each term's count kept."""

    def __init__(self, texts: list[str]):
        self._texts = texts
        self._tokens: list[tuple[list[str], list[str]]] | None = None
        self._at: dict[str, list[tuple[int, int]]] = {}
        self._counts: dict[str, int] = {}

    def _index(self) -> list[tuple[list[str], list[str]]]:
        self._tokens = []
        for n, text in enumerate(self._texts):
            tokens = _TOKEN.findall(text)
            folded = [t.casefold() for t in tokens]
            self._tokens.append((tokens, folded))
            for k, token in enumerate(folded):
                self._at.setdefault(token, []).append((n, k))
        return self._tokens

    def count(self, term: str) -> int:
        if term not in self._counts:
            texts = self._tokens if self._tokens is not None else self._index()
            wanted, sensitive = _term_tokens(term)
            found = 0
            for n, k in self._at.get(wanted[0].casefold(), []) if wanted else []:
                tokens, folded = texts[n]
                found += (tokens if sensitive else folded)[k : k + len(wanted)] == wanted
            self._counts[term] = found
        return self._counts[term]


def _expansions(members: list[tuple[int, int, Finding]]) -> set[str]:
    return {canonical(f.full_name.text) for _, _, f in members if f.full_name}


def _plural_of(name: str, names: dict[str, list[tuple[int, int, Finding]]]) -> str | None:
    """ "plcs" of "plc": an abbreviation's plural joins its singular's cluster — unless their
    expansions say otherwise (QAS "… assurance scheme" is not QA "… assurance")."""
    singular = name[:-1]
    if not (name.endswith("s") and " " not in name and singular in names):
        return None
    if not is_abbreviation(names[name][0][2].term[:-1]):
        return None
    plural, single = _expansions(names[name]), _expansions(names[singular])
    if plural and single and not any(p[: len(s)] == s and len(p) - len(s) <= 2 for p in plural for s in single):
        return None
    return singular


def _split_symbols_by_case(groups: dict[str, list[tuple[int, int, Finding]]]) -> None:
    """Symbols of the formulas that differ only in case are different symbols ("tn" and "Tn", "b"
    and "B"): each spelling a legend explains is its own cluster (an abbreviation written in
    either case, "PLC" and "plc", stays one). The spelling the canonical form writes (else the
    first found) keeps the canonical, so a symbol written one way keeps its term_id; another is
    canonical as printed."""
    for name, members in list(groups.items()):
        spellings = list(dict.fromkeys(unicodedata.normalize("NFKC", f.term) for _, _, f in members))
        legends = {unicodedata.normalize("NFKC", f.term) for _, _, f in members if f.reader == "symbol_legend"}
        if len(spellings) < 2 or not all(s in legends and is_symbol(s) for s in spellings):
            continue
        keeper = name if name in spellings else spellings[0]
        for spelling in spellings:
            if spelling != keeper:
                groups[spelling] = [m for m in members if unicodedata.normalize("NFKC", m[2].term) == spelling]
        groups[name] = [m for m in members if unicodedata.normalize("NFKC", m[2].term) == keeper]


def cluster(document: ParsedDocument, findings: list[Finding]) -> list[Cluster]:
    """Clusters in the order the document first names them (stable across runs).

    A cluster's canonical — the input of its term_id — is derived by code from the deterministic
    readers' terms. A model's finding joins the cluster whose term or full name it names; it
    starts a cluster of its own only for a term no deterministic reader found."""
    position = {chunk.chunk_id: k for k, chunk in enumerate(document.chunks)}

    def where(finding: Finding) -> int:
        return position.get(finding.anchor.chunk.chunk_id, len(position))

    groups: dict[str, list[tuple[int, int, Finding]]] = {}
    proposed = []
    for order, finding in enumerate(findings):
        if is_noise(finding.term):
            continue
        member = (order, READERS.index(finding.reader), finding)
        if finding.reader in PROPOSERS:
            proposed.append(member)
        else:
            groups.setdefault(canonical(finding.term), []).append(member)
    _split_symbols_by_case(groups)
    for name in list(groups):
        singular = _plural_of(name, groups)
        if singular:
            groups[singular] += groups.pop(name)
    aliases = {
        canonical(f.full_name.text): name for name, members in groups.items() for _, _, f in members if f.full_name
    }
    for member in proposed:
        name = canonical(member[2].term)
        groups.setdefault(name if name in groups else aliases.get(name, name), []).append(member)
    texts = [chunk.text for chunk in document.chunks]
    ranked = {
        name: [f for _, _, f in sorted(members, key=lambda m: (m[1], where(m[2]), m[0]))]
        for name, members in groups.items()
    }
    spellings = {name: list(dict.fromkeys(f.term for f in members)) for name, members in ranked.items()}
    counts = mention_counts([t for terms in spellings.values() for t in terms], texts)
    clusters = [
        # An abbreviation's plural counts as a mention of it ("WTPs"); other spellings are the same words.
        Cluster(
            name,
            members,
            counts[members[0].term] + sum(counts[t] for t in spellings[name] if canonical(t) == name + "s"),
        )
        for name, members in ranked.items()
    ]
    first_seen = {c.canonical: min(where(f) for f in c.findings) for c in clusters}
    return sorted(clusters, key=lambda c: (first_seen[c.canonical], c.canonical))


class TermIndex:
    """Many terms indexed once by their first token, to ask which of them each of many texts
    mentions (the link stage: every rule against every term), token-wise as `mention_counts`."""

    def __init__(self, terms: list[str]):
        self._by_first: dict[str, list[tuple[list[str], bool, str]]] = {}
        for term in dict.fromkeys(terms):
            tokens, sensitive = _term_tokens(term)
            if tokens:
                self._by_first.setdefault(tokens[0].casefold(), []).append((tokens, sensitive, term))

    def mentioned(self, text: str) -> set[str]:
        """The terms the text mentions, in one pass over its tokens."""
        found: set[str] = set()
        tokens = _TOKEN.findall(text)
        folded = [t.casefold() for t in tokens]
        for k, first in enumerate(folded):
            for wanted, sensitive, term in self._by_first.get(first, ()):
                if (tokens if sensitive else folded)[k : k + len(wanted)] == wanted:
                    found.add(term)
        return found
