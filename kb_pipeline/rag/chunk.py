"""The RAG package's chunk (`RagChunk`; the artifact's is `contracts.Chunk`) and its minimal
six-field JSONL record."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

CONTENT_TYPES = ("text", "table", "figure", "formula")
JSONL_FIELDS = ("chunk_id", "page_no", "content_type", "section_title", "chunk_text", "image_path")


@dataclass
class RagChunk:
    page_no: int
    content_type: str
    section_title: str
    chunk_text: str
    order: tuple[int, int, int]  # (artifact chunk position, item position in it, part): reading order
    image_path: str = ""
    # Kept out of the JSONL record (which holds exactly JSONL_FIELDS); written to the manifest.
    split_info: dict[str, Any] | None = None
    chunk_id: str = ""
    # A table continued from the previous page: that table's (last) chunk. Manifest only.
    continues: RagChunk | None = None

    def record(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in JSONL_FIELDS}


def location_line(page_no: int, image_path: str) -> str:
    """Closing line of figure and formula chunks, so the page and image file are searchable."""
    if image_path:
        return f"Located on page {page_no}, image {PurePosixPath(image_path).name}."
    return f"Located on page {page_no}."


def order_and_number(chunks: list[RagChunk], doc_id: str) -> list[RagChunk]:
    """Sort into reading order and give ids ``{doc_id}:p{page}:{type}:{seq}``, seq per page and type.

    The ids depend only on the input, so re-packaging the same output gives the same ids.
    """
    ordered = sorted(chunks, key=lambda chunk: chunk.order)
    seen: Counter[tuple[int, str]] = Counter()
    for chunk in ordered:
        seen[(chunk.page_no, chunk.content_type)] += 1
        chunk.chunk_id = f"{doc_id}:p{chunk.page_no}:{chunk.content_type}:{seen[(chunk.page_no, chunk.content_type)]}"
    return ordered
