"""One settings source: every parser setting is defined once (`ParserConfig`) and reaches the
environment (`KB_<FIELD>`), the command line (`--<field>`) and the `kb` resource unchanged; the
resource is the settings themselves, secrets as the names of their variables."""

from __future__ import annotations

import argparse

import pytest
import sqlalchemy as sa

from kb_pipeline.cli.main import main as cli_main
from kb_pipeline.cli.options import add_parser_options, config_from_args
from kb_pipeline.defs.resources import KnowledgeBase
from kb_pipeline.parsing.backends import InProcess, MineruService, WarmWorkers, backend_for
from kb_pipeline.parsing.config import ParserConfig
from kb_pipeline.settings import Settings, model_endpoint, parser_env_name

from .deployment import free_port

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
    assert isinstance(kb.parse_backend, MineruService) and kb.mineru_api is not None and kb.mineru_api.key == ""


def test_run_workers_default_to_parse_workers():
    assert Settings.from_env({"KB_PARSE_WORKERS": "3"}).run_workers == 3
    assert Settings.from_env({"KB_PARSE_WORKERS": "3", "KB_RUN_WORKERS": "0"}).run_workers == 0


SECRET_ENV = {
    "KB_DATA_DIR": "/srv/kb",
    "KB_SENSOR_INTERVAL": "7",
    "KB_PARSE_RETRIES": "5",
    "KB_MINERU_API_URL": "http://127.0.0.1:9",
    "KB_MINERU_API_KEY": "mineru-secret",
    "KB_LLM_BASE_URL": "http://127.0.0.1:8/v1",
    "KB_LLM_MODEL": "m",
    "OPENAI_API_KEY": "llm-secret",
    "KB_LLM_RETRIES": "0",
    "KB_REVIEW_DATABASE_URL": "postgresql+psycopg2://u:pw-secret@db/kb",
}


def test_the_resource_is_every_setting_but_the_review_database_and_names_its_secrets():
    import dagster as dg

    settings = Settings.from_env(SECRET_ENV)
    kb = KnowledgeBase.from_settings(settings)
    assert set(KnowledgeBase.model_fields) == set(Settings.model_fields) - {"review_database_url", "celery"}
    assert isinstance(kb.mineru_api.key, dg.EnvVar) and kb.mineru_api.key.env_var_name == "KB_MINERU_API_KEY"
    assert isinstance(kb.llm.api_key, dg.EnvVar) and kb.llm.api_key.env_var_name == "OPENAI_API_KEY"
    portable = kb.config_json()
    assert not any(secret in portable for secret in ("mineru-secret", "llm-secret", "pw-secret"))
    assert "KB_MINERU_API_KEY" not in portable  # the key's field travels not at all
    back = KnowledgeBase.from_config_json(portable, settings)
    assert isinstance(back.mineru_api.key, dg.EnvVar) and isinstance(back.llm.api_key, dg.EnvVar)
    public = {"mineru_api": {"key"}, "llm": {"api_key"}, "review_database_url": True}
    assert kb.settings.model_dump(exclude=public) == settings.model_dump(exclude=public)


def test_the_definitions_take_the_sensors_intervals_from_the_resource(tmp_path):
    from kb_pipeline.definitions import build_definitions

    kb = KnowledgeBase(drop_folder=str(tmp_path), data_dir=str(tmp_path), sensor_interval_seconds=7)
    sensor = build_definitions(kb).resolve_sensor_def("drop_folder_sensor")
    assert sensor.minimum_interval_seconds == 7


def test_the_model_steps_are_read_and_an_unknown_one_is_refused():
    assert model_endpoint({}).steps is None  # the measured default for the model
    assert model_endpoint({"KB_LLM_STEPS": "rules, definitions"}).steps == ["rules", "definitions"]
    assert model_endpoint({"KB_LLM_STEPS": ""}).steps == []  # asked in no step
    with pytest.raises(ValueError, match="unknown model step glossary"):
        model_endpoint({"KB_LLM_STEPS": "glossary"})


def test_a_review_database_url_that_cannot_be_opened_is_refused_at_start_in_one_line(monkeypatch, capsys):
    for url, message in (
        ("garbage", "KB_REVIEW_DATABASE_URL: not a database URL: write sqlite:////"),
        ("postgresql://u:pw-secret@db:port/kb", "KB_REVIEW_DATABASE_URL: not a database URL"),
        ("postgres://u:pw-secret@db/kb", "KB_REVIEW_DATABASE_URL: no database of SQLAlchemy's is called 'postgres'"),
        (
            "postgresql+psycopg://u:pw-secret@db/kb",
            r"psycopg's driver \(psycopg\) is not installed: write postgresql://",
        ),
    ):
        with pytest.raises(ValueError, match=message) as refused:
            Settings.from_env({"KB_REVIEW_DATABASE_URL": url})
        assert "pw-secret" not in str(refused.value)
    monkeypatch.setenv("KB_REVIEW_DATABASE_URL", "garbage")
    assert cli_main(["review"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("kb-pipeline: KB_REVIEW_DATABASE_URL: not a database URL")


def test_a_plain_postgresql_url_gets_psycopg2_the_driver_installed_with_kb_pipeline():
    url = Settings.from_env({"KB_REVIEW_DATABASE_URL": "postgresql://kb:p%40ss@db:5433/kb?sslmode=require"})
    assert url.review_database_url == "postgresql+psycopg2://kb:p%40ss@db:5433/kb?sslmode=require"
    assert sa.create_engine(url.review_database_url).dialect.driver == "psycopg2"
    assert (
        Settings.from_env({"KB_REVIEW_DATABASE_URL": "sqlite:///d.sqlite3"}).review_database_url
        == "sqlite:///d.sqlite3"
    )


def test_a_review_database_that_cannot_be_reached_is_said_in_one_line(layout, monkeypatch):
    monkeypatch.setenv("KB_REVIEW_DATABASE_URL", f"postgresql://kb:pw-secret@127.0.0.1:{free_port()}/kb")
    for dagster_variable in ("DAGSTER_HOME", "KB_DAGSTER_DIR"):  # which the command line sets if unset
        monkeypatch.setenv(dagster_variable, str(layout.dagster))
    for argv in (["review"], ["review", "user", "list"]):
        with pytest.raises(SystemExit) as refused:
            cli_main(argv)
        message = str(refused.value.code)
        assert message.startswith("kb-pipeline review: cannot open the review database (KB_REVIEW_DATABASE_URL")
        assert "\n" not in message and "Connection refused" in message and "pw-secret" not in message


def test_a_page_range_or_a_model_switch_that_does_not_read_is_refused_at_start():
    for page_range in ("1-3", "1-5,8", "r3-r1", "all"):
        assert Settings.from_env({"KB_PAGE_RANGE": page_range}).parser.page_range == page_range
    with pytest.raises(ValueError, match="KB_PAGE_RANGE: Invalid page range 'zzz'"):
        Settings.from_env({"KB_PAGE_RANGE": "zzz"})
    with pytest.raises(ValueError, match="KB_PAGE_RANGE: Invalid page range '5-2': reversed"):
        Settings.from_env({"KB_PAGE_RANGE": "5-2"})
    assert Settings.from_env({"KB_LLM": " OFF "}).llm is None
    assert Settings.from_env({"KB_LLM": "on"}).llm == Settings.from_env({}).llm is not None
    with pytest.raises(ValueError, match="KB_LLM='maybe': on or off"):
        Settings.from_env({"KB_LLM": "maybe"})
