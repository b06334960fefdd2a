"""The one place that calls MinerU 4: parse, and write its untouched raw output (what it is
asked to read, and how, is decided first: preflight.py).

Every failure becomes a `DocumentError` whose message says what to do (the caller is
`cached_parse.parse_to_cache`, through a parse backend). MinerU runs with a project-controlled
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
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from .config import ParserConfig
from .errors import (
    CorruptPdfError,
    DocumentError,
    EncryptedPdfError,
    MissingModelWeightsError,
    NotAPdfError,
    ParserError,
    SourceMissingError,
)

log = logging.getLogger(__name__)

# model_output.json is MinerU's pre-post-processing model JSON; it embeds every crop again as
# base64 (the largest file by far) and nothing downstream reads it. middle_json.json is the
# authoritative result, and the content lists re-render from it byte for byte.
_DROPPED_FILES = ("model_output.json",)
# The exact bytes MinerU parsed, kept beside its output (MinerU 2.x called it origin.pdf).
SOURCE_COPY = "origin.pdf"
# When pages were OCR'd with Tesseract or turned upright (upright.py), origin.pdf is the derived
# copy MinerU parsed and the file as it was dropped (the bytes of the key's hash) is kept under
# this name.
ORIGINAL_COPY = "original.pdf"


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
    from mineru.parser.writer import FileBasedDataWriter

    result.save(FileBasedDataWriter(str(out)))
    for name in _DROPPED_FILES:
        (out / name).unlink(missing_ok=True)
    _write_content_lists(result.middle_json, out, keep_images)


def _write_content_lists(middle_json, out: Path, keep_images: bool) -> None:
    from docvortex.export import materialize_middle
    from mineru.render import render_content_list, render_content_list_v2

    middle, _assets = materialize_middle(middle_json)
    for name, rendered in (
        ("content_list.json", render_content_list(middle)),
        ("content_list_v2.json", render_content_list_v2(middle)),
    ):
        (out / name).write_text(json.dumps(rendered, ensure_ascii=False, indent=2), encoding="utf-8")
    if not keep_images:
        shutil.rmtree(out / "images", ignore_errors=True)


# --------------------------------------------------------------------------- the parse itself


@dataclass(frozen=True)
class ParseSummary:
    """What MinerU says it ran, as the cache marker records it."""

    mineru_version: str
    tier: str | None
    parse_mode: str | None
    n_pages: int


def _summary(middle: dict) -> ParseSummary:
    ran = middle.get("extensions", {}).get("mineru", {})
    return ParseSummary(
        middle.get("metadata", {}).get("producer", {}).get("version", ""),
        ran.get("tier"),
        ran.get("parse_mode"),
        len(middle.get("pages", [])),
    )


def parse_in_process(source: Path, out: Path, *, config: ParserConfig, ocr_mode: str, pdf: Path) -> ParseSummary:
    """MinerU in this process: parse `source`, write its raw output into `out`. `pdf` is the
    file the user dropped (named in errors)."""
    try:
        result = run_mineru(
            source,
            tier=config.tier,
            ocr_mode=ocr_mode,
            page_range=config.page_range,
            image_analysis=config.image_analysis,
        )
    except Exception as e:  # noqa: BLE001 — every MinerU failure becomes a DocumentError
        raise _translate(pdf, e) from e
    _write_raw_output(result, out, config.keep_images)
    ran = result.middle_json.extensions.get("mineru", {})
    return ParseSummary(
        result.middle_json.metadata.producer.version, ran.get("tier"), ran.get("parse_mode"), len(result.pages)
    )


def finish_saved_output(out: Path, keep_images: bool) -> ParseSummary:
    """Complete a directory holding what `ParseResult.save()` writes (parsed elsewhere: MinerU's
    API service) exactly as the in-process path does: content lists rendered from its middle
    JSON, model_output.json dropped, images kept or not."""
    from mineru.types import MiddleJson

    for name in _DROPPED_FILES:
        (out / name).unlink(missing_ok=True)
    text = (out / "middle_json.json").read_text(encoding="utf-8")
    _write_content_lists(MiddleJson.model_validate_json(text), out, keep_images)
    return _summary(json.loads(text))
