"""`KnowledgeBase`: where documents come from, where data lives, and how MinerU parses.

Every default can be set from the environment, so `dagster dev`, the sensor and
`kb-pipeline ingest` agree without repeating configuration: KB_DROP_FOLDER, KB_DATA_DIR,
KB_TIER, KB_PARSE_MODE, KB_PAGE_RANGE, KB_MAX_PAGES, KB_PARSE_WINDOW.
"""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg

from ..config import ParserConfig
from ..normalise import NORMALISER_VERSION
from ..parsing.mineru_adapter import mineru_version
from ..paths import DATA_DIR_ENV, DataLayout
from ..sources import SourceFile, list_pdfs


def parser_config_from_env() -> ParserConfig:
    defaults = ParserConfig()
    return ParserConfig(
        tier=os.environ.get("KB_TIER", defaults.tier),
        parse_mode=os.environ.get("KB_PARSE_MODE", defaults.parse_mode),
        page_range=os.environ.get("KB_PAGE_RANGE", defaults.page_range),
        max_pages=int(os.environ.get("KB_MAX_PAGES", defaults.max_pages)),
        parse_window=int(os.environ.get("KB_PARSE_WINDOW", defaults.parse_window)),
    )


_ENV_CONFIG = parser_config_from_env()


class KnowledgeBase(dg.ConfigurableResource):
    drop_folder: str = os.environ.get("KB_DROP_FOLDER", "data/knowledge_docs")
    data_dir: str = os.environ.get(DATA_DIR_ENV, "data")
    tier: str = _ENV_CONFIG.tier
    parse_mode: str = _ENV_CONFIG.parse_mode
    page_range: str = _ENV_CONFIG.page_range
    max_pages: int = _ENV_CONFIG.max_pages
    parse_window: int = _ENV_CONFIG.parse_window

    @property
    def layout(self) -> DataLayout:
        return DataLayout(Path(self.data_dir).resolve())

    @property
    def folder(self) -> Path:
        return Path(self.drop_folder).resolve()

    @property
    def parser_config(self) -> ParserConfig:
        return ParserConfig(tier=self.tier, parse_mode=self.parse_mode, page_range=self.page_range,
                            max_pages=self.max_pages, parse_window=self.parse_window)

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
