"""Signed-in sessions, kept server-side in the review database: the browser holds only a random
256-bit id (the `kb_session` cookie), the database its sha256, so a forged or guessed cookie
names no session, and signing out deletes the row. A new id at every sign-in (the old session
ended), each with its own CSRF token.

A session ends `lifetime` seconds after sign-in, or after `idle` seconds without a request."""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass

import sqlalchemy as sa

from .store import metadata


def sha256(value: str) -> str:
    """How a random secret (a session id, an API token) is kept: enough for a 256-bit random value."""
    return hashlib.sha256(value.encode()).hexdigest()


sessions_table = sa.Table(
    "review_sessions",
    metadata,
    sa.Column("id_sha256", sa.String(64), primary_key=True),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("review_accounts.id"), nullable=False, index=True),
    sa.Column("csrf_token", sa.String(64), nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),  # Unix time
    sa.Column("seen_at", sa.Float, nullable=False),
)
# A session's last request is written at most this often: a page's image and script requests
# would otherwise each be a write.
_TOUCH_EVERY = 60.0


@dataclass(frozen=True)
class Session:
    account_id: int
    csrf_token: str


class Sessions:
    def __init__(self, engine: sa.Engine, lifetime: float = 12 * 3600, idle: float = 3600) -> None:
        self.engine = engine
        self.lifetime = lifetime
        self.idle = idle

    def start(self, account_id: int) -> tuple[str, Session]:
        """A new session: the cookie's value (never stored) and the session."""
        session_id, session = secrets.token_urlsafe(32), Session(account_id, secrets.token_urlsafe(32))
        now = time.time()
        with self.engine.begin() as connection:
            # Sessions past their lifetime, anyone's: the table holds live ones only.
            connection.execute(sessions_table.delete().where(sessions_table.c.created_at < now - self.lifetime))
            connection.execute(
                sessions_table.insert().values(
                    id_sha256=sha256(session_id),
                    account_id=account_id,
                    csrf_token=session.csrf_token,
                    created_at=now,
                    seen_at=now,
                )
            )
        return session_id, session

    def find(self, session_id: str) -> Session | None:
        """The live session with this id, its last request noted; None for an unknown, expired or idle one."""
        key = sha256(session_id)
        now = time.time()
        with self.engine.begin() as connection:
            row = connection.execute(sa.select(sessions_table).where(sessions_table.c.id_sha256 == key)).first()
            if row is None:
                return None
            if row.created_at < now - self.lifetime or row.seen_at < now - self.idle:
                connection.execute(sessions_table.delete().where(sessions_table.c.id_sha256 == key))
                return None
            if row.seen_at < now - _TOUCH_EVERY:
                connection.execute(sessions_table.update().where(sessions_table.c.id_sha256 == key).values(seen_at=now))
        return Session(row.account_id, row.csrf_token)

    def end(self, session_id: str) -> None:
        with self.engine.begin() as connection:
            connection.execute(sessions_table.delete().where(sessions_table.c.id_sha256 == sha256(session_id)))

    def end_all(self, account_id: int) -> None:
        with self.engine.begin() as connection:
            connection.execute(sessions_table.delete().where(sessions_table.c.account_id == account_id))
