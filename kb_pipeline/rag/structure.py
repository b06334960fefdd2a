"""What the parsed artifact knows about a document that MinerU's content list does not.

The RAG package is built from MinerU's output, but two things are better known after our
normaliser ran: which section each block belongs to (numbering-derived depth, headings MinerU
did not mark as titles) and, on the flash tier, a formula's characters (read from the PDF's text
layer; MinerU gives only an image). Blocks are addressed as the packager reads them:
(1-based page number, position on the page).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..contracts import ParsedDocument
from ..normalise.chunker import formula_text
from ..parsing.cache import COMPLETE_MARKER
from ..parsing.mineru_adapter import SOURCE_COPY
from ..parsing.raw_output import RawOutput, load_raw_output
from ..pdf_text import PDFIUM_LOCK, PdfTextLayer

BlockKey = tuple[int, int]


@dataclass(frozen=True)
class DocumentStructure:
    # The heading line of the innermost section each block is in.
    section_titles: dict[BlockKey, str] = field(default_factory=dict)
    # A display formula's characters from the PDF's text layer, when MinerU gave no markup.
    formula_texts: dict[BlockKey, str] = field(default_factory=dict)


def structure_from_artifact(document: ParsedDocument, raw: RawOutput, text_layer: PdfTextLayer) -> DocumentStructure:
    structure = DocumentStructure()
    for chunk in document.chunks:
        for index in chunk.source_items:
            page_idx, position = raw.positions[index]
            key = (page_idx + 1, position)
            if chunk.heading_path:
                structure.section_titles[key] = chunk.heading_path[-1]
            item = raw.items[index]
            if item["type"] == "equation" and not item.get("text"):
                text = formula_text(text_layer, item)
                if text:
                    structure.formula_texts[key] = text
    return structure


def is_our_cache_entry(raw_dir: Path) -> bool:
    """A complete entry of our parse cache (parsing.cache): MinerU's output, its completion
    marker and the PDF it parsed — something our normaliser can read."""
    return (raw_dir / COMPLETE_MARKER).is_file() and (raw_dir / SOURCE_COPY).is_file()


def structure_for_raw_output(raw_dir: Path, document: ParsedDocument) -> DocumentStructure:
    """The structure of `document`, the artifact normalised from the cache entry `raw_dir`."""
    with PDFIUM_LOCK, PdfTextLayer(raw_dir / SOURCE_COPY) as text_layer:
        return structure_from_artifact(document, load_raw_output(raw_dir), text_layer)
