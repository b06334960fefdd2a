"""Long documents in page windows: each window parsed by MinerU (`page_range`) in a fresh
process, the windows' outputs merged into one raw output directory.

Why processes: MinerU holds the whole document while it parses (~7 MB a page on flash), and a
process that has parsed many windows keeps growing (measured: +20 MB a window, 280 → 430 MB
over 8 windows of 50 pages), so memory is only bounded by ending the process. A worker
process parses `windows_per_worker()` windows and is then replaced, which spreads its start-up
cost (imports, MinerU's first call: ~2 s) over several windows while its growth stays bounded.

The merged directory reads exactly as one parse: MinerU numbers pages by their index in the
source PDF and names images by page (`images/page_<idx>_…`), so the windows' pages, content
list items and images only need concatenating, in page order. `middle_json.json` gets the
first window's header with every window's pages (and page sizes) and `is_full_document` true.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from .errors import DocumentError, ParserError

WINDOWS_PER_WORKER_ENV = "KB_PARSE_WINDOWS_PER_WORKER"


def windows_per_worker() -> int:
    """Read when a document is windowed (not at import): KB_PARSE_WINDOWS_PER_WORKER, default 4."""
    return int(os.environ.get(WINDOWS_PER_WORKER_ENV) or 4)


WINDOWS_DIR = ".windows"

# Called as progress(k, n, first_page, last_page) before window k of n (1-based pages).
WindowProgress = Callable[[int, int, int, int], None]


def plan_windows(n_pages: int, size: int) -> list[tuple[int, int]]:
    """1-based inclusive (first, last) page pairs covering `n_pages` in windows of `size`."""
    return [(first, min(n_pages, first + size - 1)) for first in range(1, n_pages + 1, size)]


def _stop_render_workers() -> None:
    from docvortex.document.pdf.render_session import shutdown_pdf_render_sessions

    shutdown_pdf_render_sessions()


def _worker_init() -> None:
    """Runs in each window worker. Its exit must stop MinerU's render workers itself, before
    multiprocessing joins its children: they are daemons it would SIGTERM, but a process
    started with SIGTERM ignored (nohup, some service managers) passes that on, and the join
    then waits for ever. Finalizers with a priority run before that join."""
    from multiprocessing.util import Finalize

    Finalize(None, _stop_render_workers, exitpriority=10)


def _parse_window(
    source: str,
    out: str,
    mineru_home: str,
    tier: str,
    ocr_mode: str,
    page_range: str,
    image_analysis: bool,
    keep_images: bool,
    display_name: str,
) -> dict:
    """Runs in a worker process: one window parsed and written as a raw output directory.
    Errors come back as `DocumentError`s (plain, picklable), never as MinerU's own classes."""
    from . import mineru_adapter

    mineru_adapter.configure_mineru_environment(Path(mineru_home))
    started = time.perf_counter()
    try:
        result = mineru_adapter.run_mineru(
            Path(source), tier=tier, ocr_mode=ocr_mode, page_range=page_range, image_analysis=image_analysis
        )
    except Exception as e:  # noqa: BLE001 — every MinerU failure becomes a DocumentError
        error = mineru_adapter._translate(Path(source).with_name(display_name), e)
        raise type(error)(str(error)) from None
    seconds = time.perf_counter() - started
    mineru_adapter._write_raw_output(result, Path(out), keep_images)
    ran = result.middle_json.extensions.get("mineru", {})
    return {
        "seconds": seconds,
        "n_pages": len(result.pages),
        "tier": ran.get("tier"),
        "parse_mode": ran.get("parse_mode"),
        "mineru_version": result.middle_json.metadata.producer.version,
    }


def _window_error(error: BaseException, k: int, n: int, first: int, last: int) -> DocumentError:
    where = f"window {k}/{n} (pages {first}-{last})"
    if isinstance(error, DocumentError):
        return type(error)(f"{where}: {error}")
    if isinstance(error, BrokenProcessPool):
        return ParserError(f"{where}: the parse process died (killed, or out of memory)")
    return ParserError(f"{where}: {type(error).__name__}: {error}")


def parse_windowed(
    source: Path,
    out: Path,
    *,
    windows: list[tuple[int, int]],
    mineru_home: Path,
    tier: str,
    ocr_mode: str,
    image_analysis: bool,
    keep_images: bool,
    display_name: str,
    progress: WindowProgress | None = None,
) -> dict:
    """Parse `source` window by window into `out/.windows/<k>/`, then merge them into `out`.
    Raises a `DocumentError` naming the window that failed; the caller's temp dir then goes."""
    parts = out / WINDOWS_DIR
    parts.mkdir()
    n = len(windows)
    results = []
    started = time.perf_counter()
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        max_workers=1, mp_context=context, initializer=_worker_init, max_tasks_per_child=windows_per_worker()
    ) as pool:
        for k, (first, last) in enumerate(windows, 1):
            if progress is not None:
                progress(k, n, first, last)
            part = parts / f"{k:05d}"
            part.mkdir()
            future = pool.submit(
                _parse_window,
                str(source),
                str(part),
                str(mineru_home),
                tier,
                ocr_mode,
                f"{first}-{last}",
                image_analysis,
                keep_images,
                display_name,
            )
            try:
                results.append(future.result())
            except BaseException as e:  # noqa: BLE001 — named after its window, then raised
                raise _window_error(e, k, n, first, last) from e
    # Wall time of the windows, process start-ups included (the windows' own MinerU time is
    # per window below).
    seconds = time.perf_counter() - started
    merge_windows([parts / f"{k:05d}" for k in range(1, n + 1)], out)
    shutil.rmtree(parts)
    first_result = results[0]
    return {
        "seconds": seconds,
        "n_pages": sum(r["n_pages"] for r in results),
        "tier": first_result["tier"],
        "parse_mode": first_result["parse_mode"],
        "mineru_version": first_result["mineru_version"],
        "windows": [
            {"pages": f"{first}-{last}", "parse_seconds": round(r["seconds"], 3)}
            for (first, last), r in zip(windows, results)
        ],
    }


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
