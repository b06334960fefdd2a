"""MinerU's raw output directory, read back: the content lists and what MinerU says it ran.

content_list.json (v1) is what `Chunk.source_items` index into; content_list_v2.json carries
the same items with raw text spans instead of rendered Markdown. The two are checked to be the
same items in the same order before anything relies on that.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

# MinerU's v1 type → its v2 type where the names differ; a v1 "text" is a v2 "paragraph" or
# "title". The one map of the two vocabularies.
V1_TO_V2_TYPE = {
    "header": "page_header",
    "footer": "page_footer",
    "aside_text": "page_aside_text",
    "equation": "equation_interline",
}


class RawOutputMismatchError(ValueError):
    """The two content lists do not describe the same items: the raw output is not usable."""


@dataclass(frozen=True)
class RawOutput:
    path: Path
    items: list[dict]  # content_list.json
    items_v2: list[dict]  # content_list_v2.json flattened, aligned index for index with `items`
    mineru_version: str | None
    tier: str | None
    parse_mode: str | None
    page_idxs: list[int]  # the 0-based source pages MinerU returned
    # Per item: (page_idx, position on its page in content_list_v2) — how the v2 list, and
    # tools reading it page by page, address the same item.
    positions: list[tuple[int, int]]
    # Pages (0-based) that had no text layer and were OCR'd with Tesseract before MinerU read
    # them, and what did it (from the cache entry's marker); empty / None when none were.
    ocr_pages: tuple[int, ...] = ()
    ocr_engine: str | None = None
    ocr_langs: str | None = None

    @property
    def n_pages(self) -> int:
        return len(self.page_idxs)

    @property
    def figure_content_is_generated(self) -> bool:
        """A figure's `content` is text read inside it on the lower tiers, but a description a
        model wrote at the advanced tier (image analysis)."""
        return self.tier == "advanced"

    @property
    def parser_backend(self) -> str | None:
        if not self.tier:
            return None
        return f"{self.tier}/{self.parse_mode}" + (f"+{self.ocr_engine}" if self.ocr_engine else "")


def _same_item(v1: dict, v2: dict) -> bool:
    t1, t2 = v1["type"], v2["type"]
    if t1 == "text":
        return t2 in ("paragraph", "title")
    return V1_TO_V2_TYPE.get(t1, t1) == t2


def load_raw_output(
    path: Path,
    *,
    content_list: Path | None = None,
    content_list_v2: Path | None = None,
    middle_json: Path | None = None,
) -> RawOutput:
    """The output in directory `path`, under MinerU 4's file names unless others are given
    (output produced elsewhere may prefix them: `<uuid>_content_list.json`)."""
    items = json.loads((content_list or path / "content_list.json").read_text(encoding="utf-8"))
    pages_v2 = json.loads((content_list_v2 or path / "content_list_v2.json").read_text(encoding="utf-8"))
    middle = json.loads((middle_json or path / "middle_json.json").read_text(encoding="utf-8"))
    items_v2 = [item for page in pages_v2 for item in page]
    if len(items) != len(items_v2):
        raise RawOutputMismatchError(
            f"{path}: content_list.json has {len(items)} items, content_list_v2.json {len(items_v2)}"
        )
    for i, (v1, v2) in enumerate(zip(items, items_v2)):
        if not _same_item(v1, v2):
            raise RawOutputMismatchError(f"{path}: item {i} is {v1['type']!r} in v1 but {v2['type']!r} in v2")
    ran = middle.get("extensions", {}).get("mineru", {})
    marker_path = path / "_COMPLETE.json"
    ocr = (json.loads(marker_path.read_text(encoding="utf-8")).get("ocr") or {}) if marker_path.is_file() else {}
    page_idxs = [page["page_idx"] for page in middle.get("pages", [])]
    if len(page_idxs) != len(pages_v2):
        raise RawOutputMismatchError(
            f"{path}: middle_json.json has {len(page_idxs)} pages, content_list_v2.json {len(pages_v2)}"
        )
    return RawOutput(
        path=path,
        items=items,
        items_v2=items_v2,
        mineru_version=middle.get("metadata", {}).get("producer", {}).get("version"),
        tier=ran.get("tier"),
        parse_mode=ran.get("parse_mode"),
        page_idxs=page_idxs,
        positions=[(page_idx, n) for page_idx, page in zip(page_idxs, pages_v2) for n in range(len(page))],
        ocr_pages=tuple(ocr.get("pages", ())),
        ocr_engine=ocr.get("engine"),
        ocr_langs=ocr.get("langs"),
    )
