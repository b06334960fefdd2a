"""The review desk's side of the asset graph (docs/review.md, docs/decisions.md "Review desk"):

    review_decisions (external: the desk's database) ─┐
    knowledge_payloads ───────────────────────────────┴→ active_glossary

Decisions are made outside Dagster, in the review desk's database. `review_decisions_sensor`
looks at the database's newest decision id every 30 s; when it moved, it records an observation
of `review_decisions` and materialises `active_glossary`, the approved entries as JSON and CSV
under <data root>/review/. A re-extraction refreshes it too (its orphaned flags).

The database URL is read from the settings of the process the code runs in, never put in
Dagster config: on Postgres it holds the password (settings.py, KB_PG_*).
"""

import dagster as dg

from ..knowledge.diff import ApprovedDefinition
from ..review_desk.corpus import Corpus
from ..review_desk.export import active_entries, write_active_glossary
from ..review_desk.store import DecisionStore, read_active_glossary
from ..settings import Settings
from .assets import OWNERS, REFRESH_AFTER_ANY_DOCUMENT
from .names import ACTIVE_GLOSSARY, KNOWLEDGE_PAYLOADS, REVIEW_DECISIONS
from .resources import KnowledgeBase

_PREVIEW_ENTRIES = 10

review_decisions = dg.AssetSpec(
    REVIEW_DECISIONS,
    description="Reviewers' approve / edit / reject decisions, keyed by term_id, in the review desk's database "
    "(`kb-pipeline review`). Made outside Dagster; observed by review_decisions_sensor.",
    kinds={"sqlite", "postgres"},
    owners=OWNERS,
    group_name="review",
)


def decision_store(kb: KnowledgeBase) -> DecisionStore:
    """The desk's database, read only: the sensor and the asset never create it."""
    return DecisionStore.open(Settings.from_env().review_database_url, kb.layout, create=False)


def approved_definitions(kb: KnowledgeBase) -> list[ApprovedDefinition]:
    """The active glossary version the diff stage compares a (re-)extraction with."""
    return read_active_glossary(Settings.from_env().review_database_url, kb.layout)


@dg.asset(
    name=ACTIVE_GLOSSARY,
    deps=[review_decisions, KNOWLEDGE_PAYLOADS],
    description="The active glossary: every entry whose current decision approves it (an edit approves the edited "
    "definition), as data/review/active_glossary.json and .csv. What downstream users consume.",
    kinds={"json", "csv"},
    owners=OWNERS,
    group_name="review",
    automation_condition=REFRESH_AFTER_ANY_DOCUMENT,
)
def active_glossary(context: dg.AssetExecutionContext, kb: KnowledgeBase) -> dg.MaterializeResult:
    store = decision_store(kb)
    try:
        entries = active_entries(store, Corpus(kb.layout))
        revision = store.revision()
    finally:
        store.close()
    paths = write_active_glossary(entries, kb.layout.within(kb.layout.root / "review"))
    lines = ["| term | definition | edited | reviewer |", "|---|---|---|---|"]
    lines += [
        "| "
        + " | ".join(
            " ".join(str(c).split()).replace("|", "\\|")
            for c in (e.term, (e.definition or "")[:120], e.edited, e.reviewer)
        )
        + " |"
        for e in entries[:_PREVIEW_ENTRIES]
    ]
    return dg.MaterializeResult(
        metadata={
            "entries": len(entries),
            "edited": sum(e.edited for e in entries),
            "orphaned": sum(e.orphaned for e in entries),
            "decision_revision": revision,
            "json": dg.MetadataValue.path(str(paths[0])),
            "csv": dg.MetadataValue.path(str(paths[1])),
            "preview": dg.MetadataValue.md("\n".join(lines) if entries else "no approved entries"),
        }
    )


@dg.sensor(
    name="review_decisions_sensor",
    asset_selection=[ACTIVE_GLOSSARY],
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Materialises active_glossary when a reviewer made a decision (the newest decision id moved).",
)
def review_decisions_sensor(context: dg.SensorEvaluationContext, kb: KnowledgeBase) -> dg.SensorResult | dg.SkipReason:
    store = decision_store(kb)
    try:
        revision = store.revision()
    finally:
        store.close()
    if revision == (context.cursor or "0.0"):
        return dg.SkipReason(f"no decision since revision {revision} (decisions.newest id)")
    # No run key: the cursor decides, and a recreated database may repeat a revision.
    return dg.SensorResult(
        run_requests=[dg.RunRequest()],
        asset_events=[dg.AssetObservation(REVIEW_DECISIONS, metadata={"revision": revision})],
        cursor=revision,
    )
