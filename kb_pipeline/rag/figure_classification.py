"""Three-tier figure classification and the searchable text of a figure chunk.

- formal: has a figure number ("Figure 29", "Fig. 3", "图1-2"), or a caption plus real
  adjacent text of at least 50 characters together → one chunk;
- subfigure: no number and a caption that is only a panel label ("MLC Page", "Top View",
  "(a)") → merged into the nearest formal figure on the same page;
- weak: no number, and no caption and no adjacent text, or under 30 characters of
  caption + adjacent text in all → skipped.

Deviation from the reference order of checks: the subfigure test runs before the
"caption + context" test, because a panel label next to a long paragraph is still a panel
and must not become a figure chunk of its own.
"""

from __future__ import annotations

import re
from enum import StrEnum

from .chunk import location_line
from .text_cleaning import truncate_at_word
from .token_estimate import HARD_CAP_TOKENS, estimate_tokens

FORMAL_MIN_CHARS = 50
WEAK_MAX_CHARS = 30
VALID_CAPTION_MIN_CHARS = 6
INNER_TEXT_MAX_CHARS = 300

_FIGURE_WORD = r"(?<![A-Za-z])(?:fig(?:ure)?s?\.?|图|圖)\s*"
_FIGURE_NUMBER = re.compile(_FIGURE_WORD + r"([A-Z]?\d+(?:[.\-–]\d+)*|[IVX]+\b)", re.IGNORECASE)
SUBFIGURE_LABEL_PATTERNS = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"^(MLC|TLC|SLC)\s+Page$",
        r"^(Top|Bottom|Side|Front|Enlarged)\s+View$",
        r"^Detail\s*[A-Z]$",
        r"^Zoom\s*(In|Out)$",
        r"^Close[\s-]*up$",
        r"^\(?[a-h]\)$",  # panel letters "(a)", "b)"
    )
)


class FigureTier(StrEnum):
    FORMAL = "formal"
    SUBFIGURE = "subfigure"
    WEAK = "weak"


def figure_number(text: str) -> str | None:
    """The number in "Fig. 3" / "Figure 2-1" / "图1-2", or None."""
    match = _FIGURE_NUMBER.search(text)
    return match.group(1) if match else None


def citation_pattern(number: str) -> re.Pattern[str]:
    """Matches a citation of figure ``number`` ("Fig. 2a" cites 2; "Fig. 21" and "Fig. 2.1" do not)."""
    return re.compile(_FIGURE_WORD + re.escape(number) + r"(?!\d|[.\-–]\d)", re.IGNORECASE)


def is_subfigure_label(caption: str) -> bool:
    return any(pattern.match(caption.strip()) for pattern in SUBFIGURE_LABEL_PATTERNS)


def classify_figure(caption: str, nearby_text: str) -> FigureTier:
    """``nearby_text`` is real adjacent paragraph text, "" when there is none."""
    caption = caption.strip()
    nearby_text = nearby_text.strip()
    if figure_number(caption) is not None or figure_number(nearby_text) is not None:
        return FigureTier.FORMAL
    if is_subfigure_label(caption):
        return FigureTier.SUBFIGURE
    has_valid_caption = len(caption) >= VALID_CAPTION_MIN_CHARS
    total = len(caption) + len(nearby_text)
    if has_valid_caption and nearby_text and total >= FORMAL_MIN_CHARS:
        return FigureTier.FORMAL
    if (not has_valid_caption and not nearby_text) or total < WEAK_MAX_CHARS:
        return FigureTier.WEAK
    return FigureTier.FORMAL


def figure_chunk_text(
    *,
    caption: str,
    nearby_text: str,
    inner_text: str,
    subfigure_labels: list[str],
    page_no: int,
    image_path: str,
) -> tuple[str, bool]:
    """The figure chunk's text, and whether it holds the whole text read inside the figure: it
    does unless that would put the chunk over the hard cap (then an excerpt, and the caller keeps
    the whole text elsewhere)."""

    def render(inner: str) -> str:
        lines = [f"Figure: {caption}" if caption else f"Figure (no caption) on page {page_no}"]
        if nearby_text:
            lines.append(f"Nearby text: {nearby_text}")
        if inner:
            lines.append(f"Text in figure: {inner}")
        if subfigure_labels:
            lines.append("Subfigures: " + "; ".join(subfigure_labels))
        lines.append(location_line(page_no, image_path))
        return "\n".join(lines)

    whole = render(inner_text)
    if estimate_tokens(whole) <= HARD_CAP_TOKENS:
        return whole, True
    # Text inside a large figure is mostly axis ticks and labels: an excerpt is enough to match on.
    return render(truncate_at_word(" ".join(inner_text.split()), INNER_TEXT_MAX_CHARS)), False
