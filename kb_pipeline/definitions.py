"""The code location: every definition in `kb_pipeline/defs/`, found by Dagster's own loader
(`load_from_defs_folder`, configured by `[tool.dg]` in pyproject.toml), plus the `kb` resource
they all use and `review_db`, the review desk's database. `dg check defs`, `dg dev`, `dagster dev` and workspace.yaml load `defs`."""

from pathlib import Path

import dagster as dg

from .defs.assets import mineru_raw_output_asset
from .defs.knowledge import knowledge_code_version, knowledge_payloads_asset
from .defs.resources import KnowledgeBase, ReviewDatabase
from .defs.sensors import build_sensors
from .parsing.mineru_adapter import mineru_version
from .settings import Settings


def build_definitions(kb: KnowledgeBase, settings: Settings | None = None) -> dg.Definitions:
    """The project's definitions bound to one knowledge base (the CLI and tests pass their own).
    The parse step's code version is MinerU's version plus this knowledge base's parser
    fingerprint, the extraction's its code's fingerprint plus its model's, so the UI shows
    partitions unsynced when any of them changes."""
    settings = settings or Settings.from_env()
    parse_version = f"mineru-{mineru_version()}-{kb.parser_config.fingerprint}"
    return dg.Definitions.merge(
        dg.load_from_defs_folder(path_within_project=Path(__file__).parent),
        # Every job runs its steps in the run's own process unless it says otherwise — the
        # automation's table refreshes and the UI's materialisations included: a step process
        # would import Dagster and the code again (~2.5 s of CPU), the warm run worker would not.
        dg.Definitions(
            assets=[
                mineru_raw_output_asset(parse_version),
                knowledge_payloads_asset(knowledge_code_version(kb.model_endpoint)),
            ],
            sensors=build_sensors(settings),
            resources={"kb": kb, "review_db": ReviewDatabase(settings.review_database_url)},
            executor=dg.in_process_executor,
        ),
    )


@dg.definitions
def defs() -> dg.Definitions:
    settings = Settings.from_env()
    return build_definitions(KnowledgeBase.from_settings(settings), settings)
