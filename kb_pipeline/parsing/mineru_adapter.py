"""The one place that calls MinerU 4: preflight, parse, and write its untouched raw output.

Contract with the rest of the code: `parse_to_cache()` returns a complete cache directory or
raises a `DocumentError` whose message says what to do. MinerU runs with a project-controlled
`MINERU_HOME` and `MINERU_MODEL_SOURCE=local`, so it never reaches for the network and never
writes to the user's global MinerU config (MINERU_4_FACTS.md §4: the `auto` source probes two
hubs for ~23 s and then pins `model.source` in the config file).
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import os
import shutil
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

from ..config import ParserConfig
from ..sources import sha256_file
from . import cache
from .errors import (
    CorruptPdfError,
    DocumentError,
    EmptyFileError,
    EncryptedPdfError,
    MissingModelWeightsError,
    NotAPdfError,
    ParserError,
    SourceChangedError,
    SourceMissingError,
    TooManyPagesError,
)
from .windows import WindowProgress, parse_windowed, plan_windows

log = logging.getLogger(__name__)

# model_output.json is MinerU's pre-post-processing model JSON; it embeds every crop again as
# base64 (the largest file by far) and nothing downstream reads it. middle_json.json is the
# authoritative result, and the content lists re-render from it byte for byte.
_DROPPED_FILES = ("model_output.json",)
# The exact bytes MinerU parsed, kept beside its output (MinerU 2.x called it origin.pdf).
SOURCE_COPY = "origin.pdf"
_MAGIC = {b"\x89PNG": "png image", b"\xff\xd8\xff": "jpeg image", b"PK\x03\x04": "zip archive",
          b"GIF8": "gif image", b"%!PS": "postscript file", b"{\\rtf": "rtf document"}


@lru_cache(maxsize=1)
def mineru_version() -> str:
    """Installed MinerU version, read without importing MinerU (that costs ~0.4 s); asked for
    per document and per sensor tick, so read once."""
    return importlib.metadata.version("mineru")


def configure_mineru_environment(mineru_home: Path) -> None:
    """Environment MinerU reads at import time; must run before the first `import mineru`.

    A user who keeps weights elsewhere sets `MINERU_MODEL_BASE_DIR`; it is passed through.
    """
    mineru_home.mkdir(parents=True, exist_ok=True)
    os.environ["MINERU_HOME"] = str(mineru_home)
    os.environ["MINERU_MODEL_SOURCE"] = "local"
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("MINERU_LOG_LEVEL", "warning")
    # "Explicitly closing <PdfBitmap …>" from pypdfium2 on every crop (MINERU_4_FACTS.md §7).
    logging.getLogger("pypdfium2").setLevel(logging.ERROR)
    import mineru.config

    if mineru.config.config.model.source != "local":
        raise RuntimeError(
            "MinerU was imported before kb_pipeline configured it, and its model source is "
            f"{mineru.config.config.model.source!r}; it could reach for the network. "
            "Import kb_pipeline's parser before anything that imports mineru."
        )


_TEXT_PROBE_PAGES = 20
_MIN_PAGE_TEXT_CHARS = 10


def _has_text_layer(page) -> bool:
    textpage = page.get_textpage()
    try:
        return len("".join(textpage.get_text_range().split())) >= _MIN_PAGE_TEXT_CHARS
    finally:
        textpage.close()
        page.close()


@dataclass(frozen=True)
class Preflight:
    n_pages: int
    # What MinerU's `ocr_mode` is set to: "txt" whenever the text layer suffices, so MinerU
    # never loads models behind our back.
    ocr_mode: str


def _sniff(head: bytes) -> str:
    for magic, name in _MAGIC.items():
        if head.startswith(magic):
            return name
    try:
        head.decode("utf-8")
        return "text file"
    except UnicodeDecodeError:
        return "binary file of unknown type"


def _weights_repos(tier: str) -> str:
    # model_repos_for_tier knows only basic/standard: advanced needs standard's repos, and
    # flash with OCR loads the same small models as basic.
    return {"flash": "basic", "basic": "basic", "standard": "standard", "advanced": "standard"}[tier]


def missing_weights(tier: str) -> list[str]:
    """Paths of the weights `tier` needs that are not installed (empty when ready). No network."""
    from mineru.model.download import verify_model_repo
    from mineru.model.registry import model_repos_for_tier

    missing = []
    for repo in model_repos_for_tier(_weights_repos(tier)):
        result = verify_model_repo(repo)
        if not result.ready:
            missing += [str(Path(result.root) / p) for p in result.missing_paths]
    return missing


def _require_weights(tier: str, why: str, instead: str) -> None:
    missing = missing_weights(tier)
    if missing:
        import mineru.config

        base_dir = mineru.config.config.model.base_dir or os.path.join(os.environ["MINERU_HOME"], "models")
        repos = _weights_repos(tier)
        raise MissingModelWeightsError(
            f"{why} needs MinerU model weights that are not installed under {base_dir} "
            f"(missing: {missing[0]}{f' and {len(missing) - 1} more' if len(missing) > 1 else ''}). "
            f"On a machine with internet run `MINERU_MODEL_BASE_DIR={base_dir} "
            f"mineru-models-download --tier {repos} --source huggingface`, copy that folder here "
            f"(hidden .mineru_complete markers included) or point MINERU_MODEL_BASE_DIR at it; or {instead}."
        )


def preflight(pdf: Path, config: ParserConfig, display_name: str | None = None) -> Preflight:
    """Cheap checks (well under a second) that turn bad input into a clear error before MinerU
    spends time on it, and decide the OCR mode. `display_name` names the file in messages."""
    import pypdfium2

    name = display_name or pdf.name

    if not pdf.is_file():
        raise SourceMissingError(f"{pdf} does not exist (moved or deleted before it was parsed)")
    with pdf.open("rb") as f:
        head = f.read(1024)
    if not head:
        raise EmptyFileError(f"{name} is empty (0 bytes); nothing to parse")
    if b"%PDF-" not in head:
        raise NotAPdfError(f"{name} is not a PDF: its content looks like a {_sniff(head)}")
    try:
        document = pypdfium2.PdfDocument(str(pdf))
    except pypdfium2.PdfiumError as e:
        if "password" in str(e).lower():
            raise EncryptedPdfError(
                f"{name} is password-protected; remove the password (e.g. `qpdf --decrypt`) "
                "and drop the file again"
            ) from e
        raise CorruptPdfError(f"{name} is damaged and cannot be opened ({e})") from e
    try:
        n_pages = len(document)
        pages_with_text = sum(_has_text_layer(document[i]) for i in range(min(n_pages, _TEXT_PROBE_PAGES)))
    finally:
        document.close()
    if n_pages == 0:
        raise CorruptPdfError(f"{name} has no pages")
    if n_pages > config.max_pages:
        raise TooManyPagesError(
            f"{name} has {n_pages} pages, more than the configured limit of {config.max_pages}; "
            "raise max_pages or set page_range to parse part of it"
        )

    if config.tier != "flash":
        _require_weights(config.tier, f"Tier {config.tier!r}",
                         "use tier 'flash', which reads the PDF's text layer with no weights")
    if config.parse_mode == "txt":
        return Preflight(n_pages, "txt")
    if config.parse_mode == "ocr":
        _require_weights(config.tier, "OCR (parse_mode 'ocr')", "use parse_mode 'auto' or 'txt'")
        return Preflight(n_pages, "ocr")
    from docvortex.document.pdf import PDFDocument

    # docvortex's classifier calls some short, plain text PDFs "ocr"; a text layer on most
    # pages is the evidence that counts, so only a PDF without one needs the OCR models.
    probed = min(n_pages, _TEXT_PROBE_PAGES)
    if pages_with_text * 2 >= probed or PDFDocument(str(pdf)).classify() == "txt":
        return Preflight(n_pages, "txt")
    _require_weights(config.tier, f"{name} has no usable text layer (a scanned PDF?): reading it",
                     "set parse_mode 'txt' to read only its text layer (expect little or no text)")
    return Preflight(n_pages, "auto")


def _translate(pdf: Path, e: Exception) -> DocumentError:
    """MinerU's exceptions, as the error a person can act on."""
    import pypdfium2

    message = str(e)
    if isinstance(e, FileNotFoundError) and message.startswith("Model repo "):
        return MissingModelWeightsError(message)
    if isinstance(e, FileNotFoundError):
        return SourceMissingError(f"{pdf} disappeared while it was being parsed")
    if isinstance(e, pypdfium2.PdfiumError):
        if "password" in message.lower():
            return EncryptedPdfError(f"{pdf.name} is password-protected ({message})")
        return CorruptPdfError(f"{pdf.name} is damaged: {message}")
    if isinstance(e, ValueError) and message.startswith("Unsupported file type"):
        return NotAPdfError(f"{pdf.name}: {message}")
    return ParserError(f"MinerU failed on {pdf.name}: {type(e).__name__}: {message}")


