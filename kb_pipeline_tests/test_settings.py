"""One settings source: every parser setting is defined once (`ParserConfig`) and reaches the
environment (`KB_<FIELD>`), the command line (`--<field>`) and the `kb` resource unchanged."""

from __future__ import annotations

import argparse

import pytest

from kb_pipeline.cli.options import add_parser_options, config_from_args
from kb_pipeline.defs.resources import KnowledgeBase
from kb_pipeline.parsing.backends import InProcess, MineruService, WarmWorkers, backend_for
from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.settings import Settings, parser_env_name

# A value other than the default for every parser field, so each one is seen to travel.
CHANGED = {
    "tier": "basic",
    "parse_mode": "txt",
    "page_range": "1-3",
    "image_analysis": True,
    "keep_images": False,
    "parse_window": 7,
    "max_pages": 12,
    "ocr_langs": "eng",
}


def test_the_changed_values_cover_every_parser_field():
    assert set(CHANGED) == set(ParserConfig.model_fields)
    assert all(CHANGED[n] != f.default for n, f in ParserConfig.model_fields.items() if n != "ocr_langs")


def test_every_parser_field_is_read_from_its_environment_variable():
    env = {parser_env_name(name): str(value).lower() for name, value in CHANGED.items()}
    assert Settings.from_env(env).parser == ParserConfig(**CHANGED)
    assert Settings.from_env({}).parser == ParserConfig()


def test_every_parser_field_is_a_command_line_option_and_an_option_given_wins():
    parser = argparse.ArgumentParser()
    add_parser_options(parser)
    args = parser.parse_args(
        ["--tier", "basic", "--parse-mode", "txt", "--page-range", "1-3", "--image-analysis", "--no-keep-images"]
        + ["--parse-window", "7", "--max-pages", "12", "--ocr-langs", "eng"]
    )
    assert config_from_args(args, ParserConfig()) == ParserConfig(**CHANGED)
    untouched = config_from_args(parser.parse_args([]), ParserConfig(**CHANGED))
    assert untouched == ParserConfig(**CHANGED), "an option left out keeps the setting's value"


def test_the_resource_carries_every_parser_field_and_refuses_a_flat_one(tmp_path):
    settings = Settings(data_dir=tmp_path, drop_folder=tmp_path, parser=ParserConfig(**CHANGED))
    kb = KnowledgeBase.from_settings(settings)
    assert kb.parser_config == ParserConfig(**CHANGED)
    with pytest.raises(ValueError, match="tier"):
        KnowledgeBase(drop_folder=str(tmp_path), data_dir=str(tmp_path), tier="basic")


def test_the_parse_backend_is_chosen_once_from_the_settings(tmp_path):
    api = Settings.from_env({"KB_MINERU_API_URL": "http://127.0.0.1:9/", "KB_MINERU_API_KEY": "k"}).mineru_api
    assert api is not None and api.url == "http://127.0.0.1:9" and api.key == "k"
    assert isinstance(backend_for(api, tmp_path, workers=4), MineruService)
    assert isinstance(backend_for(None, tmp_path, workers=1), InProcess)
    pool = backend_for(None, tmp_path, workers=2)
    assert isinstance(pool, WarmWorkers) and pool.busy == {}, "no worker starts before a parse"
    pool.close()
    kb = KnowledgeBase.from_settings(Settings.from_env({"KB_MINERU_API_URL": "http://127.0.0.1:9"}))
    assert isinstance(kb.parse_backend, MineruService) and kb.mineru_api_key == ""


def test_run_workers_default_to_parse_workers():
    assert Settings.from_env({"KB_PARSE_WORKERS": "3"}).run_workers == 3
    assert Settings.from_env({"KB_PARSE_WORKERS": "3", "KB_RUN_WORKERS": "0"}).run_workers == 0
