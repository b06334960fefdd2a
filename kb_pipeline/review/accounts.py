"""The desk's accounts and their API tokens, in the review database beside the decisions.

An account has a name, a role (viewer reads, reviewer also decides, admin also manages
accounts), an argon2id password hash, and created / disabled / last sign-in times. Disabling
keeps the account, so its decisions keep naming it; a disabled account signs in no more, and its
sessions and tokens stop working. An API token is a random value shown once; only its sha256 is
stored (it is random, so a fast hash is enough: there is nothing to guess)."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Literal, get_args

import sqlalchemy as sa
from pydantic import BaseModel

from .passwords import hash_password, needs_rehash, verify_password
from .sessions import Sessions, sessions_table, sha256
from .store import create_tables, metadata

Role = Literal["viewer", "reviewer", "admin"]
ROLES: tuple[Role, ...] = get_args(Role)
NAME_LENGTH = 100

accounts_table = sa.Table(
    "review_accounts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(NAME_LENGTH), nullable=False, unique=True),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("password_hash", sa.Text, nullable=True),  # null: signs in only through the proxy header
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("disabled_at", sa.String(32), nullable=True),
    sa.Column("last_login_at", sa.String(32), nullable=True),
)
tokens_table = sa.Table(
    "review_api_tokens",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("account_id", sa.Integer, sa.ForeignKey("review_accounts.id"), nullable=False, index=True),
    sa.Column("token_sha256", sa.String(64), nullable=False, unique=True),
    sa.Column("created_at", sa.String(32), nullable=False),
    sa.Column("revoked_at", sa.String(32), nullable=True),
)


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Account(BaseModel):
    id: int
    name: str
    role: Role
    created_at: str
    disabled_at: str | None
    last_login_at: str | None

    @property
    def enabled(self) -> bool:
        return self.disabled_at is None

    def may(self, role: Role) -> bool:
        """Whether this account's role includes `role` (admin ⊃ reviewer ⊃ viewer)."""
        return self.enabled and ROLES.index(self.role) >= ROLES.index(role)


class AccountError(ValueError):
    """A request the accounts refuse, said in words the CLI and the desk show as they are."""


def _clean_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > NAME_LENGTH or not name.isprintable():
        raise AccountError(f"an account name is 1 to {NAME_LENGTH} printable characters")
    return name


_COLUMNS = [c for c in accounts_table.c if c.name != "password_hash"]


