"""`KnowledgeBase`: the resource every asset and sensor gets — the `Settings` of one deployment
(kb_pipeline/settings.py) as Dagster config, so `dagster dev`, the sensor and `kb-pipeline
ingest` agree without repeating configuration."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import dagster as dg
from pydantic import ConfigDict, Field, create_model

from ..knowledge.diff import ApprovedDefinition
from ..llm.endpoint import ModelEndpoint
from ..parsing.backends import InProcess, MineruService, ParseBackend
from ..parsing.config import ParserConfig
from ..parsing.mineru_adapter import mineru_version
from ..parsing.mineru_api import MineruApi
from ..paths import DataLayout
from ..pipeline import Parsing
from ..review_desk.store import DecisionStore, read_active_glossary
from ..settings import Settings
from ..sources import SourceFile, list_pdfs
from ..versions import NORMALISER_VERSION

# `ParserConfig`'s fields as Dagster config (shown and editable in the UI's launchpad), derived
# from the model so a new parser setting needs no code here; `parser_config` validates them.
ParserOptions = create_model(
    "ParserOptions",
    __base__=dg.Config,
    **{
        name: (field.annotation, Field(default=field.default, description=field.description))
        for name, field in ParserConfig.model_fields.items()
    },  # type: ignore[call-overload]
)


class KnowledgeBase(dg.ConfigurableResource):
    """Where documents come from, where data lives, and how MinerU parses. Built from the
    `Settings` when the code location loads (`from_settings`); tests and the CLI pass their own."""

    # A misspelt or flat parser field (`KnowledgeBase(tier=...)`) is an error, not silently dropped.
    model_config = ConfigDict(extra="forbid")

    drop_folder: str
    data_dir: str
    parser: ParserOptions = ParserOptions()
    # A parse backend that failed (MinerU's API service unreachable, a warm worker killed) is
    # not the document's fault: the parse step is tried again, this many times, this far apart.
    parse_retries: int = 2
    parse_retry_seconds: float = 10.0
    windows_per_worker: int = Settings.model_fields["windows_per_worker"].default
    # MinerU's API service parses instead of this process when set (`KB_MINERU_API_URL`); its key
    # is passed as Dagster's EnvVar, so the UI shows the variable's name, never the key.
    mineru_api_url: str = ""
    mineru_api_key: str = ""
    mineru_api_timeout_seconds: float = MineruApi.model_fields["timeout_seconds"].default
    # The language model extraction asks (`KB_LLM_*`, settings.py): an OpenAI-compatible endpoint
    # (URL and model), else the embedded server on `llm_gguf` (empty: SmolLM2-135M); `llm_enabled`
    # false is `KB_LLM=off`. The key, like MinerU's, is an EnvVar: the UI shows its name only.
    llm_enabled: bool = True
    llm_base_url: str = ""
    llm_model: str = ""
    llm_api_key: str = ""
    llm_gguf: str = ""
    llm_timeout_seconds: float = ModelEndpoint.model_fields["timeout_seconds"].default
    llm_retries: int = ModelEndpoint.model_fields["retries"].default

    @classmethod
    def from_settings(cls, settings: Settings) -> KnowledgeBase:
        api = settings.mineru_api
        return cls(
            drop_folder=str(settings.drop_folder),
            data_dir=str(settings.data_dir),
            parser=ParserOptions(**settings.parser.model_dump()),
            parse_retries=settings.parse_retries,
            parse_retry_seconds=settings.parse_retry_seconds,
            windows_per_worker=settings.windows_per_worker,
            mineru_api_url=api.url if api else "",
            mineru_api_key=dg.EnvVar("KB_MINERU_API_KEY") if api and api.key else "",
            mineru_api_timeout_seconds=api.timeout_seconds
            if api
            else MineruApi.model_fields["timeout_seconds"].default,
            **_llm_fields(settings.llm),
        )

    @property
    def model_endpoint(self) -> ModelEndpoint | None:
        if not self.llm_enabled:
            return None
        return ModelEndpoint(
            base_url=self.llm_base_url or None,
            model=self.llm_model or None,
            api_key=self.llm_api_key,
            gguf=Path(self.llm_gguf) if self.llm_gguf else None,
            timeout_seconds=self.llm_timeout_seconds,
            retries=self.llm_retries,
        )

    @property
    def parse_backend(self) -> ParseBackend:
        """MinerU's API service when configured, else MinerU in this process (a warm run worker's)."""
        if self.mineru_api_url:
            return MineruService(
                MineruApi(
                    url=self.mineru_api_url, key=self.mineru_api_key, timeout_seconds=self.mineru_api_timeout_seconds
                )
            )
        return InProcess()

    @property
    def parsing(self) -> Parsing:
        return Parsing(self.parser_config, self.layout, self.parse_backend, self.windows_per_worker)

    @property
    def layout(self) -> DataLayout:
        return DataLayout(Path(self.data_dir).resolve())

    @property
    def folder(self) -> Path:
        return Path(self.drop_folder).resolve()

    @property
    def parser_config(self) -> ParserConfig:
        return ParserConfig.model_validate(self.parser.model_dump())

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


def _llm_fields(endpoint: ModelEndpoint | None) -> dict:
    if endpoint is None:
        return {"llm_enabled": False}
    return {
        "llm_base_url": endpoint.base_url or "",
        "llm_model": endpoint.model or "",
        "llm_api_key": dg.EnvVar(endpoint.api_key_variable) if endpoint.api_key_variable else "",
        "llm_gguf": str(endpoint.gguf or ""),
        "llm_timeout_seconds": endpoint.timeout_seconds,
        "llm_retries": endpoint.retries,
    }


@dataclass(frozen=True)
class ReviewDatabase:
    """The review desk's decisions database (`Settings.review_database_url`; None: SQLite under the
    data root), the `review_db` resource. A plain object, not config: on Postgres its URL holds the
    password, and a resource's config is shown in the UI. Read only: the desk creates the table."""

    url: str | None

    def store(self, layout: DataLayout) -> DecisionStore:
        return DecisionStore.open(self.url, layout, create=False)

    def approved(self, layout: DataLayout) -> list[ApprovedDefinition]:
        """The active glossary version the diff stage compares a (re-)extraction with."""
        return read_active_glossary(self.url, layout)
