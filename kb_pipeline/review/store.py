"""The reviewers' decisions in a real database, through SQLAlchemy Core, so the same code runs on
SQLite (the default, under the data root) and on the Postgres database the Dagster instance uses.

The table is an audit trail: a decision is appended, never updated or deleted, and an entry's
state is its latest decision. A decision keeps the extracted definition it was made on beside
the edited one, so the active glossary needs no payload to be read, and survives re-extraction;
and, when the desk has accounts, the account that made it and the document version it was made
on (the source PDF's sha256, the artifact's `content_hash`). Each decision names the entry it is
made on by its `entry_id`: a term's `term_id`, a rule's, formula's or brief's id alike.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Collection, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import sqlalchemy as sa
from pydantic import BaseModel, field_validator

from ..paths import DataLayout

# What kind of entry a decision is made on: a glossary term, a rule, a formula, a document's brief.
Kind = Literal["term", "rule", "formula", "brief"]
# "withdraw" undoes the entry's decision: it is pending again, the withdrawal kept in its history.
DecisionKind = Literal["approve", "reject", "edit", "withdraw"]

# The review database's tables: the decisions here, the accounts and sessions beside them
# (accounts.py, sessions.py), created together.
metadata = sa.MetaData()
decisions_table = sa.Table(
    "review_decisions",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("entry_id", sa.String(64), nullable=False, index=True),
    sa.Column("doc_id", sa.String(512), nullable=False),
    sa.Column("term", sa.Text, nullable=False),
    sa.Column("decision", sa.String(16), nullable=False),
    sa.Column("extracted_definition", sa.Text, nullable=True),
    sa.Column("edited_definition", sa.Text, nullable=True),
    sa.Column("reason", sa.Text, nullable=True),
    sa.Column("reviewer", sa.String(200), nullable=False),
    sa.Column("decided_at", sa.String(32), nullable=False),  # ISO 8601 UTC: sorts and reads the same everywhere
    # Added after the table first shipped (`add_missing_columns`): null on older rows.
    sa.Column("account_id", sa.Integer, nullable=True),  # review_accounts.id; null: the single-expert mode
    sa.Column("doc_version", sa.String(64), nullable=True),  # the document's content_hash when decided
    # What kind of entry `entry_id` names (null: a term, as on every older row), the
    # fields an edit of a rule, formula or brief set (JSON), and the id a decision was made on
    # when it was re-attached to another after a re-parse moved the entry's id.
    sa.Column("kind", sa.String(16), nullable=True),
    sa.Column("edited_fields", sa.Text, nullable=True),
    sa.Column("reattached_from", sa.String(64), nullable=True),
)
ADDED_COLUMNS = frozenset({"account_id", "doc_version", "kind", "edited_fields", "reattached_from"})
# Columns renamed since the table first shipped, old name → new (`rename_old_columns`): the key
# was `term_id` while only terms were decided.
RENAMED_COLUMNS = {"term_id": "entry_id"}


def create_tables(engine: sa.Engine, tables: list[sa.Table]) -> None:
    try:
        metadata.create_all(engine, tables=tables)
    except sa.exc.DBAPIError:
        # Two processes creating one at once on Postgres: the loser's CREATE fails, the table is there.
        if not all(sa.inspect(engine).has_table(t.name) for t in tables):
            raise


def _columns(engine: sa.Engine, table: sa.Table) -> set[str]:
    return {c["name"] for c in sa.inspect(engine).get_columns(table.name)}


def rename_old_columns(engine: sa.Engine) -> None:
    """The columns of the decisions table renamed since it first shipped (`RENAMED_COLUMNS`),
    renamed on a database made before: its rows, and the index on the column, kept — under the
    name SQLAlchemy gives the new column's (`_rename_old_indexes`). Another process renaming one
    at the same time is no error."""
    present = _columns(engine, decisions_table)
    for old, new in sorted(RENAMED_COLUMNS.items()):
        if old not in present or new in present:
            continue
        try:
            with engine.begin() as connection:
                connection.execute(sa.text(f"ALTER TABLE {decisions_table.name} RENAME COLUMN {old} TO {new}"))
        except sa.exc.DBAPIError:
            if new not in _columns(engine, decisions_table):
                raise
    _rename_old_indexes(engine)


def _index_names(engine: sa.Engine) -> set[str]:
    return {str(index["name"]) for index in sa.inspect(engine).get_indexes(decisions_table.name)}


def _rename_old_indexes(engine: sa.Engine) -> None:
    """An index still named after a renamed column (`ix_review_decisions_term_id`, which a
    renamed column keeps) replaced by the table's own (`ix_review_decisions_entry_id`): what a
    reader of the schema expects, on a database migrated before or now."""
    for old, new in sorted(RENAMED_COLUMNS.items()):
        stale = f"ix_{decisions_table.name}_{old}"
        if stale not in _index_names(engine):
            continue
        for index in decisions_table.indexes:
            if new in index.columns:
                try:
                    index.create(engine, checkfirst=True)
                except sa.exc.DBAPIError:
                    if index.name not in _index_names(engine):  # another process created it: no error
                        raise
        with engine.begin() as connection:
            connection.execute(sa.text(f"DROP INDEX IF EXISTS {stale}"))


def add_missing_columns(
    engine: sa.Engine, table: sa.Table = decisions_table, added: frozenset[str] = ADDED_COLUMNS
) -> None:
    """The columns `added` to `table` since it first shipped, on a database made before
    (additive: nullable, no default to backfill). Another process adding one at the same time is
    no error."""
    for name in sorted(added - _columns(engine, table)):
        column = table.c[name]
        ddl = f"ALTER TABLE {table.name} ADD COLUMN {name} {column.type.compile(engine.dialect)}"
        try:
            with engine.begin() as connection:
                connection.execute(sa.text(ddl))
        except sa.exc.DBAPIError:
            if name not in _columns(engine, table):
                raise


def decided_now() -> str:
    """Now, as `decided_at` holds it: ISO 8601 UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def default_path(layout: DataLayout) -> Path:
    return layout.review / "decisions.sqlite3"


