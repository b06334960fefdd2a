"""The review desk's side of the asset graph (docs/review.md, docs/decisions.md "Review desk"):

    review_decisions (external: the desk's database) ─┐                    ┌→ glossary_tbx
    knowledge_payloads ───────────────────────────────┴→ active_knowledge ─┴→ glossary_skos

Decisions are made outside Dagster, in the review desk's database. `review_decisions_sensor`
looks at the database's newest decision id every 30 s; when it moved, it records an observation
of `review_decisions` and materialises the exports: `active_knowledge`, the approved terms
(active_glossary.json, .csv) and the approved rules, formulas and briefs (active_knowledge.json,
.csv), and downstream of it the glossary in the terminology formats, `glossary_tbx` (TBX-Basic)
and `glossary_skos` (SKOS, Turtle), all under <data root>/review/. A re-extraction refreshes
them too (their orphaned flags, full names, pages, and the ids a re-parse moved approvals to:
the re-attachments applied, never recorded, reattach.py `read_decisions`). The three are one
step, `knowledge_exports`, writing them with the CLI's writer (`write_knowledge_export`) from
one reading of the decisions, so they always agree; the lineage between them says what the
formats are made from.

The database is the `review_db` resource (`ReviewDatabase`: the settings' URL, read when the
code location loads), never Dagster config: on Postgres its URL holds the password.
"""

from collections.abc import Iterator
from pathlib import Path

import dagster as dg

from ..review.corpus import Corpus
from ..review.expert_entries import ExpertEntries
from ..review.knowledge_export import write_knowledge_export
from .assets import OWNERS, REFRESH_AFTER_ANY_DOCUMENT
from .names import ACTIVE_KNOWLEDGE, GLOSSARY_SKOS, GLOSSARY_TBX, KNOWLEDGE_PAYLOADS, REVIEW_DECISIONS
from .resources import KnowledgeBase, ReviewDatabase

_PREVIEW_ENTRIES = 10
_PREVIEW_LINES = 40

review_decisions = dg.AssetSpec(
    REVIEW_DECISIONS,
    description="Reviewers' approve / edit / reject decisions, keyed by the entry's id, in the review desk's "
    "database (`kb-pipeline review`). Made outside Dagster; observed by review_decisions_sensor.",
    kinds={"sqlite", "postgres"},
    owners=OWNERS,
    group_name="review",
)


def _file_preview(path: Path, language: str) -> dg.MetadataValue:
    lines = path.read_text(encoding="utf-8").splitlines()
    more = f"\n… {len(lines) - _PREVIEW_LINES} more lines" if len(lines) > _PREVIEW_LINES else ""
    return dg.MetadataValue.md(f"```{language}\n" + "\n".join(lines[:_PREVIEW_LINES]) + f"\n```{more}")


# Not subsettable: one reading of the decisions makes all three. The sensor requests the three;
# automation, whose condition is on active_knowledge alone, requests them together too
# (test_review_exports: all three after a knowledge_payloads materialisation).
@dg.multi_asset(
    name="knowledge_exports",
    specs=[
        dg.AssetSpec(
            ACTIVE_KNOWLEDGE,
            deps=[review_decisions, KNOWLEDGE_PAYLOADS],
            description="The active knowledge: every entry whose current decision approves it (an edit approves the "
            "edited text). The terms as data/review/active_glossary.json and .csv, the rules, formulas and briefs as "
            "active_knowledge.json and .csv. What downstream users consume.",
            kinds={"json", "csv"},
            owners=OWNERS,
            group_name="review",
            automation_condition=REFRESH_AFTER_ANY_DOCUMENT,
        ),
        dg.AssetSpec(
            GLOSSARY_TBX,
            deps=[ACTIVE_KNOWLEDGE],
            description="The approved glossary as TBX (ISO 30042, TBX-Basic), data/review/active_glossary.tbx: one "
            "conceptEntry per approved term, for terminology tools.",
            kinds={"xml"},
            owners=OWNERS,
            group_name="review",
        ),
        dg.AssetSpec(
            GLOSSARY_SKOS,
            deps=[ACTIVE_KNOWLEDGE],
            description="The approved glossary as SKOS in Turtle, data/review/active_glossary.ttl: one skos:Concept per "
            "approved term, a changeNote per decision, for thesaurus and linked-data tools.",
            kinds={"rdf", "turtle"},
            owners=OWNERS,
            group_name="review",
        ),
    ],
)
def knowledge_exports(kb: KnowledgeBase, review_db: dg.ResourceParam[ReviewDatabase]) -> Iterator[dg.MaterializeResult]:
    store = review_db.store(kb.layout)
    try:
        written = write_knowledge_export(
            store, Corpus(kb.layout, ExpertEntries(store)), kb.layout.within(kb.layout.review)
        )
        revision = store.revision()
    finally:
        store.close()
    entries = written.entries
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
    glossary_json, knowledge_json = written.files["json"]
    glossary_csv, knowledge_csv = written.files["csv"]
    yield dg.MaterializeResult(
        asset_key=ACTIVE_KNOWLEDGE,
        metadata={
            "entries": len(entries),
            "edited": sum(e.edited for e in entries),
            "orphaned": sum(e.orphaned for e in entries),
            "approved_rules_formulas_briefs": len(written.knowledge),
            "decision_revision": revision,
            "json": dg.MetadataValue.path(str(glossary_json)),
            "csv": dg.MetadataValue.path(str(glossary_csv)),
            "knowledge_json": dg.MetadataValue.path(str(knowledge_json)),
            "knowledge_csv": dg.MetadataValue.path(str(knowledge_csv)),
            "preview": dg.MetadataValue.md("\n".join(lines) if entries else "no approved entries"),
        },
    )
    for key, fmt, language in ((GLOSSARY_TBX, "tbx", "xml"), (GLOSSARY_SKOS, "skos", "turtle")):
        # No approved term: no TBX (TBX-Basic needs a conceptEntry; knowledge_export.py).
        file = next(iter(written.files[fmt]), None)
        yield dg.MaterializeResult(
            asset_key=key,
            metadata={
                "concepts": len(entries),
                "decision_revision": revision,
                **(
                    {"path": dg.MetadataValue.path(str(file)), "preview": _file_preview(file, language)}
                    if file
                    else {"preview": dg.MetadataValue.md("no approved term: no file")}
                ),
            },
        )


@dg.sensor(
    name="review_decisions_sensor",
    asset_selection=[ACTIVE_KNOWLEDGE, GLOSSARY_TBX, GLOSSARY_SKOS],
    minimum_interval_seconds=30,
    default_status=dg.DefaultSensorStatus.RUNNING,
    description="Materialises active_knowledge and the glossary's TBX and SKOS when a reviewer made a decision "
    "(the newest decision id moved).",
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
