"""`KnowledgeBase`: the resource every asset and sensor gets — the `Settings` of one deployment
(kb_pipeline/settings.py) as Dagster config, so `dagster dev`, the sensor and `kb-pipeline
ingest` agree without repeating configuration. Its fields are the settings' own (`config_class`
derives them), so a new setting needs no code here; `settings` gives them back, validated."""

from __future__ import annotations

import json
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union, get_args, get_origin

import dagster as dg
from pydantic import BaseModel, ConfigDict, Field, create_model

from ..llm.endpoint import ModelEndpoint
from ..parsing.backends import InProcess, MineruService, ParseBackend
from ..parsing.config import ParserConfig
from ..parsing.mineru_adapter import mineru_version
from ..parsing.mineru_api import MineruApi
from ..paths import DataLayout
from ..pipeline import Parsing
from ..review.store import DecisionStore
from ..settings import MINERU_API_KEY_ENV, Settings
from ..sources import SourceFile, list_pdfs
from ..versions import NORMALISER_VERSION

# Where the settings keep a secret. Dagster config holds its environment variable's name
# (`dg.EnvVar`), so the UI shows the name, never the value; the review database's URL, which may
# hold a password too, is no config at all (`ReviewDatabase`), nor are the Celery broker's URLs (the
# run launcher and the workers read them, runs/celery.py).
SECRETS = {"mineru_api": {"key"}, "llm": {"api_key"}}
_SECTIONS: dict[str, type[BaseModel]] = {"mineru_api": MineruApi, "llm": ModelEndpoint}
_NOT_CONFIG = {"review_database_url", "celery"}
_CONFIG_CLASSES: dict[type[BaseModel], Any] = {}


def config_class(
    model: type[BaseModel], base: type[BaseModel] = dg.Config, exclude: frozenset[str] = frozenset()
) -> Any:
    """`model`'s fields as Dagster config (shown and editable in the UI's launchpad): a path as
    its string, a nested model as its config class; defaults and descriptions kept. Values are
    validated when they become the model again."""
    fields = {}
    for name, field in model.model_fields.items():
        if name in exclude:
            continue
        if field.is_required():
            default = Field(description=field.description)
        elif field.default_factory is not None or isinstance(field.default, BaseModel):
            # A nested config's default must come from a factory (Dagster's rule).
            default = Field(
                default_factory=lambda f=field: _config_value(f.get_default(call_default_factory=True)),
                description=field.description,
            )
        else:
            default = Field(default=_config_value(field.default), description=field.description)
        fields[name] = (_config_type(field.annotation), default)
    config = create_model(f"{model.__name__}Options", __base__=base, **fields)  # type: ignore[call-overload]
    _CONFIG_CLASSES[model] = config
    return config


def _config_type(annotation: Any) -> Any:
    if annotation is Path:
        return str
    if annotation in _CONFIG_CLASSES:
        return _CONFIG_CLASSES[annotation]
    if get_origin(annotation) in (Union, types.UnionType):
        return Union[tuple(_config_type(a) for a in get_args(annotation))]  # noqa: UP007 — built from a tuple
    return annotation


def _config_value(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, BaseModel):
        return _CONFIG_CLASSES[type(value)](**{name: _config_value(v) for name, v in value})
    return value


ParserOptions = config_class(ParserConfig)
MineruApiOptions = config_class(MineruApi)
ModelOptions = config_class(ModelEndpoint)


class _StrictResource(dg.ConfigurableResource):
    # A misspelt or flat field (`KnowledgeBase(tier=...)`) is an error, not silently dropped.
    model_config = ConfigDict(extra="forbid")


_SettingsConfig = config_class(Settings, _StrictResource, frozenset(_NOT_CONFIG))


class KnowledgeBase(_SettingsConfig):  # type: ignore[misc, valid-type]
    """Where documents come from, where data lives, how MinerU parses and which model extraction
    asks: every setting but the review database's URL. Built from the `Settings` when the code
    location loads (`from_settings`); tests pass their own fields."""

    @classmethod
    def from_settings(cls, settings: Settings) -> KnowledgeBase:
        fields = {name: _config_value(value) for name, value in settings if name not in _NOT_CONFIG}
        api, endpoint = settings.mineru_api, settings.llm
        if api is not None:
            fields["mineru_api"] = fields["mineru_api"].model_copy(
                update={"key": dg.EnvVar(MINERU_API_KEY_ENV) if api.key else ""}
            )
        if endpoint is not None:
            variable = endpoint.api_key_variable
            fields["llm"] = fields["llm"].model_copy(update={"api_key": dg.EnvVar(variable) if variable else ""})
        return cls(**fields)

    @property
    def settings(self) -> Settings:
        """The fields as the settings they are, validated (the review database's URL aside: None).
        In a run, a secret is its value; outside one, its variable's name."""
        return Settings.model_validate(self.model_dump())

    def config_json(self) -> str:
        """The fields without the secrets: what may travel in a run's origin."""
        return self.model_dump_json(exclude=SECRETS)

    @classmethod
    def from_config_json(cls, fields: str, settings: Settings) -> KnowledgeBase:
        """`config_json`'s fields with the secrets named as `from_settings` names them."""
        named = cls.from_settings(settings)
        config = json.loads(fields)
        for section, names in SECRETS.items():
            if config[section] is not None:
                source = getattr(named, section)
                secrets = {name: getattr(source, name) if source is not None else "" for name in names}
                config[section] = _CONFIG_CLASSES[_SECTIONS[section]](**config[section]).model_copy(update=secrets)
        return cls(**config)

    @property
    def parse_backend(self) -> ParseBackend:
        """MinerU's API service when configured, else MinerU in this process (a warm run worker's)."""
        api = self.settings.mineru_api
        return MineruService(api) if api else InProcess()

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


@dataclass(frozen=True)
class ReviewDatabase:
    """The review desk's decisions database (`Settings.review_database_url`; None: SQLite under the
    data root), the `review_db` resource. A plain object, not config: on Postgres its URL holds the
    password, and a resource's config is shown in the UI. Read only: the desk creates the table."""

    url: str | None

    def store(self, layout: DataLayout) -> DecisionStore:
        return DecisionStore.open(self.url, layout, create=False)
