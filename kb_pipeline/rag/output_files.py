"""Writing the package: kb_chunks.jsonl, kb_manifest.json, error_report.json, README_kb.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..files import write_text_atomically
from .chunk import JSONL_FIELDS, RagChunk
from .token_estimate import ESTIMATE_DESCRIPTION, HARD_CAP_TOKENS, TARGET_MAX_TOKENS, TARGET_MIN_TOKENS

CHUNKS_FILE = "kb_chunks.jsonl"
MANIFEST_FILE = "kb_manifest.json"
ERROR_REPORT_FILE = "error_report.json"
README_FILE = "README_kb.md"


def write_chunks(path: Path, chunks: list[RagChunk]) -> None:
    write_text_atomically(path, "".join(json.dumps(chunk.record(), ensure_ascii=False) + "\n" for chunk in chunks))


def write_json(path: Path, data: dict[str, Any]) -> None:
    write_text_atomically(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def readme_text(*, doc_id: str, doc_title: str, metrics: dict[str, Any]) -> str:
    by_type = ", ".join(f"{kind}: {count}" for kind, count in metrics["chunks_by_content_type"].items())
    return f"""# Knowledge-base package: {doc_id}

Document title: {doc_title}
Source: the parsed document (`chunks.json`): MinerU's structured JSON normalised with the PDF's text layer (running heads removed, lines MinerU lost recovered, headings from the PDF's own signals). The Markdown output is never used as a source.

## Files

| File | Content |
|---|---|
| `{CHUNKS_FILE}` | One chunk per line, for RAG / vector ingestion ({metrics["total_chunks"]} chunks; {by_type}). |
| `{MANIFEST_FILE}` | Input files found (`input_files_all`) and used (`input_files_used`), statistics, and `split_info` of split tables. |
| `{ERROR_REPORT_FILE}` | Missing images, skipped blocks with reasons, unsupported blocks, parse errors, oversized table chunks. |
| `{README_FILE}` | This file. |

## Chunk fields

Every line of `{CHUNKS_FILE}` has exactly these fields: {", ".join(f"`{name}`" for name in JSONL_FIELDS)}.

- `chunk_id`: `{{doc_id}}:p{{page}}:{{type}}:{{seq}}`, stable for the same input.
- `page_no`: 1-based page number (for a text chunk spanning pages, its first page).
- `content_type`: `text`, `table`, `figure` or `formula`.
- `section_title`: the innermost heading of the chunk's section, whitespace-cleaned.
- `chunk_text`: never empty.
- `image_path`: path of the figure, table or formula image relative to the project root, or `""`.

Document id, title and source PDF are constant per file and live in `{MANIFEST_FILE}`; add them at ingest time if needed.

## How chunks were made

- Token counts are estimated, not tokenized: {ESTIMATE_DESCRIPTION}.
- Text: the parsed document's text, verbatim; the text of one section between two tables, figures or formulas is merged to {TARGET_MIN_TOKENS}–{TARGET_MAX_TOKENS} tokens (hard cap {HARD_CAP_TOKENS}); longer blocks are split at sentence boundaries.
- Tables: one table per chunk, rendered as `Table:` caption, `Columns:` headers and `Row n:` lines. A table over {HARD_CAP_TOKENS} tokens is split at row boundaries; every part repeats the caption (with "Part i/n") and the column headers. **Split information is not in the JSONL** (six fields only): `{MANIFEST_FILE}` → `split_info` maps each part's `chunk_id` to `is_split`, `split_index`, `total_splits` and the source block. A single row over the cap is kept whole and listed in `{ERROR_REPORT_FILE}` → `oversized_table_chunks`.
- Figures: caption, text of the adjacent paragraphs (not the section title; for a numbered figure with no neighbouring paragraph, the sentences citing it), the text read inside the figure, and the image. Panel labels ("Top View", "(a)") are merged into their figure; figures with no number and too little caption or adjacent text are skipped.
- Formulas: LaTeX when MinerU extracted it, else the characters of the PDF's text layer in the formula's box, else the formula image; with the text before and after it. Skipped when there is nothing to describe it.
- Skipped: running page headers, footers, page numbers and margin text; sections such as Contents, List of Figures/Tables, Revision history, `Rev. X`, and printed tables of contents; empty tables without an image.

## Self-check

| Metric | Value |
|---|---|
{chr(10).join(f"| {name} | {json.dumps(value)} |" for name, value in metrics.items())}
"""
