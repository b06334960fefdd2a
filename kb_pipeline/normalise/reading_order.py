"""The order the chunker takes a document's items in: MinerU's, corrected where its reading order
is known to slip (two blocks side by side on one line, a "header" read as body text)."""

from __future__ import annotations

from .furniture import FURNITURE_TYPES

_SAME_LINE = 8  # 0–1000 of the page height


def reading_order(items: list[dict], demoted: set[int] | None = None) -> list[int]:
    """MinerU's order, except that of two text blocks side by side on one line (a term and its
    definition) the left one comes first: MinerU sometimes reads the wider right one first; and
    that a "header" read as body text (`demoted`) comes where it stands: MinerU lists a page's
    headers first, so one standing under the page's first title came before it ("5.1 …" before
    "Chapter 5", then read as the end of chapter 4)."""
    order = _demoted_in_place(list(range(len(items))), items, demoted or set())
    k = 0
    while k + 1 < len(order):
        a, b = items[order[k]], items[order[k + 1]]
        box_a, box_b = a.get("bbox"), b.get("bbox")
        if (
            a["type"] == b["type"] == "text"
            and not (a.get("text_level") or b.get("text_level"))
            and box_a
            and box_b
            and a["page_idx"] == b["page_idx"]
            and box_b[2] <= box_a[0]
            and abs(box_b[1] - box_a[1]) <= _SAME_LINE
        ):
            order[k], order[k + 1] = order[k + 1], order[k]
            k += 1  # a swapped pair is not looked at again
        k += 1
    return order


def _demoted_in_place(order: list[int], items: list[dict], demoted: set[int]) -> list[int]:
    """`order` with each demoted header moved after the last body item of its page that MinerU
    listed after it but that stands above it. Page by page: a long document stays linear."""
    pages: list[list[int]] = []
    for index in order:
        if not pages or items[pages[-1][0]]["page_idx"] != items[index]["page_idx"]:
            pages.append([])
        pages[-1].append(index)
    for page in pages:
        for index in [i for i in page if i in demoted and items[i].get("bbox")]:
            at = page.index(index)
            above = [
                k
                for k in range(at + 1, len(page))
                if items[page[k]]["type"] not in FURNITURE_TYPES
                and items[page[k]].get("bbox")
                and items[page[k]]["bbox"][1] < items[index]["bbox"][1]
            ]
            if above:
                page.insert(above[-1], page.pop(at))  # after the pop, that item is at above[-1] - 1
    return [index for page in pages for index in page]
