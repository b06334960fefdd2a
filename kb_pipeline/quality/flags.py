"""What a quality-warning check reads (`WarnedDocument`) and what it returns (`Flag`s, which
`quality.warnings` turns into the document's `QualityWarning`s)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from ..contracts import Chunk, WarningCode
from ..normalise.item_text import ItemText, item_texts
from ..parsing.raw_output import RawOutput
from ..pdf_text import PdfTextLayer

WHITESPACE = re.compile(r"\s+")
_PREVIEW = 120


class Flag(NamedTuple):
    """One warning: on a chunk (its first page unless `page_idx` says otherwise) or on a page."""

    jenis: WarningCode
    detail: str
    chunk: Chunk | None = None
    page_idx: int | None = None


@dataclass
class WarnedDocument:
    """One parsed document as the checks see it: its chunks, MinerU's output, the PDF's text layer."""

    chunks: list[Chunk]
    raw: RawOutput
    text_layer: PdfTextLayer
    given_texts: list[ItemText] | None = None
    _squeezed: dict[int, str] = field(default_factory=dict, init=False, repr=False)

    @cached_property
    def texts(self) -> list[ItemText]:
        """The items' texts (`item_texts(raw)`), unless the caller had them already."""
        return item_texts(self.raw) if self.given_texts is None else self.given_texts

    def squeezed_page(self, page_idx: int) -> str:
        """A page's text layer without whitespace, computed once per page, not once per chunk."""
        if page_idx not in self._squeezed:
            self._squeezed[page_idx] = WHITESPACE.sub("", self.text_layer.page_text(page_idx))
        return self._squeezed[page_idx]


def preview(text: str) -> str:
    text = WHITESPACE.sub(" ", text).strip()
    return text if len(text) <= _PREVIEW else text[: _PREVIEW - 1] + "…"


def first_ten(values: list) -> str:
    return f"{', '.join(map(str, values[:10]))}{', …' if len(values) > 10 else ''}"
