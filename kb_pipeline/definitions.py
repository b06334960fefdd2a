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


def build_definitions(kb: KnowledgeBase, review_db: ReviewDatabase | None = None) -> dg.Definitions:
    """The project's definitions bound to one knowledge base — its settings, the sensors'
    intervals included — and one review database (default: SQLite under its data root). The
    parse step's code version is MinerU's version plus the parser fingerprint, the extraction's
    its code's fingerprint plus its model's, so the UI shows partitions unsynced when any of
    them changes."""
    settings = kb.settings
    parse_version = f"mineru-{mineru_version()}-{settings.parser.fingerprint}"
    return dg.Definitions.merge(
        dg.load_from_defs_folder(path_within_project=Path(__file__).parent),
        # Every job runs its steps in the run's own process unless it says otherwise — the
        # automation's table refreshes and the UI's materialisations included: a step process
        # would import Dagster and the code again (~2.5 s of CPU), the warm run worker would not.
        dg.Definitions(
            assets=[
                mineru_raw_output_asset(parse_version),
                knowledge_payloads_asset(knowledge_code_version(settings.llm)),
            ],
            sensors=build_sensors(settings),
            resources={"kb": kb, "review_db": review_db or ReviewDatabase(None)},
            executor=dg.in_process_executor,
        ),
    )


def definitions_for(settings: Settings) -> dg.Definitions:
    """The definitions of one deployment's settings."""
    return build_definitions(KnowledgeBase.from_settings(settings), ReviewDatabase(settings.review_database_url))


@dg.definitions
def defs() -> dg.Definitions:
    # The code location's one read of the environment.
    return definitions_for(Settings.from_env())
