"""Command-line options for every `ParserConfig` field, derived from the model (its types,
defaults and descriptions), so a new parser setting is an option with no code here."""

from __future__ import annotations

import argparse
import typing

from ..parsing.config import ParserConfig
from ..settings import parser_env_name


def add_parser_options(parser: argparse.ArgumentParser) -> None:
    """`--<field>` for each parser setting; one left out keeps the setting's value (`KB_<FIELD>`)."""
    for name, field in ParserConfig.model_fields.items():
        flag = "--" + name.replace("_", "-")
        help_text = f"{field.description} (default: {parser_env_name(name)} or {field.default!r})"
        if field.annotation is bool:
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=None, help=help_text)
        elif typing.get_origin(field.annotation) is typing.Literal:
            parser.add_argument(flag, choices=typing.get_args(field.annotation), help=help_text)
        else:
            parser.add_argument(flag, type=field.annotation, help=help_text)  # type: ignore[arg-type]


def config_from_args(args: argparse.Namespace, base: ParserConfig) -> ParserConfig:
    """`base` (the settings' parser config) with the options given on the command line."""
    given = {name: getattr(args, name) for name in ParserConfig.model_fields if getattr(args, name, None) is not None}
    return ParserConfig.model_validate({**base.model_dump(), **given})