class Accounts:
    """The accounts of one review database (their tables created if missing), with the sessions
    they sign in to: a disabled account's or a changed password's sessions end."""

    def __init__(self, engine: sa.Engine, sessions: Sessions) -> None:
        create_tables(engine, [accounts_table, tokens_table, sessions_table])
        self.engine = engine
        self.sessions = sessions
        self._some = False  # once an account exists it stays (disabling keeps it): no query per request

    def exist(self) -> bool:
        """Whether any account exists: the desk then needs a sign-in for every request."""
        if not self._some:
            with self.engine.begin() as connection:
                self._some = connection.execute(sa.select(accounts_table.c.id).limit(1)).first() is not None
        return self._some

    def _one(self, where: sa.ColumnElement[bool]) -> Account | None:
        with self.engine.begin() as connection:
            row = connection.execute(sa.select(*_COLUMNS).where(where)).first()
        return Account.model_validate(row._asdict()) if row else None

    def get(self, name: str) -> Account | None:
        return self._one(accounts_table.c.name == name.strip())

    def by_id(self, account_id: int) -> Account | None:
        return self._one(accounts_table.c.id == account_id)

    def _named(self, name: str) -> Account:
        account = self.get(name)
        if account is None:
            raise AccountError(f"no account named {name!r}")
        return account

    def all(self) -> list[Account]:
        with self.engine.begin() as connection:
            rows = connection.execute(sa.select(*_COLUMNS).order_by(accounts_table.c.name))
            return [Account.model_validate(r._asdict()) for r in rows]

    def add(self, name: str, role: Role, password: str | None) -> Account:
        name = _clean_name(name)
        if role not in ROLES:
            raise AccountError(f"a role is one of {', '.join(ROLES)}")
        # Names differing only in case would read as one person in the audit trail.
        taken = next((a for a in self.all() if a.name.casefold() == name.casefold()), None)
        if taken is not None:
            hint = "" if taken.enabled else f" (disabled: `kb-pipeline review user enable {taken.name}`)"
            raise AccountError(f"an account named {taken.name!r} exists already{hint}")
        values = {
            "name": name,
            "role": role,
            "password_hash": hash_password(password) if password is not None else None,
            "created_at": now_iso(),
        }
        with self.engine.begin() as connection:
            connection.execute(accounts_table.insert().values(**values))
        self._some = True
        return self._named(name)

    def _update(self, account: Account, **values: object) -> Account:
        with self.engine.begin() as connection:
            connection.execute(accounts_table.update().where(accounts_table.c.id == account.id).values(**values))
        return self._named(account.name)

    def _keep_an_admin(self, account: Account) -> None:
        """Refuses to take away the last enabled admin: nobody could manage accounts any more."""
        admins = [a for a in self.all() if a.enabled and a.role == "admin"]
        if admins == [account]:
            raise AccountError(f"{account.name!r} is the last enabled admin: make another admin first")

    def set_role(self, name: str, role: Role) -> Account:
        account = self._named(name)
        if role not in ROLES:
            raise AccountError(f"a role is one of {', '.join(ROLES)}")
        if role != "admin":
            self._keep_an_admin(account)
        return self._update(account, role=role)

    def disable(self, name: str) -> Account:
        account = self._named(name)
        if not account.enabled:
            return account
        self._keep_an_admin(account)
        self.revoke_tokens(account.name)
        self.sessions.end_all(account.id)
        return self._update(account, disabled_at=now_iso())

    def enable(self, name: str) -> Account:
        """A disabled account signs in again; the sessions and tokens disabling ended stay ended."""
        account = self._named(name)
        return account if account.enabled else self._update(account, disabled_at=None)

    def reset_password(self, name: str, password: str) -> Account:
        account = self._update(self._named(name), password_hash=hash_password(password))
        self.sessions.end_all(account.id)
        return account

    def sign_in(self, name: str, password: str) -> Account | None:
        """The enabled account with this name and password, its sign-in recorded; else None,
        after the same work whichever of the two was wrong."""
        with self.engine.begin() as connection:
            row = connection.execute(
                sa.select(accounts_table.c.id, accounts_table.c.password_hash).where(
                    accounts_table.c.name == name.strip()
                )
            ).first()
        stored = row.password_hash if row else None
        if not verify_password(stored, password) or row is None:
            return None
        account = self.by_id(row.id)
        if account is None or not account.enabled:
            return None
        values: dict[str, object] = {"last_login_at": now_iso()}
        if stored and needs_rehash(stored):
            values["password_hash"] = hash_password(password)
        return self._update(account, **values)

    def issue_token(self, name: str) -> str:
        """A new API token for the account (its others stay valid): returned once, stored hashed."""
        account = self._named(name)
        if not account.enabled:
            raise AccountError(f"{account.name!r} is disabled")
        token = f"kbr_{secrets.token_urlsafe(32)}"
        with self.engine.begin() as connection:
            connection.execute(
                tokens_table.insert().values(account_id=account.id, token_sha256=sha256(token), created_at=now_iso())
            )
        return token

    def revoke_tokens(self, name: str) -> int:
        account = self._named(name)
        with self.engine.begin() as connection:
            result = connection.execute(
                tokens_table.update()
                .where(tokens_table.c.account_id == account.id, tokens_table.c.revoked_at.is_(None))
                .values(revoked_at=now_iso())
            )
        return result.rowcount

    def for_token(self, token: str) -> Account | None:
        """The enabled account an unrevoked token belongs to."""
        query = sa.select(tokens_table.c.account_id).where(
            tokens_table.c.token_sha256 == sha256(token), tokens_table.c.revoked_at.is_(None)
        )
        with self.engine.begin() as connection:
            row = connection.execute(query).first()
        account = self.by_id(row.account_id) if row else None
        return account if account is not None and account.enabled else None
