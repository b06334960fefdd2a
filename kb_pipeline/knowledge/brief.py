"""The orientation brief, deterministic part: title, the sentence stating the document's
purpose, and the glossary's abbreviations that sentence names. The contract calls this the one
branch that cannot be span-checked (a summary is not verbatim); here `purpose` is a quoted
sentence, so it is checked like everything else."""

from __future__ import annotations

import re

from ..contracts import Chunk, ParsedDocument
from .abbreviations import is_abbreviation
from .contracts import BriefContext, GlossaryEntry, Provenance
from .findings import Quote
from .glossary import provenance
from .ids import brief_id
from .injection import addresses_a_model
from .mining import mentions
from .spans import SpanCheck
from .text import SENTENCE_STOPS, paragraphs, sentences, word_count

PURPOSE_HEADING = re.compile(
    r"\b(?:purpose|objective|aim|scope|introduction|abstract|summary|pendahuluan|tujuan|maksud|ruang lingkup"
    r"|r[ée]sum[ée]|objet|introduc|zweck|einleitung|ziel|zusammenfassung|objetivo|resumen|scopo)|개요|목적|概要|目的|摘要",
    re.IGNORECASE,
)
_MIN_PURPOSE_WORDS = 8
# A table of contents: lines with page numbers, dot leaders.
_CONTENTS_LINE = re.compile(r"\n|\. \. |…|\.{3}")


def _first_statement(chunk: Chunk) -> str | None:
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
            ):
                return said
    return None


def build_brief(document: ParsedDocument, glossary: list[GlossaryEntry], check: SpanCheck) -> BriefContext:
    text_chunks = [c for c in document.chunks if c.kind == "text" and c.text.strip()]
    preferred = [c for c in text_chunks if c.heading and PURPOSE_HEADING.search(c.heading)]
    purpose, source = None, None
    for chunk in [*preferred, *text_chunks]:
        said = _first_statement(chunk)
        if said and (purpose := check.keep(Quote(said, chunk), entry="purpose", field="purpose", branch="summary")):
            source = chunk
            break
    key_parameters = [e.term for e in glossary if purpose and is_abbreviation(e.term) and mentions(e.term, [purpose])]
    if purpose and source:
        origin = provenance(document, purpose, Quote(purpose, source))
    else:  # no text at all: nothing to quote
        origin = Provenance(doc_id=document.doc_id, span="")
    return BriefContext(
        brief_id=brief_id(document.doc_id),
        title=document.source_title,
        purpose=purpose,
        key_parameters=key_parameters,
        provenance=origin,
    )
