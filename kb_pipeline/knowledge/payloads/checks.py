"""The knowledge payloads' own checks, on what was written (the asset's checks call them): every
quoted value is verbatim in the chunk its provenance names, and every id a payload refers to is
one the payloads define."""

from __future__ import annotations

from bisect import bisect_right

from ...contracts import Chunk, ParsedDocument
from .contracts import Payloads, Provenance
from .spans import layout_free, locate


class _Anywhere:
    """Whether a value is verbatim in some chunk of the document, for the values whose own chunk
    an entry does not record. The document's text is flattened once (as `locate` flattens a
    chunk) into one string per hyphen mode, so each value costs one search, not one per chunk."""

    def __init__(self, chunks: list[Chunk]):
        self.chunks = chunks
        self.texts: list[tuple[str, list[int]]] = []
        for join in (False, True):
            pieces, starts, at = [], [], 0
            for chunk in chunks:
                starts.append(at)
                for source in (chunk.text, chunk.heading or "", *chunk.heading_path):
                    piece = layout_free(source, join_hyphenated=join)[0] + "\x00"
                    pieces.append(piece)
                    at += len(piece)
            self.texts.append(("".join(pieces), starts))

    def holds(self, value: str) -> bool:
        wanted = " ".join(value.replace("\u00ad", "").split())
        if not wanted:
            return False
        for text, starts in self.texts:
            at = text.find(wanted)
            while at >= 0:
                if locate(value, self.chunks[bisect_right(starts, at) - 1]) is not None:
                    return True
                at = text.find(wanted, at + 1)
        return False

    def holds_lines(self, value: str) -> bool:
        """`value` is lines joined by a space (the brief's title), each verbatim in some chunk:
        some cut of it at its spaces into pieces found anywhere."""
        words = value.split()
        failed: set[int] = set()

        def rest_holds(start: int) -> bool:
            if start == len(words):
                return True
            if start in failed:
                return False
            for end in range(len(words), start, -1):
                if self.holds(" ".join(words[start:end])) and rest_holds(end):
                    return True
            failed.add(start)
            return False

        return bool(words) and rest_holds(0)


# (owner, field, provenance, value, whether the value's own chunk is recorded)
_Quoted = tuple[str, str, Provenance, str | None, bool]


def _quoted(payloads: Payloads) -> list[_Quoted]:
    """Every quoted value of the payloads with the provenance that names its chunk. An entry
    records one chunk, its span's, and a formula's variable the one its meaning was read in when
    that is another; a glossary full name or a competing definition read in another chunk (an
    abbreviation list elsewhere), and the title (its lines, from any chunks, joined by a space),
    name none."""
    quoted: list[_Quoted] = []
    for e in payloads.glossary:
        quoted += [(e.term_id, "provenance.span", e.provenance, e.provenance.span, True)]
        quoted += [(e.term_id, "definition", e.provenance, e.definition, True)]
        quoted += [(e.term_id, "full_name", e.provenance, e.full_name, False)]
        quoted += [
            (e.term_id, f"conflict_variants[{k}]", e.provenance, v, False) for k, v in enumerate(e.conflict_variants)
        ]
    for r in payloads.interpretation_pack:
        for field, value in (
            ("provenance.span", r.provenance.span),
            ("statement", r.statement),
            ("condition", r.condition),
            ("consequence", r.consequence),
        ):
            quoted.append((r.rule_id, field, r.provenance, value, True))
    for f in payloads.formulas:
        for field, value in (
            ("provenance.span", f.provenance.span),
            ("formula_latex", f.formula_latex),
            ("name", f.name),
            ("unit", f.unit),
        ):
            quoted.append((f.formula_id, field, f.provenance, value, True))
        for v in f.variables:
            quoted += [(f.formula_id, f"variables[{v.symbol}].symbol", f.provenance, v.symbol, True)]
            # A meaning read in another chunk than the formula's names its own (`meaning_chunk_id`).
            source = f.provenance.model_copy(update={"chunk_id": v.meaning_chunk_id}) if v.meaning_chunk_id else None
            quoted += [(f.formula_id, f"variables[{v.symbol}].meaning", source or f.provenance, v.meaning, True)]
    brief = payloads.brief_context
    quoted += [(brief.brief_id, "provenance.span", brief.provenance, brief.provenance.span or None, True)]
    quoted += [(brief.brief_id, "purpose", brief.provenance, brief.purpose, True)]
    quoted += [(brief.brief_id, "title", brief.provenance, brief.title, False)]
    return quoted


def span_problems(document: ParsedDocument, payloads: Payloads) -> list[str]:
    """Every quoted value that is not found in the chunk its provenance names (the span check's
    own `locate`, so the same layout differences are allowed); a value whose own chunk is not
    recorded, in some chunk of the document."""
    chunks = {chunk.chunk_id: chunk for chunk in document.chunks}
    anywhere: _Anywhere | None = None
    problems = []
    for owner, field, origin, value, recorded in _quoted(payloads):
        if value is None:
            continue
        chunk = chunks.get(origin.chunk_id or "")
        if chunk is not None and locate(value, chunk) is not None:
            continue
        if not recorded:
            anywhere = anywhere or _Anywhere(document.chunks)
            if anywhere.holds_lines(value) if field == "title" else anywhere.holds(value):
                continue
            problems.append(f"{owner}.{field}: not found in any chunk: {value[:80]!r}")
        elif chunk is None:
            problems.append(f"{owner}.{field}: its chunk {origin.chunk_id!r} is not in the document")
        else:
            problems.append(f"{owner}.{field}: not found in {chunk.chunk_id}: {value[:80]!r}")
    return problems


def link_problems(payloads: Payloads) -> list[str]:
    """Every id a payload refers to that no payload defines."""
    terms = {e.term_id for e in payloads.glossary}
    formulas = {f.formula_id for f in payloads.formulas}
    problems = [
        f"{e.term_id}.defining_formula_id → {e.defining_formula_id}"
        for e in payloads.glossary
        if e.defining_formula_id and e.defining_formula_id not in formulas
    ]
    problems += [
        f"{f.formula_id}.variables[{v.symbol}].term_id → {v.term_id}"
        for f in payloads.formulas
        for v in f.variables
        if v.term_id and v.term_id not in terms
    ]
    for r in payloads.interpretation_pack:
        problems += [f"{r.rule_id}.term_ids → {t}" for t in r.term_ids if t not in terms]
        problems += [f"{r.rule_id}.formula_ids → {f}" for f in r.formula_ids if f not in formulas]
    problems += [
        f"review_queue[{row.rank}].term_id → {row.term_id}" for row in payloads.review_queue if row.term_id not in terms
    ]
    return problems
