"""The batch producer's run record, `<run_dir>/manifest.json` (contract "Transport reality"): the
config, one entry per document (parsed or failed), the skipped files, every warning, the totals.

Field order is the file's key order. Written with `json.dumps` of `model_dump()`, as the
record always was, so a float prints as Python prints it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from .contracts import QualityWarning


class ParsedEntry(BaseModel):
    """A document that parsed: its artifact's figures, its checks, its timings."""

    doc_id: str
    source_path: str
    status: Literal["ok"] = "ok"
    version: int
    pages: int
    chunks: int
    chunks_by_kind: dict[str, int]
    warnings: int
    cache_hit: bool
    raw_output_dir: str | None
    # Per artifact check: passed, the first 10 problems, then the check's own metadata.
    checks: dict[str, dict[str, Any]]
    timings: dict[str, float]
    seconds: float


class FailedEntry(BaseModel):
    """A document that did not parse; `expected` is false for a bug rather than a bad document."""

    doc_id: str
    source_path: str
    status: Literal["failed"] = "failed"
    error_type: str
    message: str
    expected: bool
    seconds: float


DocumentEntry = Annotated[ParsedEntry | FailedEntry, Field(discriminator="status")]


class SkippedFile(BaseModel):
    path: str
    reason: str


class RunTotals(BaseModel):
    documents: int
    ok: int
    failed: int
    skipped: int
    warnings: int


class RunManifest(BaseModel):
    run_id: str
    started_at: str
    input: str
    parser_config: dict[str, Any]  # the fingerprint, then every ParserConfig field
    parser_name: str = "mineru"
    parser_version: str
    normaliser_version: str
    documents: list[DocumentEntry]
    skipped: list[SkippedFile]
    warnings: list[QualityWarning]
    finished_at: str
    seconds: float
    totals: RunTotals
    # Where the record is; not part of it.
    run_dir: Path = Field(exclude=True)

    def to_json(self) -> str:
        """The text of manifest.json."""
        return json.dumps(self.model_dump(), ensure_ascii=False, indent=2)
