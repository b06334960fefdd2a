"""Reading MinerU content lists into one page-ordered list of ``Block`` objects.

``content_list_v2.json`` is a list of pages, each a list of ``{type, content, bbox}`` items
whose text is a list of spans. v2 items carry no ``page_idx``: the outer index is the page
of a full-document parse, and with ``page_range`` the real index is
``middle_json.pages[i].page_idx``, so callers pass that mapping when they have it.

``content_list.json`` (v1) is a flat list with ``page_idx`` whose strings are rendered
Markdown/HTML; it is read only as a fallback and its markup is undone here.

Both readers produce v2 type names (``paragraph``, ``title``, ``page_header`` ...), so the
rest of the packager handles a single vocabulary.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..normalise.item_text import spans_text as raw_spans_text
from ..parsing.raw_output import V1_TO_V2_TYPE
from .text_cleaning import clean_text


class ContentListError(ValueError):
    """A content list file cannot be used at all (unreadable, not JSON, wrong shape)."""


@dataclass(frozen=True)
class Block:
    page_no: int  # 1-based
    index: int  # position on its page: the same index is used to find adjacent blocks
    kind: str
    text: str = ""  # body text of paragraph/title/list/code blocks, or noise text
    caption: str = ""
    footnote: str = ""
    image_ref: str = ""  # image path exactly as written in the content list
    html: str = ""
    latex: str = ""
    inner_text: str = ""  # text MinerU found inside a figure or chart

    @property
    def block_id(self) -> str:
        return f"p{self.page_no}_b{self.index}"


@dataclass
class LoadedContent:
    pages: list[list[Block]]
    parse_errors: list[dict[str, str]] = field(default_factory=list)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ContentListError(f"{path.name}: {exc}") from exc


def _bad_item(block_id: str, path: Path, also_needs: str) -> dict[str, str]:
    message = f"item is not an object with a string 'type' and {also_needs}"
    return {"block_id": block_id, "source": path.name, "message": message}


def read_page_indexes(middle_json_path: Path) -> list[int]:
    """0-based ``page_idx`` of each returned page, in content_list_v2 order."""
    data = _read_json(middle_json_path)
    pages = data.get("pages") if isinstance(data, dict) else None
    if not isinstance(pages, list) or not all(
        isinstance(page, dict) and isinstance(page.get("page_idx"), int) for page in pages
    ):
        raise ContentListError(f"{middle_json_path.name}: no pages[].page_idx")
    return [page["page_idx"] for page in pages]


# ---------------------------------------------------------------- v2


def spans_text(spans: Any) -> str:
    """v2 spans as text for retrieval: inline maths kept readable as `$...$`."""
    return raw_spans_text(spans, math_delimiter="$")


def _list_text(content: dict[str, Any]) -> str:
    ordered = content.get("attribute") == "ordered"
    items = [
        clean_text(spans_text(item.get("item_content")))
        for item in content.get("list_items") or []
        if isinstance(item, dict)
    ]
    items = [item for item in items if item]
    return "\n".join(f"{n}. {item}" if ordered else f"- {item}" for n, item in enumerate(items, 1))


def _image_ref(content: dict[str, Any]) -> str:
    source = content.get("image_source")
    path = source.get("path") if isinstance(source, dict) else None
    return path if isinstance(path, str) else ""


def _v2_block(page_no: int, index: int, kind: str, content: dict[str, Any]) -> Block:
    if kind in ("paragraph", "title", "page_header", "page_footer", "page_number", "page_aside_text", "page_footnote"):
        return Block(page_no, index, kind, text=clean_text(spans_text(content.get(f"{kind}_content"))))
    if kind in ("list", "index"):
        return Block(page_no, index, kind, text=_list_text(content))
    if kind in ("code", "algorithm"):
        # Code keeps its own line structure and indentation, so it is not run through clean_text.
        return Block(
            page_no,
            index,
            kind,
            text=spans_text(content.get(f"{kind}_content")).strip("\n"),
            caption=clean_text(spans_text(content.get(f"{kind}_caption"))),
            footnote=clean_text(spans_text(content.get(f"{kind}_footnote"))),
        )
    if kind == "equation_interline":
        math = content.get("math_content")
        return Block(
            page_no, index, kind, latex=math.strip() if isinstance(math, str) else "", image_ref=_image_ref(content)
        )
    if kind in ("image", "chart", "table"):
        inner = content.get("content")
        html = content.get("html")
        return Block(
            page_no,
            index,
            kind,
            caption=clean_text(spans_text(content.get(f"{kind}_caption"))),
            footnote=clean_text(spans_text(content.get(f"{kind}_footnote"))),
            image_ref=_image_ref(content),
            html=html if isinstance(html, str) else "",
            inner_text=clean_text(inner) if isinstance(inner, str) else "",
        )
    # Unknown types are kept with their kind so the packager can report them as unsupported.
    return Block(page_no, index, kind)


def load_content_list_v2(path: Path, page_indexes: list[int] | None = None) -> LoadedContent:
    data = _read_json(path)
    if not isinstance(data, list) or not all(isinstance(page, list) for page in data):
        raise ContentListError(f"{path.name}: expected a list of pages, each a list of items")
    if page_indexes is not None and len(page_indexes) != len(data):
        page_indexes = None
    loaded = LoadedContent(pages=[])
    for position, items in enumerate(data):
        page_no = (page_indexes[position] if page_indexes else position) + 1
        blocks: list[Block] = []
        for index, item in enumerate(items):
            content = item.get("content") if isinstance(item, dict) else None
            kind = item.get("type") if isinstance(item, dict) else None
            if not isinstance(kind, str) or not isinstance(content, dict):
                loaded.parse_errors.append(_bad_item(f"p{page_no}_b{index}", path, "an object 'content'"))
                continue
            blocks.append(_v2_block(page_no, index, kind, content))
        loaded.pages.append(blocks)
    return loaded


# ---------------------------------------------------------------- v1

_MARKDOWN_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!$|<>~])")
_MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
# The inline HTML the v1 renderer emits. Only these tags are removed, since a bare "<" or ">"
# is content ("Q<0"); v2 spans are raw text and are never stripped.
_HTML_TAG = re.compile(r"</?(?:sub|sup|span|div|br|b|i|em|strong|u)\b[^<>]*/?>", re.IGNORECASE)


def _unmarkdown(value: Any) -> str:
    """v1 strings are rendered Markdown/HTML: undo links, bold markers, inline tags and escapes."""
    if isinstance(value, list):
        value = " ".join(part for part in value if isinstance(part, str))
    if not isinstance(value, str):
        return ""
    text = _MARKDOWN_LINK.sub(r"\1", value).replace("**", "")
    text = _HTML_TAG.sub(lambda tag: " " if tag.group(0).lower().startswith("<br") else "", text)
    return clean_text(_MARKDOWN_ESCAPE.sub(r"\1", text))


def _v1_block(page_no: int, index: int, item: dict[str, Any]) -> Block:
    kind = item["type"]
    if kind == "text":
        return Block(
            page_no, index, "title" if item.get("text_level") else "paragraph", text=_unmarkdown(item.get("text"))
        )
    kind = V1_TO_V2_TYPE.get(kind, kind)
    if kind in ("page_header", "page_footer", "page_number", "page_aside_text", "page_footnote"):
        return Block(page_no, index, kind, text=_unmarkdown(item.get("text")))
    if kind in ("list", "index"):
        items = [_unmarkdown(entry) for entry in item.get("list_items") or []]
        return Block(page_no, index, kind, text="\n".join(f"- {entry}" for entry in items if entry))
    if kind == "code":
        body = item.get("code_body")
        return Block(
            page_no,
            index,
            kind,
            text=body.strip("\n") if isinstance(body, str) else "",
            caption=_unmarkdown(item.get("code_caption")),
            footnote=_unmarkdown(item.get("code_footnote")),
        )
    img_path = item.get("img_path")
    image_ref = img_path if isinstance(img_path, str) else ""
    if kind == "equation_interline":
        return Block(page_no, index, kind, latex=_unmarkdown(item.get("text")), image_ref=image_ref)
    if kind in ("image", "chart", "table"):
        body = item.get("table_body")
        return Block(
            page_no,
            index,
            kind,
            caption=_unmarkdown(item.get(f"{kind}_caption")),
            footnote=_unmarkdown(item.get(f"{kind}_footnote")),
            image_ref=image_ref,
            html=body if isinstance(body, str) else "",
            inner_text=_unmarkdown(item.get("content")),
        )
    return Block(page_no, index, kind)


def load_content_list_v1(path: Path) -> LoadedContent:
    data = _read_json(path)
    if not isinstance(data, list):
        raise ContentListError(f"{path.name}: expected a flat list of items")
    by_page: dict[int, list[Block]] = {}
    errors: list[dict[str, str]] = []
    for position, item in enumerate(data):
        if not (isinstance(item, dict) and isinstance(item.get("type"), str) and isinstance(item.get("page_idx"), int)):
            errors.append(_bad_item(f"item_{position}", path, "an integer 'page_idx'"))
            continue
        page_no = item["page_idx"] + 1
        page = by_page.setdefault(page_no, [])
        page.append(_v1_block(page_no, len(page), item))
    return LoadedContent(pages=[by_page[page_no] for page_no in sorted(by_page)], parse_errors=errors)
