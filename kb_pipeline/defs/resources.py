"""`KnowledgeBase`: the resource every asset and sensor gets — the `Settings` of one deployment
(kb_pipeline/settings.py) as Dagster config, so `dagster dev`, the sensor and `kb-pipeline
ingest` agree without repeating configuration."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from ..config import ParserConfig
from ..parsing.mineru_adapter import mineru_version
from ..paths import DataLayout
from ..settings import Settings
from ..sources import SourceFile, list_pdfs
from ..versions import NORMALISER_VERSION

# The parser settings the resource carries as Dagster config (fields of both it and ParserConfig).
_PARSER_FIELDS = ("tier", "parse_mode", "page_range", "max_pages", "ocr_langs", "parse_window")


class KnowledgeBase(dg.ConfigurableResource):
    """Where documents come from, where data lives, and how MinerU parses. Built from the
    `Settings` when the code location loads (`from_settings`); tests and the CLI pass their own."""

    drop_folder: str
    data_dir: str
    # Typed as plain strings for Dagster's config system; `parser_config` validates them.
    tier: str = "flash"
    parse_mode: str = "auto"
    page_range: str = ""
    max_pages: int = ParserConfig().max_pages
    ocr_langs: str = ParserConfig().ocr_langs
    parse_window: int = ParserConfig().parse_window
    # A parse backend that failed (MinerU's API service unreachable, a warm worker killed) is
    # not the document's fault: the parse step is tried again, this many times, this far apart.
    parse_retries: int = 2
    parse_retry_seconds: float = 10.0

    @classmethod
    def from_settings(cls, settings: Settings) -> KnowledgeBase:
        return cls(
            drop_folder=str(settings.drop_folder),
            data_dir=str(settings.data_dir),
            **settings.parser.model_dump(include=set(_PARSER_FIELDS)),
            parse_retries=settings.parse_retries,
            parse_retry_seconds=settings.parse_retry_seconds,
        )

    @property
    def layout(self) -> DataLayout:
        return DataLayout(Path(self.data_dir).resolve())

    @property
    def folder(self) -> Path:
        return Path(self.drop_folder).resolve()

    @property
    def parser_config(self) -> ParserConfig:
        return ParserConfig.model_validate({name: getattr(self, name) for name in _PARSER_FIELDS})

    @property
    def processing_identity(self) -> str:
        """What, besides the PDF's bytes, decides the artifact: parser settings, MinerU, our code."""
        return f"{self.parser_config.fingerprint}-{mineru_version()}-{NORMALISER_VERSION}"

    def find_source(self, doc_id: str) -> SourceFile:
        """The drop-folder file behind a partition key (ids are derived from names, not stored)."""
        sources, _skipped = list_pdfs(self.folder)
        for source in sources:
            if source.doc_id == doc_id:
                return source
        raise dg.Failure(
            description=f"No PDF for document {doc_id!r} in {self.folder}: it was removed or renamed. "
            "Its earlier artifacts are kept; drop the file again to re-ingest it.",
            allow_retries=False,
        )
