"""The code location: every definition in `kb_pipeline/defs/`, found by Dagster's own loader
(`load_from_defs_folder`, configured by `[tool.dg]` in pyproject.toml), plus the `kb` resource
they all use. `dg check defs`, `dg dev`, `dagster dev` and workspace.yaml load `defs`."""

from pathlib import Path

import dagster as dg

from .defs.resources import KnowledgeBase


def build_definitions(kb: KnowledgeBase) -> dg.Definitions:
    """The project's definitions bound to one knowledge base (the CLI and tests pass their own)."""
    return dg.Definitions.merge(
        dg.load_from_defs_folder(path_within_project=Path(__file__).parent),
        dg.Definitions(resources={"kb": kb}),
    )


@dg.definitions
def defs() -> dg.Definitions:
    return build_definitions(KnowledgeBase())
