"""Glossary entries from clusters, every quoted value through the span check.

Code writes everything but the four fields a model may fill later (term, full_name,
definition, subdomain_tags): ids, source wording, counts, status and conflicts.
"""

from __future__ import annotations

from ....contracts import ParsedDocument
from ...document.text import squash
from ...payloads.contracts import GlossaryEntry, Provenance
from ...payloads.ids import term_id
from ...payloads.spans import SpanCheck
from ..findings import PROPOSERS, Quote
from .mining import Cluster


def _distinct(definitions: list[tuple[str, Quote]]) -> list[tuple[str, Quote]]:
    """One of each definition; one that another contains (a cut-off copy) is the same one."""
    kept: list[tuple[str, Quote]] = []
    for text, quote in definitions:
        s = squash(text)
        if not any(s in squash(k) or squash(k) in s for k, _ in kept):
            kept.append((text, quote))
    return kept


def provenance(document: ParsedDocument, span: str, quote: Quote) -> Provenance:
    chunk = quote.chunk
    # A chunk may span pages; it records no offsets per page, so a span's page is where its chunk starts.
    return Provenance(
        doc_id=document.doc_id, span=span, page=chunk.page_idx, section_no=chunk.section_no, chunk_id=chunk.chunk_id
    )


def glossary_entry(document: ParsedDocument, cluster: Cluster, check: SpanCheck) -> GlossaryEntry | None:
    """None when not even the term's own position is verbatim (nothing to show a reviewer)."""
    anchors = [
        (span, f)
        for f in cluster.findings
        if (span := check.keep(f.anchor, entry=f.term, field="provenance.span", branch="glossary"))
    ]
    if not anchors:
        return None
    findings = [f for _, f in anchors]
    full_name = next(
        (
            (text, f.full_name)
            for f in findings
            if f.full_name and (text := check.keep(f.full_name, entry=f.term, field="full_name", branch="glossary"))
        ),
        None,
    )
    definitions = _distinct(
        [
            (text, f.definition)
            for f in findings
            if f.definition and (text := check.keep(f.definition, entry=f.term, field="definition", branch="glossary"))
        ]
    )
    conflict = len(definitions) > 1
    definition = definitions[0] if len(definitions) == 1 else None
    span, quote = (
        definition or full_name or (definitions[0] if conflict else None) or (anchors[0][0], findings[0].anchor)
    )
    escalated = any(f.open_sentences and f.reader not in PROPOSERS for f in findings)
    code_defined = any(f.definition and f.reader not in PROPOSERS for f in findings)
    if (definition or conflict) and (code_defined or not escalated):
        status = "ok"
    elif escalated:
        # Left open by the layout; a definition here is the model's pick, shown as such.
        status = "escalated"
    else:
        status = "no_definition_found"
    return GlossaryEntry(
        term_id=term_id(document.doc_id, cluster.canonical),
        term=cluster.term,
        full_name=full_name[0] if full_name else None,
        source_wording=next(
            (
                f.source_wording
                for f in findings
                if f.reader == "numbered_heading" and f.source_wording in f.anchor.chunk.heading_path
            ),
            None,
        ),
        definition=definition[0] if definition else None,
        mention_count=cluster.mention_count,
        provenance=provenance(document, span, quote),
        extraction_status=status,
        definition_conflict=conflict,
        # Competing definitions side by side; the pipeline never picks a winner.
        conflict_variants=[text for text, _ in definitions] if conflict else [],
    )
