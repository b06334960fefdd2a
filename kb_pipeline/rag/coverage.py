"""How much of the PDF's text layer a package holds, measured as the artifact's is
(`quality.text_coverage`), so the two compare line for line.

The package's records are read in order as one text, each section title once where it starts:
a line that a chunk boundary cut in two (a long paragraph split at a sentence) is still found,
as it is in the artifact. The artifact chunks the package drops by design (low-value sections)
can be added back, to check that nothing else was lost.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..contracts import Chunk, make_chunk_id
from ..pdf_text import PdfTextLayer
from ..quality.text_coverage import TextCoverage, measure_text_coverage


def package_coverage(
    records: Iterable[dict[str, Any]], text_layer: PdfTextLayer, dropped: Iterable[Chunk] = ()
) -> TextCoverage:
    """`records`: the package's JSONL records; `dropped`: artifact chunks to count as present."""
    chunks: list[Chunk] = []
    section = None
    for record in records:
        lines = [record["chunk_text"]]
        if record["section_title"] != section:
            section = record["section_title"]
            lines.insert(0, section)
        chunks.append(
            Chunk(
                chunk_id=make_chunk_id("package", len(chunks)),
                doc_id="package",
                kind="text",
                text="\n".join(lines),
                page_idx=record["page_no"] - 1,
            )
        )
    return measure_text_coverage([*chunks, *dropped], text_layer)
