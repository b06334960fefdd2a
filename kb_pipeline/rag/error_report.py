"""Everything the packager left out or could not read, for ``error_report.json``.

A left-out piece is named by the artifact's ``chunk_id`` when it is a whole chunk, or by
MinerU's block address ``p<page>_b<position on the page>`` when it is one item (a running
header, a figure, a formula).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ErrorReport:
    missing_images: list[dict[str, str]] = field(default_factory=list)
    skipped_blocks: list[dict[str, str]] = field(default_factory=list)
    # Kept in the report's schema (seed 001); the normaliser reads every MinerU type, so none is.
    unsupported_blocks: list[dict[str, str]] = field(default_factory=list)
    parse_errors: list[dict[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def missing_image(self, block_id: str, kind: str, expected_path: str, reason: str) -> None:
        self.missing_images.append(dict(block_id=block_id, type=kind, expected_path=expected_path, reason=reason))

    def skipped(self, block_id: str, kind: str, reason: str) -> None:
        self.skipped_blocks.append(dict(block_id=block_id, type=kind, reason=reason))

    def to_dict(self, doc_id: str, oversized_table_chunks: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "doc_id": doc_id,
            "summary": {
                "total_missing_images": len(self.missing_images),
                "total_skipped_blocks": len(self.skipped_blocks),
                "total_unsupported_blocks": len(self.unsupported_blocks),
                "total_parse_errors": len(self.parse_errors),
                "total_oversized_table_chunks": len(oversized_table_chunks),
                "total_warnings": len(self.warnings),
            },
            "missing_images": self.missing_images,
            "skipped_blocks": self.skipped_blocks,
            "unsupported_blocks": self.unsupported_blocks,
            "parse_errors": self.parse_errors,
            # Kept whole for semantic completeness, listed here for manual review.
            "oversized_table_chunks": oversized_table_chunks,
            "warnings": self.warnings,
        }
