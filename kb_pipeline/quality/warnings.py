"""Quality warnings for one parsed document. A warning never fails the document: it is recorded
so that quality cannot drop silently across hundreds of documents.

The checks are listed in `chunk_warnings.CHUNK_CHECKS` (each chunk's, chunk by chunk) and
`document_warnings.DOCUMENT_CHECKS` (the whole document's, after them); the text-layer coverage
warnings come last.
"""

from __future__ import annotations

from ..contracts import Chunk, QualityWarning
from ..normalise.item_text import ItemText
from ..parsing.raw_output import RawOutput
from ..pdf_text import PdfTextLayer
from .chunk_warnings import CHUNK_CHECKS
from .document_warnings import DOCUMENT_CHECKS
from .flags import Flag, WarnedDocument
from .text_coverage import TextCoverage, coverage_warnings, measure_text_coverage


def quality_warnings(
    doc_id: str,
    chunks: list[Chunk],
    raw: RawOutput,
    text_layer: PdfTextLayer,
    coverage: TextCoverage | None = None,
    texts: list[ItemText] | None = None,
) -> list[QualityWarning]:
    """Every warning for one document. `coverage` is the text-layer coverage of these chunks and
    `texts` the items' texts (`item_texts(raw)`) when the caller has them already (the artifact
    check uses the same coverage, the chunker the same texts)."""
    document = WarnedDocument(chunks, raw, text_layer, texts)
    flags = [flag for chunk in chunks for check in CHUNK_CHECKS for flag in check(chunk, document)]
    flags += [flag for check in DOCUMENT_CHECKS for flag in check(document)]
    if coverage is None:
        coverage = measure_text_coverage(chunks, text_layer)
    return [_warning(doc_id, flag) for flag in flags] + coverage_warnings(doc_id, coverage)


def _warning(doc_id: str, flag: Flag) -> QualityWarning:
    chunk = flag.chunk
    return QualityWarning(
        doc_id=doc_id,
        jenis=flag.jenis,
        detail=flag.detail,
        chunk_id=chunk.chunk_id if chunk else None,
        page_idx=chunk.page_idx if chunk and flag.page_idx is None else flag.page_idx,
    )
