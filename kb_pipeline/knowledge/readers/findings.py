"""What a reader proposes about a term, before clustering and the span check.

Readers (the deterministic ones here; a language model later) only propose: each value comes
with the chunk it claims to be quoted from, and the span check (spans.py) decides whether it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from ...contracts import Chunk


@dataclass(frozen=True, eq=False)
class Quote:
    """A value and the chunk it claims to be quoted from (verbatim, to be checked)."""

    text: str
    chunk: Chunk


# Which reader proposed a finding; for a cluster's full name, earlier wins (a document's own
# abbreviation list beats an expansion met in running text).
Reader = Literal[
    "abbreviation_list",
    "numbered_heading",
    "definition_list",
    "definition_table",
    "api_reference",
    "labelled_definition",
    "section_definition",
    "running_definition",
    "stated_definition",
    "symbol_legend",
    "definition_sentence",
    "inline",
    "model",
]
READERS: tuple[Reader, ...] = get_args(Reader)
# Readers that only propose wording: their findings join the clusters code formed (the term_id
# never moves), and code-only fields (source_wording, the escalation flag) are never taken from them.
PROPOSERS: tuple[Reader, ...] = ("model",)


@dataclass(frozen=True, eq=False)
class Finding:
    term: str
    # Where the term itself stands in the source: the provenance when nothing better is known.
    anchor: Quote
    reader: Reader
    full_name: Quote | None = None
    definition: Quote | None = None
    # A numbered heading naming the term, as printed ("2.1.2. Quantity (Qty)"): kept only from
    # the numbered_heading reader and only if the anchor chunk's heading path holds it.
    source_wording: str | None = None
    # A definition is there but the layout does not say which sentence: these are the ones it
    # could be, left for a model to choose from (and the term `escalated` until one does).
    open_sentences: tuple[Quote, ...] = ()
    # Whether the model step is asked to choose among `open_sentences`; if not, the desk decides
    # (a construction read open: the embedded model accepts its sentence too readily).
    ask_model: bool = True
