"""Long documents in page windows: each window parsed by MinerU (`page_range`) in a fresh
process, the windows' outputs merged into one raw output directory.

Why processes: MinerU holds the whole document while it parses (~7 MB a page on flash), and a
process that has parsed many windows keeps growing (measured: +20 MB a window, 280 → 430 MB
over 8 windows of 50 pages), so memory is only bounded by ending the process. A worker
process (processes.WorkerPool) parses `KB_PARSE_WINDOWS_PER_WORKER` windows and is then replaced, which spreads its start-up
cost (imports, MinerU's first call: ~2 s) over several windows while its growth stays bounded.

The merged directory reads exactly as one parse: MinerU numbers pages by their index in the
source PDF and names images by page (`images/page_<idx>_…`), so the windows' pages, content
list items and images only need concatenating, in page order. `middle_json.json` gets the
first window's header with every window's pages (and page sizes) and `is_full_document` true.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from ..processes import WorkerDied, WorkerPool
from .backends import ParseTask, timed_parse, warm_parse_worker
from .config import ParserConfig
from .errors import DocumentError, ParserError
from .mineru_adapter import ParseSummary

WINDOWS_DIR = ".windows"

# Called as progress(k, n, first_page, last_page) before window k of n (1-based pages).
WindowProgress = Callable[[int, int, int, int], None]


def plan_windows(n_pages: int, size: int) -> list[tuple[int, int]]:
    """1-based inclusive (first, last) page pairs covering `n_pages` in windows of `size`."""
    return [(first, min(n_pages, first + size - 1)) for first in range(1, n_pages + 1, size)]


def _window_error(error: BaseException, k: int, n: int, first: int, last: int) -> DocumentError:
    where = f"window {k}/{n} (pages {first}-{last})"
    if isinstance(error, DocumentError):
        return type(error)(f"{where}: {error}")
    if isinstance(error, WorkerDied):
        return ParserError(f"{where}: the parse process died (killed, or out of memory)")
    return ParserError(f"{where}: {type(error).__name__}: {error}")


def parse_windowed(
    source: Path,
    out: Path,
    *,
    windows: list[tuple[int, int]],
    mineru_home: Path,
    config: ParserConfig,
    ocr_mode: str,
    pdf: Path,
    windows_per_worker: int,
    progress: WindowProgress | None = None,
) -> tuple[ParseSummary, list[dict]]:
    """Parse `source` window by window into `out/.windows/<k>/`, one process parsing
    `windows_per_worker` windows before it is replaced, then merge them into `out`. Returns the
    summary of the whole parse and a record per window. Raises a `DocumentError` naming the
    window that failed; the caller's temp dir then goes."""
    parts = out / WINDOWS_DIR
    parts.mkdir()
    n = len(windows)
    results: list[tuple[ParseSummary, float]] = []
    with WorkerPool(
        1, warm_parse_worker, timed_parse, (str(mineru_home),), name="kb-window-worker", max_tasks=windows_per_worker
    ) as pool:
        for k, (first, last) in enumerate(windows, 1):
            if progress is not None:
                progress(k, n, first, last)
            part = parts / f"{k:05d}"
            part.mkdir()
            task = ParseTask(source, part, config.model_copy(update={"page_range": f"{first}-{last}"}), ocr_mode, pdf)
            try:
                results.append(pool.call(task))
            except Exception as e:  # noqa: BLE001 — named after its window, then raised
                raise _window_error(e, k, n, first, last) from e
    merge_windows([parts / f"{k:05d}" for k in range(1, n + 1)], out)
    shutil.rmtree(parts)
    first_summary = results[0][0]
    summary = ParseSummary(
        first_summary.mineru_version,
        first_summary.tier,
        first_summary.parse_mode,
        sum(window_summary.n_pages for window_summary, _ in results),
    )
    records = [
        {"pages": f"{first}-{last}", "parse_seconds": round(seconds, 3)}
        for (first, last), (_, seconds) in zip(windows, results)
    ]
    return summary, records


def _read(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def _indented(value, depth: int) -> str:
    """`value` as `json.dumps(..., indent=2)` writes it `depth` levels deep in a larger document."""
    pad = "  " * depth
    return pad + json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n" + pad)


class _ListWriter:
    """Writes a JSON list element by element, as `json.dumps(list, indent=2)` would at `depth`,
    so the merged files hold one window's items in memory at a time."""

    def __init__(self, f, depth: int):
        self.f, self.depth, self.count = f, depth, 0

    def add(self, value) -> None:
        self.f.write(("," if self.count else "") + "\n" + _indented(value, self.depth + 1))
        self.count += 1

    def close(self) -> None:
        self.f.write(("\n" + "  " * self.depth + "]") if self.count else "]")


def _merge_list_files(parts: list[Path], name: str, out: Path) -> None:
    with (out / name).open("w", encoding="utf-8") as f:
        f.write("[")
        writer = _ListWriter(f, 0)
        for part in parts:
            for item in _read(part / name):
                writer.add(item)
        writer.close()


_PLACEHOLDER = "\x00kb-pages\x00"


def _merge_middle(parts: list[Path], out: Path) -> None:
    """middle_json.json: the first window's header (metadata, extensions, schema), every
    window's pages, the page sizes of every window, and `is_full_document` true."""
    header = _read(parts[0] / "middle_json.json")
    layouts = []
    for part in parts:
        middle = header if part == parts[0] else _read(part / "middle_json.json")
        layouts += middle.get("extensions", {}).get("docvortex_layout", {}).get("pages", [])
        del middle
    if "docvortex_layout" in header.get("extensions", {}):
        header["extensions"]["docvortex_layout"]["pages"] = layouts
    header["pages"] = _PLACEHOLDER
    if "is_full_document" in header:
        header["is_full_document"] = True
    before, after = json.dumps(header, ensure_ascii=False, indent=2).split(json.dumps(_PLACEHOLDER))
    with (out / "middle_json.json").open("w", encoding="utf-8") as f:
        f.write(before + "[")
        writer = _ListWriter(f, 1)
        for part in parts:
            for page in _read(part / "middle_json.json")["pages"]:
                writer.add(page)
        writer.close()
        f.write(after)


def _merge_structured(parts: list[Path], out: Path) -> None:
    """structured_content.json: the first window's, with every window's pages."""
    merged = None
    for part in parts:
        path = part / "structured_content.json"
        if not path.is_file():
            return
        data = _read(path)
        if merged is None:
            merged = data
        elif isinstance(merged, dict) and isinstance(merged.get("pages"), list):
            merged["pages"] += data.get("pages", [])
    (out / "structured_content.json").write_text(json.dumps(merged, ensure_ascii=False, indent=2), encoding="utf-8")


def merge_windows(parts: list[Path], out: Path) -> None:
    """One raw output directory in `out` from the windows' directories, in page order."""
    _merge_middle(parts, out)
    _merge_list_files(parts, "content_list.json", out)
    _merge_list_files(parts, "content_list_v2.json", out)
    _merge_structured(parts, out)
    # markdown.md: each window's rendering, joined with a blank line (nothing here reads it).
    with (out / "markdown.md").open("w", encoding="utf-8") as f:
        for i, part in enumerate(parts):
            f.write(("\n\n" if i else "") + (part / "markdown.md").read_text(encoding="utf-8").strip("\n"))
        f.write("\n")
    images = out / "images"
    for part in parts:
        if not (part / "images").is_dir():
            continue
        images.mkdir(exist_ok=True)
        for image in sorted((part / "images").iterdir()):
            target = images / image.name
            if target.exists():
                raise ParserError(f"two windows wrote the image {image.name}")
            os.replace(image, target)
