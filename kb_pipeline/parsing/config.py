"""`ParserConfig`: how MinerU is asked to parse, and the fingerprint of what changes its output.

The fingerprint keys the raw-output cache and the Dagster data versions, so it must move when,
and only when, MinerU's output can change: the settings, and the code that rewrites the PDF it
reads (`versions.PREPROCESS_VERSION`); settings that only guard a run (`max_pages`) or say where
things live stay out of it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..versions import PREPROCESS_VERSION
from . import ocr

Tier = Literal["flash", "basic", "standard", "advanced"]
ParseMode = Literal["auto", "txt", "ocr"]


class ParserConfig(BaseModel):
    """Defined once: the environment names (`KB_<FIELD>`, settings.py), the command-line options
    (`--<field>`, cli/options.py) and the `kb` resource's config (defs/resources.py) are derived
    from these fields and their descriptions."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # `flash` reads the PDF's text layer with no model weights: the default that runs anywhere.
    tier: Tier = Field(default="flash", description="MinerU tier; flash needs no model weights")
    # `auto`: text-layer PDFs are read as text; a PDF that needs OCR needs local OCR weights.
    parse_mode: ParseMode = Field(default="auto", description="MinerU parse mode")
    # MinerU's own syntax, 1-based inclusive ("1-5,8"); "" means every page.
    page_range: str = Field(default="", description='MinerU page range, e.g. "1-5,8"; empty: every page')
    # Only the `advanced` tier describes images; ignored (and not fingerprinted) below it.
    image_analysis: bool = Field(default=False, description="describe images (advanced tier only)")
    keep_images: bool = Field(default=True, description="keep the formula, table and figure crops MinerU writes")
    # A document longer than this many pages is parsed in page windows (MinerU's `page_range`),
    # each in a fresh process, so memory stays bounded whatever the length; 0 never windows.
    # An output setting: MinerU's flash tier takes some statistics over the pages it is given
    # (body font, line grouping), so a windowed parse of a long document can differ slightly
    # from an unwindowed one (docs/decisions.md, "Page windows").
    parse_window: int = Field(
        default=50, ge=0, description="parse documents longer than this in page windows; 0: never"
    )
    # A guard, not an output setting: a longer document fails with a clear error instead of
    # taking more memory than a worker has. With windows the parse's memory no longer grows
    # with length; the normaliser's does (~0.4 MiB a page, it holds the whole document to
    # stitch across pages), and 3,000 pages keep the whole core path near 1.3 GiB
    # (docs/decisions.md, "Page windows").
    max_pages: int = Field(default=3_000, ge=1, description="a longer document fails with a clear error")
    # Each language needs Debian's tesseract-ocr-<lang>.
    ocr_langs: str = Field(
        default=ocr.DEFAULT_LANGS,
        description="Tesseract languages for scanned pages when MinerU's OCR weights are absent, e.g. eng+deu+fra",
    )

    @field_validator("ocr_langs")
    @classmethod
    def _langs(cls, value: str) -> str:
        return ocr.check_langs(value.strip())

    @property
    def may_ocr_with_tesseract(self) -> bool:
        """Only flash in `auto` mode OCRs with Tesseract; `txt` never OCRs, `ocr` and the higher
        tiers use MinerU's models."""
        return self.tier == "flash" and self.parse_mode == "auto"

    def output_settings(self) -> dict:
        """The settings that change MinerU's output — exactly what the fingerprint covers."""
        page_range = self.page_range.strip().lower()
        return {
            "tier": self.tier,
            "parse_mode": self.parse_mode,
            # MinerU gives identical output for "" and "all".
            "page_range": "" if page_range == "all" else page_range,
            "image_analysis": self.image_analysis if self.tier == "advanced" else False,
            "keep_images": self.keep_images,
            "parse_window": self.parse_window,
            # The code that rewrites the PDF MinerU reads (versions.py): a new one re-reads it.
            "preprocess": PREPROCESS_VERSION,
            # Engine, version and languages: a new Tesseract or other languages re-read scans.
            **({"ocr": ocr.fingerprint_settings(self.ocr_langs)} if self.may_ocr_with_tesseract else {}),
        }

    @property
    def fingerprint(self) -> str:
        canonical = json.dumps(self.output_settings(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:12]
