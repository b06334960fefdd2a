"""The orientation brief, deterministic part: title, the sentence stating the document's
purpose, and the glossary's abbreviations that sentence names. The contract calls this the one
branch that cannot be span-checked (a summary is not verbatim); here `purpose` is a quoted
sentence, so it is checked like everything else. Its readers: the title's (title.py) and the
purpose's (`PURPOSE_READERS`, the first that finds one wins)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ....contracts import Chunk, ParsedDocument
from ...document.layout import document_layout
from ...document.text import SENTENCE_STOPS, paragraphs, sentences, word_count
from ...language.lexicon import (
    AIM_COPULAS,
    AIM_DETERMINERS,
    AIM_NOUNS,
    AIM_QUALIFIERS,
    BARE_AIM_COPULAS,
    BARE_AIM_NOUNS,
    DOCUMENT_NOUNS,
    POSTPOSED_DEMONSTRATIVES,
    PURPOSE_HEADINGS,
    SELF_DETERMINERS,
    SELF_PREPOSITIONS,
    SELF_REFERENCES,
    alternation,
)
from ...model.injection import addresses_a_model
from ...payloads.contracts import BriefContext, GlossaryEntry, Provenance
from ...payloads.ids import brief_id
from ...payloads.spans import SpanCheck
from ..findings import Quote
from ..glossary.abbreviations import is_abbreviation
from ..glossary.glossary import provenance
from ..glossary.mining import mentions
from .title import read_title

PURPOSE_HEADING = re.compile(PURPOSE_HEADINGS, re.IGNORECASE)
# The document speaking of itself, as its sentence's subject ("This manual covers …", "These
# guidelines aim to …", "In this paper we …", "Le présent rapport a pour objet …", "Dieses
# Dokument beschreibt …", "Pedoman ini mengatur …", "Este informe presenta …"), or naming its
# aim ("The purpose of this standard is …", "Its objective is to …", "L'objectif … est …",
# "Tujuan pedoman ini adalah …"): its statement of purpose. A sentence that only mentions it
# ("… are considered in this handbook") is about the topic. The words are the lexicon's, every
# language's joined in each place.
ABOUT_ITSELF = re.compile(
    rf"^(?:(?:{alternation(SELF_PREPOSITIONS)})\s+)?(?:{alternation(SELF_DETERMINERS)})\s+(?:\w+\s+)?"
    rf"(?:{alternation(DOCUMENT_NOUNS)})s?\b"
    rf"|^(?:{alternation(DOCUMENT_NOUNS)})\s+(?:{alternation(POSTPOSED_DEMONSTRATIVES)})\b"
    rf"|^(?:{alternation(AIM_DETERMINERS)})\s*(?:(?:{alternation(AIM_QUALIFIERS)})\s+)?(?:{alternation(AIM_NOUNS)})s?"
    rf"\s+(?:[\w’']+\s+){{0,5}}?(?:{alternation(AIM_COPULAS)})\b"
    rf"|^(?:{alternation(BARE_AIM_NOUNS)})\s+(?:\w+\s+){{0,4}}?(?:{alternation(BARE_AIM_COPULAS)})\b"
    rf"|^(?:{SELF_REFERENCES})",
    re.IGNORECASE,
)
_MIN_PURPOSE_WORDS = 8
# A table of contents: lines with page numbers, dot leaders.
_CONTENTS_LINE = re.compile(r"\n|\. \. |…|\.{3}")


@dataclass(frozen=True)
class BriefProposal:
    """What the readers propose for the brief: the title's lines and the purpose sentence, each
    quoted from its chunk."""

    title: list[Quote]
    purpose: Quote | None


def _purpose_statement(chunk: Chunk) -> str | None:
    """The chunk's first prose sentence in which the document states its own aim."""
    for para in paragraphs(chunk.text):
        for sentence in sentences(chunk.text, para):
            said = sentence.of(chunk.text)
            # Prose, not a contents line or a heading: a sentence that ends, starting with a
            # capital (or a letter of a script without case).
            if (
                word_count(said) >= _MIN_PURPOSE_WORDS
                and said[:1].isalpha()
                and not said[:1].islower()
                and said.endswith(SENTENCE_STOPS)
                and not _CONTENTS_LINE.search(said)
                and not addresses_a_model(said)
                and ABOUT_ITSELF.search(said)
            ):
                return said
    return None


def _first_purpose(chunks: list[Chunk]) -> Quote | None:
    for chunk in chunks:
        if said := _purpose_statement(chunk):
            return Quote(said, chunk)
    return None


def _text_chunks(document: ParsedDocument) -> list[Chunk]:
    return [c for c in document.chunks if c.kind == "text" and c.text.strip()]


def _purpose_under_its_heading(document: ParsedDocument) -> Quote | None:
    """The first sentence stating the document's aim under a purpose-like heading."""
    return _first_purpose([c for c in _text_chunks(document) if c.heading and PURPOSE_HEADING.search(c.heading)])


def _purpose_anywhere(document: ParsedDocument) -> Quote | None:
    return _first_purpose(_text_chunks(document))


# The purpose readers, in order: the first sentence one of them finds is the purpose. Never the
# first sentence about the topic: none found, None.
PURPOSE_READERS = (_purpose_under_its_heading, _purpose_anywhere)


def propose_brief(document: ParsedDocument) -> BriefProposal:
    """The title's reader (title.py), then the purpose's."""
    with document_layout(document) as layout:
        title = read_title(document, layout)
    return BriefProposal(title=title, purpose=next((q for read in PURPOSE_READERS if (q := read(document))), None))


def build_brief(
    document: ParsedDocument, proposal: BriefProposal, glossary: list[GlossaryEntry], check: SpanCheck
) -> BriefContext:
    """The proposal span-checked: a title line or a purpose that is not verbatim is null."""
    lines = [check.keep(q, entry="title", field="title", branch="summary") for q in proposal.title]
    # The contract's title is one string, the printed title several lines (often several of
    # MinerU's items, or chunks): each line is the verbatim slice checked here, and the title
    # is those lines in reading order joined by a space — a value no single chunk holds, so it is
    # checked line by line, never as the whole; one line failing nulls the title.
    title = " ".join(line for line in lines if line) if lines and all(lines) else None
    purpose = check.keep(proposal.purpose, entry="purpose", field="purpose", branch="summary")
    key_parameters = [e.term for e in glossary if purpose and is_abbreviation(e.term) and mentions(e.term, [purpose])]
    if purpose and proposal.purpose:
        origin = provenance(document, purpose, proposal.purpose)
    else:  # nothing to quote
        origin = Provenance(doc_id=document.doc_id, span="")
    return BriefContext(
        brief_id=brief_id(document.doc_id),
        title=title,
        purpose=purpose,
        key_parameters=key_parameters,
        provenance=origin,
    )
