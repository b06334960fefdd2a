"""Helpers several test modules share (fixtures are in conftest.py; generated PDFs in samples.py)."""

from __future__ import annotations

from collections.abc import Sequence

import dagster as dg

from kb_pipeline.defs.resources import KnowledgeBase, ReviewDatabase
from kb_pipeline.knowledge.extract import DETERMINISTIC_READERS, Reader, extract_document
from kb_pipeline.knowledge.payloads.contracts import Payloads
from kb_pipeline.llm.model import LanguageModel
from kb_pipeline.pipeline import DocumentRun


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


def extract_run(
    run: DocumentRun, readers: Sequence[Reader] = DETERMINISTIC_READERS, model: LanguageModel | None = None
) -> Payloads:
    """A parse's payloads as the product extracts them: from its artifact and its layout."""
    return extract_document(run.document, readers, model, layout=run.layout)