def default_url(layout: DataLayout) -> str:
    """SQLite under the data root: `<data root>/review/decisions.sqlite3`."""
    return f"sqlite:///{default_path(layout)}"


# What `Decision.moved_to` sets; a re-attachment copies the rest.
_SET_BY_A_MOVE = {"id", "entry_id", "term", "reattached_from", "decided_at"}


class Decision(BaseModel):
    id: int
    entry_id: str  # the entry's id: a term_id, or the rule_id, formula_id, brief_id of `kind`
    doc_id: str
    term: str  # the entry's label when decided: the term, the formula's name, else its text
    decision: DecisionKind
    extracted_definition: str | None
    edited_definition: str | None
    reason: str | None
    reviewer: str  # the account's name when the desk has accounts, else the name the expert typed
    decided_at: str
    account_id: int | None = None
    doc_version: str | None = None
    kind: Kind = "term"
    edited_fields: dict[str, str] | None = None
    reattached_from: str | None = None

    @field_validator("kind", mode="before")
    @classmethod
    def _term_when_null(cls, value: str | None) -> str:
        return value or "term"  # rows from before kinds are terms

    @field_validator("edited_fields", mode="before")
    @classmethod
    def _from_json(cls, value: object) -> object:
        return json.loads(value) if isinstance(value, str) else value

    @property
    def definition(self) -> str | None:
        """The definition this decision stands for: the edit if there is one."""
        return self.edited_definition if self.decision == "edit" else self.extracted_definition

    @property
    def approved(self) -> bool:
        return self.decision in ("approve", "edit")

    def moved_to(self, entry_id: str, term: str, row_id: int) -> Decision:
        """This decision re-attached to another entry (reattach.py): a copy on its id, naming the
        id it was made on; `row_id` the id it stands under until the store records it."""
        update = {"id": row_id, "entry_id": entry_id, "term": term, "reattached_from": self.entry_id}
        return self.model_copy(update={**update, "decided_at": decided_now()})

    def is_move_of(self, other: Decision) -> bool:
        """Whether this decision is `other` re-attached (`other.moved_to`): made after it, from
        its id, the rest the same."""
        if self.reattached_from != other.entry_id or self.id <= other.id:
            return False
        return self.model_dump(exclude=_SET_BY_A_MOVE) == other.model_dump(exclude=_SET_BY_A_MOVE)


def approved_decisions(decisions: Iterable[Decision]) -> list[Decision]:
    """Every one of the current `decisions` that approves its entry (an edit approves the edited
    definition), by document and term: the active knowledge. A moved decision is current on its
    new id only (`DecisionStore.latest`, `reattach.with_moves`), so it is listed once."""
    return [d for d in sorted(decisions, key=lambda d: (d.doc_id, d.term, d.entry_id)) if d.approved]


