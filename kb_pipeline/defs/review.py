"""The review desk's side of the asset graph (docs/review.md, docs/decisions.md "Review desk"):

    review_decisions (external: the desk's database) ─┐
    knowledge_payloads ───────────────────────────────┴→ active_glossary

Decisions are made outside Dagster, in the review desk's database. `review_decisions_sensor`
looks at the database's newest decision id every 30 s; when it moved, it records an observation
of `review_decisions` and materialises `active_glossary`, the approved entries as JSON, CSV and
TBX, and the approved rules, formulas and briefs as JSON and CSV, under <data root>/review/. A re-extraction refreshes it too (its orphaned flags).

The database is the `review_db` resource (`ReviewDatabase`: the settings' URL, read when the
code location loads), never Dagster config: on Postgres its URL holds the password.
"""

import dagster as dg

from ..files import write_text_atomically
from ..review_desk.corpus import Corpus
from ..review_desk.export import active_entries, active_knowledge, write_active_glossary, write_active_knowledge
from ..review_desk.tbx import to_tbx
from .assets import OWNERS, REFRESH_AFTER_ANY_DOCUMENT
from .names import ACTIVE_GLOSSARY, KNOWLEDGE_PAYLOADS, REVIEW_DECISIONS
from .resources import KnowledgeBase, ReviewDatabase

_PREVIEW_ENTRIES = 10

review_decisions = dg.AssetSpec(
    REVIEW_DECISIONS,
    description="Reviewers' approve / edit / reject decisions, keyed by term_id, in the review desk's database "
    "(`kb-pipeline review`). Made outside Dagster; observed by review_decisions_sensor.",
    kinds={"sqlite", "postgres"},
    owners=OWNERS,
    group_name="review",
)


@dg.asset(
    name=ACTIVE_GLOSSARY,
    deps=[review_decisions, KNOWLEDGE_PAYLOADS],
    description="The active glossary: every entry whose current decision approves it (an edit approves the edited "
    "definition), as data/review/active_glossary.json, .csv and .tbx (TBX-Basic); the approved rules, formulas and "
    "briefs beside it as active_knowledge.json and .csv. What downstream users consume.",
    kinds={"json", "csv", "xml"},
    owners=OWNERS,
    group_name="review",
    automation_condition=REFRESH_AFTER_ANY_DOCUMENT,
)
def active_glossary(kb: KnowledgeBase, review_db: dg.ResourceParam[ReviewDatabase]) -> dg.MaterializeResult:
    store = review_db.store(kb.layout)
    corpus = Corpus(kb.layout)
    try:
        entries = active_entries(store, corpus)
        knowledge = active_knowledge(store, corpus)
        revision = store.revision()
    finally:
        store.close()
    out = kb.layout.within(kb.layout.review)
    paths = write_active_glossary(entries, out) + write_active_knowledge(knowledge, out)
    write_text_atomically(out / "active_glossary.tbx", to_tbx(entries, corpus))
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
            "approved_rules_formulas_briefs": len(knowledge),
            "decision_revision": revision,
            "json": dg.MetadataValue.path(str(paths[0])),
            "csv": dg.MetadataValue.path(str(paths[1])),
            "knowledge_json": dg.MetadataValue.path(str(paths[2])),
            "tbx": dg.MetadataValue.path(str(out / "active_glossary.tbx")),
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
def review_decisions_sensor(
    context: dg.SensorEvaluationContext, kb: KnowledgeBase, review_db: dg.ResourceParam[ReviewDatabase]
) -> dg.SensorResult | dg.SkipReason:
    store = review_db.store(kb.layout)
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
