"""The "review complete" marks: a reviewer says a document's entries of one
kind are all decided and nothing is missing that was not added — the document and kind are then
a labelled set the readers are scored on (score.py). Appended, never updated: the latest mark of
a document and kind says whether it is complete."""

from __future__ import annotations

import sqlalchemy as sa

from .store import DecisionStore, add_missing_columns, create_tables, decided_now, metadata

MARKABLE = ("term", "rule", "formula")

completion_table = sa.Table(
    "review_completion",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("doc_id", sa.String(512), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("complete", sa.Boolean, nullable=False),
    sa.Column("reviewer", sa.String(200), nullable=False),
    sa.Column("account_id", sa.Integer, nullable=True),
    sa.Column("marked_at", sa.String(32), nullable=False),
    # How many of the kind's entries were still pending when it was marked complete (the desk
    # warns first): added later, null on older marks.
    sa.Column("pending", sa.Integer, nullable=True),
)
_ADDED = frozenset({"pending"})


def mark(
    store: DecisionStore,
    doc_id: str,
    kind: str,
    complete: bool,
    reviewer: str,
    account_id: int | None,
    pending: int | None = None,
) -> None:
    if kind not in MARKABLE:
        raise ValueError(f"kind must be one of {', '.join(MARKABLE)}")
    create_tables(store.engine, [completion_table])
    add_missing_columns(store.engine, completion_table, _ADDED)
    values = {"doc_id": doc_id, "kind": kind, "complete": complete, "reviewer": reviewer, "pending": pending}
    with store.engine.begin() as connection:
        connection.execute(completion_table.insert().values(**values, account_id=account_id, marked_at=decided_now()))


def complete(store: DecisionStore) -> set[tuple[str, str]]:
    """The (doc_id, kind) whose latest mark says complete; none before any mark."""
    return set(pending_when_marked(store))


def pending_when_marked(store: DecisionStore) -> dict[tuple[str, str], int | None]:
    """The (doc_id, kind) whose latest mark says complete, each with how many of its entries were
    pending when it was marked (None: not recorded); none before any mark."""
    if not store.has_table() or not sa.inspect(store.engine).has_table(completion_table.name):
        return {}
    columns = completion_table.c
    present = {c["name"] for c in sa.inspect(store.engine).get_columns(completion_table.name)}
    pending = columns.pending if "pending" in present else sa.null()
    newest = sa.select(sa.func.max(columns.id).label("id")).group_by(columns.doc_id, columns.kind).subquery()
    query = (
        sa.select(columns.doc_id, columns.kind, pending).join(newest, columns.id == newest.c.id).where(columns.complete)
    )
    with store.engine.begin() as connection:
        return {(doc_id, kind): count for doc_id, kind, count in connection.execute(query)}
