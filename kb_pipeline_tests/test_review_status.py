"""Where an entry stands against the reviewers' decisions, computed when it is read
(review/status.py, docs/review.md "Status at read time"): the desk, the exports and `kb-pipeline
status` show each kind's status from the decisions stored now, with the payloads untouched; the
desk's decisions keyed by `entry_id` (the API taking `term_id` as an alias), a database written
with the old key migrated when the desk opens it. On hand-built payloads: no parse needed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from kb_pipeline.cli.status import version_lines
from kb_pipeline.contracts import ParsedDocument
from kb_pipeline.knowledge.payloads.contracts import (
    BriefContext,
    FormulaEntry,
    GlossaryEntry,
    Payloads,
    Provenance,
    RuleEntry,
)
from kb_pipeline.knowledge.payloads.document_versions import keep_version
from kb_pipeline.knowledge.payloads.review import review_queue
from kb_pipeline.paths import DataLayout
from kb_pipeline.pipeline import ARTIFACT_NAME, write_artifact
from kb_pipeline.review.corpus import Corpus
from kb_pipeline.review.export import active_entries, active_knowledge
from kb_pipeline.review.items import CONFLICT
from kb_pipeline.review.reattach import read_decisions
from kb_pipeline.review.store import DecisionStore, Kind, default_path
from kb_pipeline.review_desk.app import create_app
from kb_pipeline.review_desk.dependencies import CSRF_HEADER
from kb_pipeline.settings import Settings

from . import test_postgres

DOC = "handbook"
# Each kind's text in the first version and in the second, which says something else.
TEXTS: dict[Kind, tuple[str, str]] = {
    "term": ("Availability is the share of time the pump runs.", "Availability is the share of time the pump can run."),
    "rule": ("If the seal leaks, replace it.", "If the seal leaks, replace it at once."),
    "formula": ("Availability = Up / Total", "Availability = Up / Calendar"),
    "brief": ("This handbook explains pump upkeep.", "This handbook explains pump repair."),
}
IDS: dict[Kind, str] = {"term": "t_avail", "rule": "r_seal", "formula": "f_avail", "brief": "b_handbook"}
# test_postgres's fixture: a throwaway PostgreSQL server on a free loopback port.
postgres = test_postgres.postgres


def _payloads(version: int) -> Payloads:
    text = {kind: pair[version - 1] for kind, pair in TEXTS.items()}

    def where(span: str) -> Provenance:
        return Provenance(doc_id=DOC, span=span, page=0, chunk_id=f"{DOC}::1")

    glossary = [
        GlossaryEntry(
            term_id=IDS["term"],
            term="Availability",
            definition=text["term"],
            mention_count=2,
            provenance=where(text["term"]),
        )
    ]
    return Payloads(
        glossary=glossary,
        interpretation_pack=[
            RuleEntry(
                rule_id=IDS["rule"], rule_type="interpretation", statement=text["rule"], provenance=where(text["rule"])
            )
        ],
        formulas=[
            FormulaEntry(
                formula_id=IDS["formula"],
                name="Availability",
                formula_latex=text["formula"],
                latex_verification="verified",
                provenance=where(text["formula"]),
            )
        ],
        brief_context=BriefContext(
            brief_id=IDS["brief"], title="Pump handbook", purpose=text["brief"], provenance=where(text["brief"])
        ),
        review_queue=review_queue(glossary, []),
        rejected=[],
        usage=[],
    )


def _extracted(layout: DataLayout, version: int) -> ParsedDocument:
    """The document's version `version` as extraction leaves it: its payloads, kept as its source's
    version, and the artifact they come from."""
    document = ParsedDocument(
        doc_id=DOC, source_path=f"/drop/{DOC}.pdf", content_hash=str(version) * 64, n_pages=1, chunks=[]
    )
    folder = layout.knowledge / DOC
    _payloads(version).write(folder)
    keep_version(document, folder, layout.document_versions(DOC))
    write_artifact(layout.parsed_dir(DOC) / ARTIFACT_NAME, document)
    return document


def _decide_every_kind(store: DecisionStore, document: ParsedDocument) -> None:
    """Each kind approved on the text the first version says (the formula's unit set in an edit)."""
    for kind, entry_id in IDS.items():
        edit = kind == "formula"
        store.record(
            entry_id=entry_id,
            doc_id=DOC,
            term="Availability" if kind in ("term", "formula") else entry_id,
            decision="edit" if edit else "approve",
            extracted_definition=TEXTS[kind][0],
            edited_definition=TEXTS[kind][0] if edit else None,
            edited_fields={"unit": "%"} if edit else None,
            reviewer="Rina",
            doc_version=document.content_hash,
            kind=kind,
        )


def _standing(layout: DataLayout, store: DecisionStore) -> dict[str, tuple[str, str, str | None, bool]]:
    """Per kind: its state and diff status on the desk's queue, the queue's mark since its decision,
    and whether the export says its source changed."""
    corpus = Corpus(layout)
    decisions = read_decisions(corpus, store)
    rows = {r.kind: r for r in corpus.queue(decisions, "all") if r.item is not None}
    exported = {
        **{e.term_id: e.source_changed for e in active_entries(decisions, corpus)},
        **{k.id: k.source_changed for k in active_knowledge(decisions, corpus)},
    }
    return {
        kind: (row.state, row.item.diff_status, row.since, exported[row.entry_id])
        for kind, row in rows.items()
        if row.item is not None
    }


def test_every_kinds_status_is_computed_from_the_decisions_when_read(layout):
    first = _extracted(layout, 1)
    written = {p.name: p.read_bytes() for p in sorted((layout.knowledge / DOC).iterdir())}
    store = DecisionStore.open(None, layout)
    try:
        rows = Corpus(layout).queue(store.latest(), "all")
        assert {r.kind: (r.state, r.item.diff_status if r.item else None) for r in rows} == dict.fromkeys(
            IDS, ("pending", "new")
        )
        _decide_every_kind(store, first)
        # No extraction since: the decisions count at the next read, for every kind alike.
        assert _standing(layout, store) == {
            "term": ("approved", "duplicate", None, False),
            "rule": ("approved", "duplicate", None, False),
            "formula": ("edited", "duplicate", None, False),
            "brief": ("approved", "duplicate", None, False),
        }
        assert {p.name: p.read_bytes() for p in sorted((layout.knowledge / DOC).iterdir())} == written
        assert version_lines(layout, None) == []  # one version: nothing to compare

        # A new version says another text for each: pending again, a conflict with the approval
        # (both texts, no winner), its approval exported with its source changed.
        _extracted(layout, 2)
        assert _standing(layout, store) == dict.fromkeys(IDS, ("pending", "conflicting", "changed", True))
        rows = {r.kind: r for r in Corpus(layout).queue(store.latest(), "all")}
        for kind, (old, new) in TEXTS.items():
            item = rows[kind].item
            assert item is not None and item.review_reason == CONFLICT and item.conflict_variants == [new, old], kind
        assert version_lines(layout, None) == [
            "review: entries pending because of a new version (changed since decided on an earlier one, or new)",
            f"  {DOC}: 4 (4 changed, 0 new) in version {'2' * 12} against {'1' * 12}, the last reviewed",
        ]

        # The desk says the same, and a decision on the new text settles it at the next read.
        client = TestClient(create_app(layout, store), base_url="http://127.0.0.1")
        client.headers[CSRF_HEADER] = client.get("/api/csrf-token").json()["token"]
        queue = {r["kind"]: r for r in client.get("/api/queue", params={"kind": "all"}).json()}
        assert {k: (r["state"], r["item"]["diff_status"]) for k, r in queue.items()} == dict.fromkeys(
            IDS, ("pending", "conflicting")
        )
        entry = client.get(f"/api/entries/{IDS['rule']}").json()
        assert entry["item"]["diff_status"] == "conflicting" and "diff_status" not in entry["entry"]
        page = client.get(f"/entries/{IDS['term']}").text
        assert "diff: <b>conflicting</b>" in page and "Competing definitions" in page
        for kind, entry_id in IDS.items():
            answer = client.post(
                "/api/decisions", json={"entry_id": entry_id, "decision": "approve", "reviewer": "Rina"}
            )
            assert answer.status_code == 200, (kind, answer.text)
        client.close()
        assert _standing(layout, store) == dict.fromkeys(IDS, ("approved", "duplicate", None, False))
        assert version_lines(layout, None)[1].startswith(f"  {DOC}: 0 (0 changed, 0 new)")
    finally:
        store.close()


def test_the_api_takes_the_entry_id_and_term_id_as_its_alias(layout):
    _extracted(layout, 1)
    store = DecisionStore.open(None, layout)
    client = TestClient(create_app(layout, store), base_url="http://127.0.0.1")
    client.headers[CSRF_HEADER] = client.get("/api/csrf-token").json()["token"]
    try:
        for key, kind in (("entry_id", "term"), ("term_id", "rule"), ("id", "formula")):
            answer = client.post("/api/decisions", json={key: IDS[kind], "decision": "approve", "reviewer": "Rina"})
            assert answer.status_code == 200, answer.text
            assert answer.json()["entry_id"] == IDS[kind] and "term_id" not in answer.json()
        assert {d.entry_id for d in store.latest().values()} == {IDS["term"], IDS["rule"], IDS["formula"]}
        rows = client.get("/api/queue", params={"kind": "all"}).json()
        assert {r["entry_id"] for r in rows} == set(IDS.values()) and not any("term_id" in r for r in rows)
        missing = client.post("/api/decisions", json={"decision": "approve", "reviewer": "Rina"})
        assert missing.status_code == 422 and "entry_id" in missing.text
        # The pages' forms send it as entry_id.
        form = client.get(f"/entries/{IDS['brief']}").text
        assert f'name="entry_id" value="{IDS["brief"]}"' in form and 'name="term_id"' not in form
    finally:
        client.close()
        store.close()


# The table as the desk made it while its key was `term_id` (every column added since included).
OLD_TABLE = (
    "CREATE TABLE review_decisions (id INTEGER PRIMARY KEY {auto}, term_id VARCHAR(64) NOT NULL, "
    "doc_id VARCHAR(512) NOT NULL, term TEXT NOT NULL, decision VARCHAR(16) NOT NULL, extracted_definition TEXT, "
    "edited_definition TEXT, reason TEXT, reviewer VARCHAR(200) NOT NULL, decided_at VARCHAR(32) NOT NULL, "
    "account_id INTEGER, doc_version VARCHAR(64), kind VARCHAR(16), edited_fields TEXT, reattached_from VARCHAR(64))"
)
OLD_ROWS = [
    # A rule approved, then re-attached to its new id after a re-parse; a term edited; a formula rejected.
    ("r_old", "rule", "approve", "If the seal leaks, replace it.", None, None),
    ("r_seal", "rule", "approve", "If the seal leaks, replace it.", None, "r_old"),
    ("t_avail", "term", "edit", TEXTS["term"][0], "Availability is the time the pump runs.", None),
    ("f_avail", "formula", "reject", TEXTS["formula"][0], None, None),
]


def _write_old(connection: sa.Connection) -> None:
    connection.execute(sa.text("CREATE INDEX ix_review_decisions_term_id ON review_decisions (term_id)"))
    for entry_id, kind, decision, extracted, edited, moved_from in OLD_ROWS:
        connection.execute(
            sa.text(
                "INSERT INTO review_decisions (term_id, doc_id, term, decision, extracted_definition, "
                "edited_definition, reviewer, decided_at, kind, reattached_from) VALUES (:id, :doc, :term, :decision, "
                ":extracted, :edited, 'Rina', '2026-01-01T00:00:00+00:00', :kind, :moved_from)"
            ),
            {
                "id": entry_id,
                "doc": DOC,
                "term": entry_id,
                "decision": decision,
                "extracted": extracted,
                "edited": edited,
                "kind": kind,
                "moved_from": moved_from,
            },
        )


def _reads_the_old_decisions(store: DecisionStore) -> None:
    latest = store.latest()
    assert {entry_id: d.decision for entry_id, d in latest.items()} == {
        "r_seal": "approve",  # the move, not the rule's old id
        "t_avail": "edit",
        "f_avail": "reject",
    }
    assert latest["t_avail"].definition == "Availability is the time the pump runs."
    assert [d.entry_id for d in store.history("r_seal")] == ["r_seal"]
    assert set(store.histories(["r_old", "t_avail"])) == {"r_old", "t_avail"}


def _migrates(url: str, layout: DataLayout) -> None:
    """A reader reads the old table as it is; the desk renames its key and keeps every row."""
    reader = DecisionStore.open(url, layout, create=False)
    _reads_the_old_decisions(reader)
    assert "term_id" in {c["name"] for c in sa.inspect(reader.engine).get_columns("review_decisions")}  # untouched
    reader.close()
    for _ in range(2):  # opened again: nothing left to migrate
        desk = DecisionStore.open(url, layout)
        columns = {c["name"] for c in sa.inspect(desk.engine).get_columns("review_decisions")}
        assert "entry_id" in columns and "term_id" not in columns
        indexes = {i["name"]: i["column_names"] for i in sa.inspect(desk.engine).get_indexes("review_decisions")}
        # The index followed its column, under the new column's name.
        assert indexes == {"ix_review_decisions_entry_id": ["entry_id"]}, indexes
        _reads_the_old_decisions(desk)
        desk.close()
    desk = DecisionStore.open(url, layout)
    desk.record(
        entry_id="f_avail", doc_id=DOC, term="f_avail", decision="approve", extracted_definition=None, reviewer="Ada"
    )
    assert [d.decision for d in desk.history("f_avail")] == ["reject", "approve"]
    desk.close()


def _old_sqlite_database(layout: DataLayout, *more_sql: str) -> Path:
    """The desk's SQLite database as it was while its key was `term_id`, then `more_sql`."""
    path = default_path(layout)
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as old:
        old.execute(OLD_TABLE.format(auto="AUTOINCREMENT"))
    engine = sa.create_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        _write_old(connection)
        for sql in more_sql:
            connection.execute(sa.text(sql))
    engine.dispose()
    return path


def test_a_database_keyed_by_term_id_is_read_and_migrated(tmp_path):
    layout = DataLayout(tmp_path)
    path = _old_sqlite_database(layout)
    _migrates(f"sqlite:///{path}", layout)
    with sqlite3.connect(path) as migrated:  # every row kept, the one recorded since beside them
        assert migrated.execute("SELECT count(*) FROM review_decisions").fetchone() == (5,)


def test_a_database_migrated_before_gets_its_index_renamed(tmp_path):
    """A database whose column an earlier migration renamed, which kept the index's old name."""
    layout = DataLayout(tmp_path)
    path = _old_sqlite_database(layout, "ALTER TABLE review_decisions RENAME COLUMN term_id TO entry_id")
    with sqlite3.connect(path) as before:
        assert before.execute("PRAGMA index_list(review_decisions)").fetchall()[0][1] == "ix_review_decisions_term_id"
    desk = DecisionStore.open(f"sqlite:///{path}", layout)
    indexes = {i["name"]: i["column_names"] for i in sa.inspect(desk.engine).get_indexes("review_decisions")}
    assert indexes == {"ix_review_decisions_entry_id": ["entry_id"]}, indexes
    _reads_the_old_decisions(desk)
    desk.close()


@pytest.mark.services
def test_a_postgres_database_keyed_by_term_id_is_migrated(tmp_path, postgres, monkeypatch):
    for key, value in postgres.items():
        monkeypatch.setenv(key, value)
    url = Settings.from_env().review_database_url
    assert url is not None
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sa.text("DROP TABLE IF EXISTS review_decisions"))
        connection.execute(sa.text(OLD_TABLE.replace("INTEGER PRIMARY KEY {auto}", "SERIAL PRIMARY KEY")))
        _write_old(connection)
    engine.dispose()
    _migrates(url, DataLayout(tmp_path))


def test_no_payload_file_holds_a_status(tmp_path: Path):
    """A status is no property of a document: the extraction contract's `diff_status` is in every
    glossary entry (the contract's shape, which score_glossary.py checks) and always null."""
    assert "diff_status" in GlossaryEntry.model_fields
    _payloads(1).write(tmp_path)
    glossary = json.loads((tmp_path / "glossary.json").read_text(encoding="utf-8"))
    assert glossary and all(entry["diff_status"] is None for entry in glossary)
