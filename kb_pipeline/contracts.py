"""The seam between parsing and extraction: `ParsedDocument` and its `Chunk`s (schema 0.3.3).

This module is the single source of truth for the artifact `chunks.json`; `docs/contract.md`
describes it. Field names, types, defaults and declaration order match the parser contract
(`contracts.py`, schema 0.3.3) exactly, because pydantic serialises in declaration order and
consumers of 0.3.x read these files as they are.

Two rules run opposite ways and both are load-bearing downstream:
- `Chunk.text` is VERBATIM. Extraction locates quoted spans literally inside it; reflowing or
  cleaning it makes that lookup fail silently.
- `Chunk.latex` is never cleaned or dropped. Extraction's formula guard validates against it.

Besides the artifact, this module holds the two records a run writes next to it:
`QualityWarning` (a document parsed, but something in it deserves a look) and `ParseFailure`
(a document did not parse; the reason a person can act on).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, computed_field

# `equation` stays in the enum so the 0.3.x wire format is unchanged, but this producer never
# emits it: a formula stays inside the text chunk that introduces and explains it
# (`has_formula=True`, markup in `latex`). See docs/decisions.md, "kind=equation".
ChunkKind = Literal["text", "table", "chart", "equation", "image"]

# 0.3.3 — adds the computed 1-based `page_no`. 0.3.2 — adds `source_title`.
# 0.3.1 — adds `normaliser_version`. All additive: every 0.3.0 consumer reads them unchanged.
SCHEMA_VERSION = "0.3.3"

# `<doc_id>::<seq>`, seq zero-padded to 4 — the separator agreed with extraction (docs/decisions.md).
CHUNK_ID_SEPARATOR = "::"
CHUNK_ID_PATTERN = re.compile(r"^(?P<doc_id>.+)::(?P<seq>\d{4,})$")


def make_chunk_id(doc_id: str, seq: int) -> str:
    return f"{doc_id}{CHUNK_ID_SEPARATOR}{seq:04d}"


class Chunk(BaseModel):
    """One unit of a parsed document, ready for the extraction stage."""

    chunk_id: str
    doc_id: str
    kind: ChunkKind
    # VERBATIM pieces of the source items; excludes the heading line (that is `heading`).
    text: str
    # 0-based, exactly as MinerU reports it; `page_no` is the 1-based number a human reads.
    page_idx: int
    page_idxs: list[int] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def page_no(self) -> int:
        """1-based page number, derived so it can never drift from `page_idx`."""
        return self.page_idx + 1

    section_no: str | None = None
    # This chunk's own section title, verbatim as the document writes it.
    heading: str | None = None
    # Running header of every page the chunk spans, in page order.
    chapters: list[str] = Field(default_factory=list)
    # Enclosing headings, outermost first, each verbatim (e.g. "2.1. Production Parameter").
    heading_path: list[str] = Field(default_factory=list)
    has_formula: bool = False
    is_tabular: bool = False
    # Indices into MinerU's content_list.json: the trace back to the raw output.
    source_items: list[int] = Field(default_factory=list)
    # [x0, y0, x1, y1] of the first source item, MinerU's 0–1000 page-normalised integers.
    bbox: list[int] | None = None
    # Relative to `ParsedDocument.raw_output_dir`.
    images: list[str] = Field(default_factory=list)
    # Source markup as MinerU gave it, never cleaned. Empty when MinerU gave none (flash tier).
    latex: list[str] = Field(default_factory=list)
    table_html: str | None = None
    # MODEL-WRITTEN, NOT FROM THE DOCUMENT. Never span-checkable; never part of `text`.
    generated_description: str | None = None


class ParsedDocument(BaseModel):
    """The artifact: one parsed document, self-describing. Metadata first, `chunks` last,
    so a person opening the file sees what produced it without scrolling past the payload."""

    doc_id: str
    # The document's name as a human reads it (the original file stem); `doc_id` may be a
    # sanitised key when the file name is not safe as one.
    source_title: str | None = None
    source_path: str
    content_hash: str  # sha256 of the source file's bytes
    n_pages: int
    parser_name: str = "mineru"
    parser_version: str | None = None
    # What MinerU reports it ran, e.g. "flash/txt" (tier/parse mode), never what was requested.
    parser_backend: str | None = None
    parser_config: str | None = None  # ParserConfig.fingerprint
    normaliser_version: str | None = None
    version: int = 1
    schema_version: str = SCHEMA_VERSION
    created_at: str | None = None
    raw_output_dir: str | None = None
    chunks: list[Chunk]


# Warning codes. The contract's three keep their names (`jenis` is read downstream); ours
# follow the same style so one column holds them all. docs/contract.md explains each.
WarningCode = Literal[
    "latex_tanpa_angka",  # formula markup with no digits (symbolic; nothing to cross-check)
    "tabel_kosong",  # a table detected but empty
    "chart_tanpa_konteks",  # a figure/chart with neither content nor caption
    "formula_tanpa_latex",  # a formula for which the parser gave no markup (flash tier)
    "angka_tidak_cocok",  # a number in a formula/table absent from the PDF's own text layer
    "dokumen_tanpa_teks",  # no text chunk at all: e.g. a scanned PDF read as text
    "teks_rusak",  # mojibake, (cid:NN) glyph codes or control characters in text
    "chunk_duplikat",  # two chunks with the same non-trivial text
    "teks_hilang",  # lines of the PDF's text layer on a page that are not in the artifact
    "teks_ocr",  # a page whose text was read by OCR (Tesseract) from its image: machine-read
    "glif_pribadi",  # private-use code points (U+E000–U+F8FF): glyphs with no standard meaning
    "tabel_tanpa_sel",  # a "table" MinerU gave no cells for: its text is kept as a text chunk
    "kolom_tercampur",  # a block read across both columns of a page, their lines interleaved
]


class QualityWarning(BaseModel):
    """Something worth a look in a document that did parse. Never fails the document."""

    doc_id: str
    jenis: WarningCode
    page_idx: int | None = None
    chunk_id: str | None = None
    detail: str


class ParseFailure(BaseModel):
    """A document that did not parse, with a reason a person can act on."""

    doc_id: str
    source_path: str
    error_type: str
    message: str
    traceback: str | None = None