def run_mineru(pdf: Path, *, tier: str, ocr_mode: str, page_range: str, image_analysis: bool):
    """The MinerU call itself, isolated so tests can count how often it runs."""
    from mineru.parser import parse

    return parse(pdf, tier=tier, ocr_mode=ocr_mode, image_analysis=image_analysis, page_range=page_range)


def _write_raw_output(result, out: Path, keep_images: bool) -> None:
    """MINERU_4_FACTS.md §1's recipe: save(), then content lists from the materialised copy so
    image paths are `images/...` files, never base64."""
    from docvortex.export import materialize_middle
    from mineru.parser.writer import FileBasedDataWriter
    from mineru.render import render_content_list, render_content_list_v2

    result.save(FileBasedDataWriter(str(out)))
    for name in _DROPPED_FILES:
        (out / name).unlink(missing_ok=True)
    middle, _assets = materialize_middle(result.middle_json)
    for name, rendered in (("content_list.json", render_content_list(middle)),
                           ("content_list_v2.json", render_content_list_v2(middle))):
        (out / name).write_text(json.dumps(rendered, ensure_ascii=False, indent=2), encoding="utf-8")
    if not keep_images:
        shutil.rmtree(out / "images", ignore_errors=True)


@dataclass(frozen=True)
class RawOutputRef:
    """A complete cache directory of MinerU output, and how this call got it."""

    path: Path
    cache_hit: bool
    parse_seconds: float  # 0.0 on a cache hit
    marker: dict