def advisory_lock_key(entity_id: str) -> int:
    """The key of an entry's Postgres advisory lock (`pg_advisory_xact_lock(bigint)`): the first
    8 bytes of its id's sha256 as a signed 64-bit integer, the same in every process and on
    every server version (Postgres's own `hashtext` is an undocumented internal)."""
    return int.from_bytes(hashlib.sha256(entity_id.encode("utf-8")).digest()[:8], "big", signed=True)


class DecisionStore:
    """One database of decisions. The desk creates its table (`create`); the readers elsewhere
    (the exports, `kb-pipeline status`, the sensor) never do, and read no table as no decisions."""

    def __init__(self, url: str, create: bool = True) -> None:
        if create and url.startswith("sqlite:///"):
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        self.url = url
        self.engine = sa.create_engine(url, pool_pre_ping=True)
        # Once there, the table stays: known, it costs no query per request.
        self._table_known = False
        self._columns: list[sa.ColumnElement] | None = None
        if create:
            self._create_table()
            self._table_known = True

    def _create_table(self) -> None:
        create_tables(self.engine, [decisions_table])
        rename_old_columns(self.engine)
        add_missing_columns(self.engine)

    def _selected(self) -> list[sa.ColumnElement]:
        """The table's columns as this database has them: a reader (the exports, `kb-pipeline
        status`) of one the desk has not opened since columns were added or renamed reads it as
        it is — without the added ones, a renamed one under its new name."""
        if self._columns is None:
            present = _columns(self.engine, decisions_table)
            old = {new: old for old, new in RENAMED_COLUMNS.items() if old in present and new not in present}
            self._columns = [
                sa.literal_column(f"{decisions_table.name}.{old[c.name]}", c.type).label(c.name) if c.name in old else c
                for c in decisions_table.c
                if c.name not in ADDED_COLUMNS or c.name in present
            ]
        return self._columns

    def _entry_id(self) -> sa.ColumnElement:
        """The entry id's column as this database names it (`_selected`), to filter and group by."""
        column = next(c for c in self._selected() if c.name == "entry_id")
        return column.element if isinstance(column, sa.Label) else column

    def has_table(self) -> bool:
        if self._table_known:
            return True
        if self.url.startswith("sqlite:///") and not Path(self.url.removeprefix("sqlite:///")).is_file():
            return False  # connecting would create the file
        self._table_known = sa.inspect(self.engine).has_table(decisions_table.name)
        return self._table_known

    @classmethod
    def open(cls, database_url: str | None, layout: DataLayout, create: bool = True) -> DecisionStore:
        return cls(database_url or default_url(layout), create)

    def close(self) -> None:
        self.engine.dispose()

    def record(
        self,
        *,
        entry_id: str,
        doc_id: str,
        term: str,
        decision: DecisionKind,
        extracted_definition: str | None,
        reviewer: str,
        edited_definition: str | None = None,
        reason: str | None = None,
        account_id: int | None = None,
        doc_version: str | None = None,
        kind: Kind = "term",
        edited_fields: dict[str, str] | None = None,
        reattached_from: str | None = None,
    ) -> Decision:
        values = {
            "entry_id": entry_id,
            "doc_id": doc_id,
            "term": term,
            "decision": decision,
            "extracted_definition": extracted_definition,
            "edited_definition": edited_definition if decision == "edit" else None,
            "reason": reason,
            "reviewer": reviewer,
            "decided_at": decided_now(),
            "account_id": account_id,
            "doc_version": doc_version,
            "kind": kind,
            "edited_fields": json.dumps(edited_fields, ensure_ascii=False) if edited_fields else None,
            "reattached_from": reattached_from,
        }
        with self.engine.begin() as connection:
            key = connection.execute(decisions_table.insert().values(**values)).inserted_primary_key
        assert key is not None  # an INSERT of one row always has its key
        return Decision(id=key[0], **values)

    def record_unless_decided_since(self, seen: int, decision: Decision) -> Decision | None:
        """`decision` (its id aside) recorded only if its entry's newest row is still `seen` (0:
        none), else None: a re-attachment that two requests make at once is recorded once, and
        never over a decision made meanwhile. The check and the insert are one statement (on
        SQLite it runs under the database's write lock); on Postgres, whose READ COMMITTED
        lets two such statements both see no newer row, a transaction-scoped advisory lock on
        the id (`advisory_lock_key`) makes the second wait for the first's commit, and its
        statement then sees it."""
        values = decision.model_dump(exclude={"id"})
        values["edited_fields"] = (
            json.dumps(values["edited_fields"], ensure_ascii=False) if decision.edited_fields else None
        )
        columns = decisions_table.c
        newer = sa.select(columns.id).where(columns.entry_id == decision.entry_id, columns.id > seen)
        row = sa.select(*(sa.cast(sa.literal(v, columns[k].type), columns[k].type) for k, v in values.items()))
        insert = decisions_table.insert().from_select(list(values), row.where(~sa.exists(newer)))
        with self.engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                lock = sa.literal(advisory_lock_key(decision.entry_id), sa.BigInteger)
                connection.execute(sa.select(sa.func.pg_advisory_xact_lock(lock)))
            key = connection.execute(insert.returning(columns.id)).scalar()
        return decision.model_copy(update={"id": key}) if key is not None else None

    def latest(self) -> dict[str, Decision]:
        """Every entry_id's current decision (its latest); none before the desk made the table.
        A decision re-attached to another id since (a later row is its move) is no current one of
        its old id: it stands on the new id, also once an expert has decided there again. An entry
        whose latest decision is a withdrawal has none: it is pending."""
        if not self.has_table():
            return {}
        newest = sa.select(sa.func.max(decisions_table.c.id).label("id")).group_by(self._entry_id()).subquery()
        query = sa.select(*self._selected()).join(newest, decisions_table.c.id == newest.c.id)
        with self.engine.begin() as connection:
            latest = {row.entry_id: Decision.model_validate(row._asdict()) for row in connection.execute(query)}
            if "reattached_from" not in {c.name for c in self._selected()}:
                return {entry_id: d for entry_id, d in latest.items() if d.decision != "withdraw"}
            moved = sa.select(*self._selected()).where(decisions_table.c.reattached_from.is_not(None))
            moves: dict[str, list[Decision]] = defaultdict(list)
            for row in connection.execute(moved):
                move = Decision.model_validate(row._asdict())
                moves[move.reattached_from or ""].append(move)
        return {
            entry_id: d
            for entry_id, d in latest.items()
            if d.decision != "withdraw" and not any(move.is_move_of(d) for move in moves.get(entry_id, ()))
        }

    def history(self, entry_id: str) -> list[Decision]:
        """The decisions made on this id, oldest first: its audit trail."""
        return self.histories([entry_id]).get(entry_id, [])

    def histories(self, ids: Collection[str]) -> dict[str, list[Decision]]:
        """The audit trails of many ids in one query, each oldest first (none: no key)."""
        if not ids or not self.has_table():
            return {}
        query = sa.select(*self._selected()).where(self._entry_id().in_(ids)).order_by(decisions_table.c.id)
        trails: dict[str, list[Decision]] = defaultdict(list)
        with self.engine.begin() as connection:
            for row in connection.execute(query):
                trails[row.entry_id].append(Decision.model_validate(row._asdict()))
        return dict(trails)

    def decided_versions(self) -> dict[str, dict[str, int]]:
        """doc_id → the document versions its decisions were made on (every decision, not only
        the latest; a re-attachment, which repeats one, aside), with how many each."""
        if not self.has_table() or not {"doc_version", "reattached_from"} <= {c.name for c in self._selected()}:
            return {}
        columns = decisions_table.c
        query = (
            sa.select(columns.doc_id, columns.doc_version, sa.func.count())
            .where(columns.doc_version.is_not(None), columns.reattached_from.is_(None))
            .group_by(columns.doc_id, columns.doc_version)
        )
        found: dict[str, dict[str, int]] = defaultdict(dict)
        with self.engine.begin() as connection:
            for doc_id, version, n in connection.execute(query):
                found[doc_id][version] = n
        return dict(found)

    def revision(self) -> str:
        """ "<decisions>.<newest id>" ("0.0" with none): it changes whenever a decision is made,
        also one committed after a newer id (two reviewers at once on Postgres)."""
        if not self.has_table():
            return "0.0"
        query = sa.select(sa.func.count(), sa.func.coalesce(sa.func.max(decisions_table.c.id), 0))
        with self.engine.begin() as connection:
            count, newest = connection.execute(query).one()
        return f"{count}.{newest}"
