"""The running-furniture rule (normalise/furniture.py) on a long document: a running head and a
page-number footer on every page, one body paragraph a page, at 300, 1,000 and 3,000 pages.

    .venv/bin/python bench/running_furniture.py

The rule looks at every line of a page's top and bottom band against the same line on every
other page; it is linear in the pages (a window over the lines sorted by place), so 3,000 pages
take about ten times what 300 do. The items are synthetic (MinerU's shape: type, page_idx, a
0–1000 bbox), so the figure is the rule's own, without MinerU or the text layer.
"""

from __future__ import annotations

import random
import time

from kb_pipeline.normalise.furniture import running_furniture
from kb_pipeline.normalise.item_text import ItemText


def document(n_pages: int) -> tuple[list[dict], list[ItemText]]:
    rng = random.Random(n_pages)
    items, texts = [], []
    for page in range(n_pages):
        for kind, text, top in (
            ("header", "Annual report of the water board", 40),
            ("text", f"Paragraph {page} of the body, long enough to be read as text", 400),
            ("footer", f"Page {page + 1}", 960),
        ):
            items.append({"type": kind, "page_idx": page, "bbox": [100, top + rng.randint(0, 5), 900, top + 20]})
            texts.append(ItemText(text=text))
    return items, texts


def main() -> None:
    for n_pages in (300, 1000, 3000):
        items, texts = document(n_pages)
        started = time.perf_counter()
        furniture, _demoted = running_furniture(items, texts, n_pages)
        seconds = time.perf_counter() - started
        print(f"{n_pages:5d} pages: {seconds:.3f} s, {len(furniture)} furniture items")


if __name__ == "__main__":
    main()