def parse_to_cache(pdf: Path, content_hash: str, config: ParserConfig, cache_root: Path,
                   mineru_home: Path, progress: WindowProgress | None = None) -> RawOutputRef:
    """MinerU's raw output for this exact content and config: from the cache when complete,
    else parsed now and written atomically. A document longer than `config.parse_window`
    pages is parsed in page windows (`windows.py`); `progress(k, n, first, last)` is called
    before each window. Raises `DocumentError`."""
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
        window = config.parse_window
        if window and not config.output_settings()["page_range"] and checked.n_pages > window:
            ran = parse_windowed(source, tmp, windows=plan_windows(checked.n_pages, window),
                                 mineru_home=mineru_home, tier=config.tier, ocr_mode=checked.ocr_mode,
                                 image_analysis=config.image_analysis, keep_images=config.keep_images,
                                 display_name=pdf.name, progress=progress)
            return {
                "source_path": str(pdf),
                "content_hash": content_hash,
                "parser_config": config.fingerprint,
                "parser_settings": config.output_settings(),
                "mineru_version": ran["mineru_version"],
                "tier": ran["tier"],
                "parse_mode": ran["parse_mode"],
                "n_pages": ran["n_pages"],
                "n_pages_in_source": checked.n_pages,
                "parse_seconds": round(ran["seconds"], 3),
                "windows": ran["windows"],
                "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            }
        started = time.perf_counter()
        try:
            result = run_mineru(source, tier=config.tier, ocr_mode=checked.ocr_mode,
                                page_range=config.page_range, image_analysis=config.image_analysis)
        except Exception as e:  # noqa: BLE001 — every MinerU failure becomes a DocumentError
            raise _translate(pdf, e) from e
        seconds = time.perf_counter() - started
        _write_raw_output(result, tmp, config.keep_images)
        ran = result.middle_json.extensions.get("mineru", {})
        return {
            "source_path": str(pdf),
            "content_hash": content_hash,
            "parser_config": config.fingerprint,
            "parser_settings": config.output_settings(),
            "mineru_version": result.middle_json.metadata.producer.version,
            "tier": ran.get("tier"),
            "parse_mode": ran.get("parse_mode"),
            "n_pages": len(result.pages),
            "n_pages_in_source": checked.n_pages,
            "parse_seconds": round(seconds, 3),
            "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }

    path = cache.write_atomically(cache_root, key, fill)
    marker = cache.read_marker(path)
    return RawOutputRef(path, False, marker["parse_seconds"], marker)
