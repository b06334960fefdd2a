"""Self-check metrics of one packaging run: counted while packaging, reported as a plain dict.

The dict holds only ints, floats, None and dicts of ints, so a Dagster asset can attach it
as output metadata unchanged.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .chunk import CONTENT_TYPES, RagChunk

NOISE_KINDS = ("page_header", "page_footer", "page_number", "page_aside_text")


@dataclass
class PackagingStats:
    low_value_sections: int = 0
    low_value_blocks: int = 0
    figure_blocks: int = 0
    weak_figures: int = 0
    subfigures_merged: int = 0
    figures_with_distinct_nearby_text: int = 0
    empty_tables: int = 0
    skipped_formulas: int = 0
    noise: Counter[str] = field(default_factory=Counter)

    def metrics(
        self,
        chunks: list[RagChunk],
        *,
        oversized_table_chunks: int,
        missing_images: int,
        unsupported_blocks: int,
        parse_errors: int,
    ) -> dict[str, Any]:
        by_type = Counter(chunk.content_type for chunk in chunks)
        figures = by_type["figure"]
        return {
            "total_chunks": len(chunks),
            "chunks_by_content_type": {kind: by_type[kind] for kind in CONTENT_TYPES},
            "skipped_low_value_sections": self.low_value_sections,
            "skipped_low_value_blocks": self.low_value_blocks,
            "figure_blocks_total": self.figure_blocks,
            "skipped_weak_figures": self.weak_figures,
            "weak_figure_share": round(self.weak_figures / self.figure_blocks, 3) if self.figure_blocks else None,
            "subfigure_fragments_merged": self.subfigures_merged,
            "figures_total": figures,
            "figures_nearby_text_differs": self.figures_with_distinct_nearby_text,
            "figures_nearby_text_differs_share": (
                round(self.figures_with_distinct_nearby_text / figures, 3) if figures else None
            ),
            "split_tables": len({chunk.order[:2] for chunk in chunks if chunk.split_info}),
            "oversized_table_chunks": oversized_table_chunks,
            "skipped_empty_tables": self.empty_tables,
            "skipped_formulas": self.skipped_formulas,
            "aside_noise": self.noise["page_aside_text"],
            "noise_blocks_skipped": {kind: self.noise[kind] for kind in NOISE_KINDS},
            "missing_images": missing_images,
            "unsupported_blocks": unsupported_blocks,
            "parse_errors": parse_errors,
        }


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def format_metrics(metrics: dict[str, Any]) -> str:
    """Human-readable self-check block, printed after each run."""
    by_type = metrics["chunks_by_content_type"]
    noise = metrics["noise_blocks_skipped"]
    return "\n".join(
        [
            "Self-check metrics:",
            f"  - total chunks: {metrics['total_chunks']} ("
            + ", ".join(f"{kind} {count}" for kind, count in by_type.items())
            + ")",
            f"  - low-value sections skipped (Contents/List of Figures/Tables/Rev.*): "
            f"{metrics['skipped_low_value_sections']} ({metrics['skipped_low_value_blocks']} blocks)",
            f"  - weak figures skipped: {metrics['skipped_weak_figures']} of {metrics['figure_blocks_total']} "
            f"figure blocks ({_share(metrics['weak_figure_share'])}; target < 10%)",
            f"  - subfigure fragments merged: {metrics['subfigure_fragments_merged']}",
            f"  - figure chunks with nearby text different from the section title: "
            f"{metrics['figures_nearby_text_differs']} of {metrics['figures_total']} "
            f"({_share(metrics['figures_nearby_text_differs_share'])}; target > 90%)",
            f"  - split tables: {metrics['split_tables']}; oversized table chunks (manual review): "
            f"{metrics['oversized_table_chunks']}",
            f"  - empty tables skipped: {metrics['skipped_empty_tables']}; formulas skipped: {metrics['skipped_formulas']}",
            f"  - page_aside_text noise blocks: {metrics['aside_noise']}",
            "  - noise blocks skipped: " + ", ".join(f"{kind} {count}" for kind, count in noise.items()),
            f"  - missing images: {metrics['missing_images']}; unsupported blocks: {metrics['unsupported_blocks']}; "
            f"parse errors: {metrics['parse_errors']}",
        ]
    )
