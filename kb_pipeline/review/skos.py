"""The active glossary as SKOS (W3C, 2009) in Turtle, the format thesaurus and vocabulary tools
read: one `skos:ConceptScheme` for the knowledge base, one `skos:Concept` per approved term.

- IRIs: `<base><term_id>` for a concept, `<base>glossary` for the scheme; the base is the
  caller's (`DEFAULT_BASE_IRI`, a URN, unless a team publishes under its own domain). The
  term_id is content-derived, so the IRI stays while a re-extraction clusters the term alike; a
  clustering change gives it a new id, and its approval re-attached there is the concept of the
  new IRI, once (its changeNote "re-attached from <old id>" links the two); the old IRI is then
  no concept of the export any more.
- `skos:prefLabel` the full name when there is one, else the term; `skos:altLabel` the term (the
  abbreviation) when the full name is the prefLabel; `skos:definition` the approved definition.
  Every label and the definition carry the one language given (`und`, "undetermined", by
  default, as the TBX: the payloads do not say a document's language), so a concept has exactly
  one prefLabel per language (SKOS S14) and its labels are disjoint (S13).
- `dc:source` "doc_id, page N" (Dublin Core 1.1): DCMI means `dcterms:source` for a resource
  (an IRI), and the document and page are a reference in words here, as in the TBX.
- One `skos:changeNote` per decision in the entry's history: when, who, what (and the reason).
- An approval whose term is in no payload any more (orphaned) stays, `owl:deprecated true`: its
  IRI was published, and deprecating, not dropping, is how a vocabulary retires one (OWL 2's
  annotation, read by SKOS tools); one whose document now says something else keeps the
  approved definition and says so in a `skos:editorialNote` (TBX: both an admittedTerm).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .corpus import Corpus
from .export import ActiveEntry, current_terms, source_reference
from .store import Decision

DEFAULT_BASE_IRI = "urn:kb-pipeline:"
SCHEME_LABEL = "kb-pipeline active glossary"
SOURCE_CHANGED_NOTE = (
    "The document now says something else; this is the definition approved, until an expert decides on the new one."
)


def change_note(decision: Decision) -> str:
    """A decision in words: "2026-01-02T10:00:00+00:00 Rina: reject — not a definition"."""
    note = f"{decision.decided_at} {decision.reviewer}: {decision.decision}"
    if decision.reason:
        note += f" — {decision.reason}"
    if decision.reattached_from:
        note += f" (re-attached from {decision.reattached_from})"
    return note


def to_skos(
    entries: list[ActiveEntry],
    corpus: Corpus,
    histories: Mapping[str, Sequence[Decision]],
    language: str = "und",
    base_iri: str = DEFAULT_BASE_IRI,
) -> str:
    """The Turtle document; `histories` holds each entry's decisions (by term_id), oldest first."""
    # rdflib (~0.1 s to import) only when a glossary is written as SKOS, not wherever the
    # exports are defined (the Dagster code location, the desk).
    from rdflib import OWL, RDF, SKOS, Graph, Literal, URIRef
    from rdflib.namespace import DC

    graph = Graph()
    graph.bind("skos", SKOS)
    graph.bind("dc", DC)
    graph.bind("owl", OWL)
    scheme = URIRef(base_iri + "glossary")
    graph.add((scheme, RDF.type, SKOS.ConceptScheme))
    # The scheme's label is this program's English, not a document's words.
    graph.add((scheme, SKOS.prefLabel, Literal(SCHEME_LABEL, lang="en")))
    terms = current_terms(corpus)
    for entry in entries:
        glossary = terms.get(entry.term_id)
        concept = URIRef(base_iri + entry.term_id)
        graph.add((concept, RDF.type, SKOS.Concept))
        graph.add((concept, SKOS.inScheme, scheme))
        # A flat vocabulary: every concept is a top concept, so tools that browse from the top find it.
        graph.add((concept, SKOS.topConceptOf, scheme))
        graph.add((scheme, SKOS.hasTopConcept, concept))
        full_name = glossary.full_name if glossary else None
        if full_name and full_name != entry.term:
            graph.add((concept, SKOS.prefLabel, Literal(full_name, lang=language)))
            graph.add((concept, SKOS.altLabel, Literal(entry.term, lang=language)))
        else:
            graph.add((concept, SKOS.prefLabel, Literal(entry.term, lang=language)))
        if entry.definition:
            graph.add((concept, SKOS.definition, Literal(entry.definition, lang=language)))
        graph.add((concept, DC.source, Literal(source_reference(entry, glossary))))
        if entry.orphaned:
            graph.add((concept, OWL.deprecated, Literal(True)))
        elif entry.source_changed:
            graph.add((concept, SKOS.editorialNote, Literal(SOURCE_CHANGED_NOTE, lang="en")))
        for decision in histories.get(entry.term_id, ()):
            graph.add((concept, SKOS.changeNote, Literal(change_note(decision))))
    return graph.serialize(format="turtle")
