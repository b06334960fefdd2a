"""The seam between parsing and extraction: `ParsedDocument` and its `Chunk`s (schema 0.3.3).

This module is the single source of truth for the artifact `chunks.json`; `docs/contract.md`
describes it, its field tables generated from these models' descriptions (`contract_docs.py`). Field names, types, defaults and declaration order match the parser contract
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

    chunk_id: str = Field(description="`<doc_id>::<seq:04d>`, in reading order")
    doc_id: str = Field(description="the document's `doc_id`")
    kind: ChunkKind = Field(
        description="this producer emits `text`, `table`, `image` (flash calls figures images); `chart` from "
        "tiers that detect charts; never `equation`"
    )
    text: str = Field(
        description="VERBATIM pieces of the source items, joined by blank lines (table cells by ` | `, rows by "
        "newlines). Excludes the heading line (that is `heading`), except in the one chunk of a section with no "
        "body, whose text is its heading's items (its heading line, or the items a heading line joins, each "
        "verbatim). A paragraph cut at a run-in heading gives its tail to the chunk "
        "after the heading. A formula's characters, a cell-less table's and a contents page's come from the "
        "PDF's text layer inside their boxes. A chunk with no `source_items` holds text-layer lines MinerU lost "
        "(a table's rows, a page that lost most of its lines), one a line, verbatim, in the text layer's order"
    )
    page_idx: int = Field(description="0-based first page, exactly as MinerU reports it")
    page_idxs: list[int] = Field(default_factory=list, description="every page spanned")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def page_no(self) -> int:
        """`page_idx + 1`, the 1-based number a human reads; derived so it can never drift from `page_idx`."""
        return self.page_idx + 1

    section_no: str | None = Field(
        default=None, description='`"2.1.3"`, `"III"`, `"A"` as printed, without the trailing dot'
    )
    heading: str | None = Field(default=None, description="this chunk's own section title after its number, verbatim")
    chapters: list[str] = Field(
        default_factory=list, description="running header of every page the chunk spans, in page order"
    )
    heading_path: list[str] = Field(
        default_factory=list,
        description="enclosing heading lines, whole and verbatim, outermost first, own heading last, e.g. "
        '`["2. PENJELASAN PARAMETER", "2.1. Production Parameter", "2.1.1. Production"]`',
    )
    has_formula: bool = Field(default=False, description="the chunk contains a display formula")
    is_tabular: bool = Field(default=False, description='`kind == "table"`')
    source_items: list[int] = Field(
        default_factory=list,
        description="indices into the raw output's `content_list.json`, the trace back to MinerU's output; "
        "empty for lines recovered from the text layer (no MinerU item holds them)",
    )
    bbox: list[int] | None = Field(
        default=None,
        description="`[x0, y0, x1, y1]` of the first source item, MinerU's 0–1000 page-normalised integers",
    )
    images: list[str] = Field(
        default_factory=list, description="relative to `raw_output_dir`: formula images, table crops, figures"
    )
    latex: list[str] = Field(
        default_factory=list, description="formula markup exactly as MinerU gave it, never cleaned; none on flash"
    )
    table_html: str | None = Field(default=None, description="the table's HTML as MinerU gave it")
    generated_description: str | None = Field(
        default=None,
        description="MODEL-WRITTEN, NOT FROM THE DOCUMENT (advanced tier image analysis): never span-checkable, "
        "never part of `text`, never evidence",
    )


class ParsedDocument(BaseModel):
    """The artifact: one parsed document, self-describing. Metadata first, `chunks` last,
    so a person opening the file sees what produced it without scrolling past the payload."""

    doc_id: str = Field(description="the partition key: the file stem, or a safe slug + digest for unsafe names")
    source_title: str | None = Field(
        default=None,
        description="the document's own title: the PDF metadata Title when meaningful (not empty, not a tool "
        'default such as "Microsoft Word - x.doc" or "Untitled", not a file name or path, not an id such as a '
        "number or a DOI), else MinerU's first title item verbatim, else the file stem "
        "(`kb_pipeline/source_title.py`); `doc_id` may be a sanitised key",
    )
    source_path: str = Field(description="where the PDF was when it was ingested")
    content_hash: str = Field(description="sha256 of the source file's bytes")
    n_pages: int = Field(description="pages MinerU returned")
    parser_name: str = "mineru"
    parser_version: str | None = Field(default=None, description='MinerU\'s own record, e.g. `"4.0.12"`')
    parser_backend: str | None = Field(
        default=None,
        description='`"<tier>/<parse_mode>"` as MinerU recorded what ran, e.g. `"flash/txt"`, never what was requested',
    )
    parser_config: str | None = Field(
        default=None, description="`ParserConfig.fingerprint`: 12 hex of the output-affecting parser settings"
    )
    normaliser_version: str | None = Field(
        default=None, description="12 hex fingerprint of the code that turned MinerU's output into chunks"
    )
    version: int = Field(
        default=1,
        description="this document's artifact version; +1 whenever its content, the config, MinerU or the "
        "normaliser changed",
    )
    schema_version: str = Field(default=SCHEMA_VERSION, description="this contract's version")
    created_at: str | None = Field(default=None, description="ISO 8601, seconds, UTC")
    raw_output_dir: str | None = Field(default=None, description="the untouched MinerU output (its cache entry)")
    chunks: list[Chunk] = Field(description="in reading order")


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
    jenis: WarningCode = Field(description="the warning's code (docs/contract.md explains each)")
    page_idx: int | None = Field(default=None, description="0-based, the page it is about")
    chunk_id: str | None = Field(default=None, description="the chunk it is about, when it is about one")
    detail: str = Field(description="what was found, for a person")


class ParseFailure(BaseModel):
    """A document that did not parse, with a reason a person can act on."""

    doc_id: str
    source_path: str
    error_type: str = Field(
        description="e.g. `EmptyFileError`, `NotAPdfError`, `CorruptPdfError`, `EncryptedPdfError`, "
        "`TooManyPagesError`, `MissingModelWeightsError`, `SourceChangedError`, `SourceMissingError`, "
        "`ParserError`"
    )
    message: str = Field(description="what happened and what to do")
    traceback: str | None = Field(default=None, description="where in the code it was raised")
