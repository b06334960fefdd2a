"""Everything the packager left out or could not read, for ``error_report.json``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .content_list import Block


def _entry(block: Block, **details: str) -> dict[str, str]:
    return {"block_id": block.block_id, "type": block.kind, **details}


@dataclass
class ErrorReport:
    missing_images: list[dict[str, str]] = field(default_factory=list)
    skipped_blocks: list[dict[str, str]] = field(default_factory=list)
    unsupported_blocks: list[dict[str, str]] = field(default_factory=list)
    parse_errors: list[dict[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def missing_image(self, block: Block, reason: str) -> None:
        self.missing_images.append(_entry(block, expected_path=block.image_ref, reason=reason))

    def skipped(self, block: Block, reason: str) -> None:
        self.skipped_blocks.append(_entry(block, reason=reason))

    def unsupported(self, block: Block) -> None:
        self.unsupported_blocks.append(_entry(block, reason="block type not supported by the packager"))

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
