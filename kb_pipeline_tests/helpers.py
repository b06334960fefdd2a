"""Helpers several test modules share (fixtures are in conftest.py; generated PDFs in samples.py)."""

from __future__ import annotations

import dagster as dg

from kb_pipeline.defs.resources import KnowledgeBase, ReviewDatabase


def asset_resources(kb: KnowledgeBase) -> dict:
    """The resources the definitions give the knowledge and review assets (SQLite decisions)."""
    return {"kb": kb, "review_db": ReviewDatabase(None)}


def latest(instance: dg.DagsterInstance, asset: str, partition: str | None = None) -> dg.AssetMaterialization | None:
    """The asset's (or one partition's) latest materialisation, None when it has none."""
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=dg.AssetKey(asset), asset_partitions=[partition] if partition else None),
        limit=1,
    ).records
    return records[0].asset_materialization if records else None
