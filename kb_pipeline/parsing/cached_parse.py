"""MinerU's raw output for one document, from the parse cache or parsed now by the parse backend
(backends.py) and published atomically: the one call the core makes to get MinerU output."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..sources import sha256_file
from . import cache, ocr, upright
from .backends import ParseBackend
from .config import ParserConfig
from .errors import SourceChangedError, SourceMissingError
from .mineru_adapter import ORIGINAL_COPY, SOURCE_COPY, configure_mineru_environment, mineru_version
from .preflight import preflight
from .windows import WindowProgress, parse_windowed, plan_windows


@dataclass(frozen=True)
class RawOutputRef:
    """A complete cache directory of MinerU output, and how this call got it."""

    path: Path
    cache_hit: bool
    parse_seconds: float  # 0.0 on a cache hit
    marker: dict


def parse_to_cache(
    pdf: Path,
    content_hash: str,
    config: ParserConfig,
    cache_root: Path,
    mineru_home: Path,
    backend: ParseBackend,
    *,
    windows_per_worker: int,
    progress: WindowProgress | None = None,
) -> RawOutputRef:
    """MinerU's raw output for this exact content and config: from the cache when complete,
    else parsed now by `backend` and written atomically. With a local backend, a document
    longer than `config.parse_window` pages is parsed in page windows (`windows.py`), each
    process parsing `windows_per_worker` of them; `progress(k, n, first, last)` is called before
    each window. Raises `DocumentError`."""
    key = cache.cache_key(content_hash, config.fingerprint, mineru_version())
    done = cache.complete_dir(cache_root, key)
    if done is not None:
        return RawOutputRef(done, True, 0.0, cache.read_marker(done))

    configure_mineru_environment(mineru_home)

    def fill(tmp: Path) -> dict:
        # MinerU parses a private copy, so the output, the text layer the normaliser reads and
        # the hash in the key all describe the same bytes, even if the drop file is rewritten
        # or deleted meanwhile.
        source = tmp / SOURCE_COPY
        try:
            copied_hash = sha256_file(pdf, copy_to=source)
        except FileNotFoundError as e:
            raise SourceMissingError(f"{pdf} disappeared before it was parsed") from e
        if copied_hash != content_hash:
            raise SourceChangedError(f"{pdf.name} changed since it was hashed; it will be parsed again once stable")
        checked = preflight(source, config, display_name=pdf.name)
        started = time.perf_counter()
        ocr_record = None
        if checked.ocr_pages:
            # origin.pdf becomes the derived copy with an OCR text layer; the dropped bytes stay.
            original = tmp / ORIGINAL_COPY
            source.rename(original)
            done = ocr.ocr_pages(original, source, list(checked.ocr_pages), config.ocr_langs, pdf.name)
            ocr_record = {
                "engine": done.engine,
                "ocrmypdf": ocr.ocrmypdf_version(),
                "langs": done.langs,
                "pages": done.pages,
                "pages_asked": list(checked.ocr_pages),
                "seconds": round(done.seconds, 3),
                "rendered": done.rendered,
                "original": ORIGINAL_COPY,
            }
        # Pages whose text is drawn rotated are drawn upright in the copy MinerU parses (upright.py).
        turned = tmp / "upright.pdf"
        turns = upright.upright_copy(source, turned)
        if turns:
            if not (tmp / ORIGINAL_COPY).exists():
                source.rename(tmp / ORIGINAL_COPY)
            turned.replace(source)
        window = config.parse_window
        # MinerU's API service bounds its own memory; locally a long document goes in windows.
        windows_record = None
        if backend.local and window and not config.output_settings()["page_range"] and checked.n_pages > window:
            summary, windows_record = parse_windowed(
                source,
                tmp,
                windows=plan_windows(checked.n_pages, window),
                mineru_home=mineru_home,
                config=config,
                ocr_mode=checked.ocr_mode,
                pdf=pdf,
                windows_per_worker=windows_per_worker,
                progress=progress,
            )
        else:
            summary = backend.parse(source, tmp, config=config, ocr_mode=checked.ocr_mode, pdf=pdf)
        seconds = time.perf_counter() - started
        return {
            "source_path": str(pdf),
            "content_hash": content_hash,
            "parser_config": config.fingerprint,
            "parser_settings": config.output_settings(),
            "mineru_version": summary.mineru_version,
            "tier": summary.tier,
            "parse_mode": summary.parse_mode,
            "n_pages": summary.n_pages,
            "n_pages_in_source": checked.n_pages,
            "parse_seconds": round(seconds, 3),  # OCR included
            **({"ocr": ocr_record} if ocr_record else {}),
            **({"windows": windows_record} if windows_record else {}),
            **(
                {"upright": {"pages": {str(k): v for k, v in turns.items()}, "original": ORIGINAL_COPY}}
                if turns
                else {}
            ),
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }

    path = cache.write_atomically(cache_root, key, fill)
    marker = cache.read_marker(path)
    return RawOutputRef(path, False, marker["parse_seconds"], marker)
