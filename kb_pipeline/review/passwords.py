"""Account passwords, hashed with argon2id (argon2-cffi's defaults, RFC 9106's second
recommendation). Only the hash is stored; a hash made with weaker parameters is replaced at the
next sign-in."""

from __future__ import annotations

from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

_hasher = PasswordHasher()
MIN_LENGTH = 8


def hash_password(password: str) -> str:
    if len(password) < MIN_LENGTH:
        raise ValueError(f"a password needs at least {MIN_LENGTH} characters")
    return _hasher.hash(password)


@cache
def _stand_in() -> str:
    return _hasher.hash("no account has this password")


def verify_password(stored: str | None, password: str) -> bool:
    """Whether `password` is the one `stored` was made from. With no stored hash (no such
    account) a stand-in is checked, so an unknown name takes as long as a wrong password."""
    try:
        return _hasher.verify(stored or _stand_in(), password) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(stored: str) -> bool:
    return _hasher.check_needs_rehash(stored)
