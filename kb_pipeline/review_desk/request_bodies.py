"""Whether a request body is text (review_desk/app.py's body check reads each body through
these before any route does): a JSON body or a form in UTF-8 holding no lone surrogate. Each
answers the validation error of the first field that is not — where, and which character — or
None; FastAPI's 422 handler shows it."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import unquote_to_bytes

_SURROGATE = re.compile("[\ud800-\udfff]")


def _printable(text: str) -> str:
    """`text` with each lone surrogate as its escape ("\\udcff"): a field's name, shown back."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _not_text(field: Sequence[str], at: int, what: str, why: str) -> dict[str, Any]:
    """The validation error of `field` (of the body) whose character `at` (0-based) is `what`."""
    return {"type": "string_unicode", "loc": ("body", *field), "msg": f"{what} at character {at + 1} {why}"}


def _not_utf8(field: Sequence[str], at: int, byte: int) -> dict[str, Any]:
    return _not_text(field, at, f"byte 0x{byte:02X}", "is not UTF-8: send text as UTF-8")


def _surrogate_in(value: object, field: tuple[str, ...] = ()) -> tuple[tuple[str, ...], int, str] | None:
    """The first lone surrogate in a parsed JSON body, in a key or a value: its field, where in
    that string, and the surrogate."""
    if isinstance(value, str):
        found = _SURROGATE.search(value)
        return (field, found.start(), found.group()) if found else None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        inner = (*field, _printable(str(key)))
        if found_in := (_surrogate_in(key, inner) if isinstance(key, str) else None) or _surrogate_in(item, inner):
            return found_in
    return None


def json_not_text(body: bytes) -> dict[str, Any] | None:
    """Where a JSON body holds what is not text: a byte that is not UTF-8, or the escape of a
    lone surrogate ("\\ud800"), which pydantic would refuse only in some fields and no database
    or export can hold. The bytes are read with each bad one as a lone surrogate (U+DC80 to
    U+DCFF, Python's surrogateescape), so both are found in their field."""
    try:
        body.decode("utf-8")
        first_bad = None
    except UnicodeDecodeError as e:
        first_bad = e.start
    try:
        found = _surrogate_in(json.loads(body.decode("utf-8", "surrogateescape")))
    except ValueError:  # no JSON: FastAPI says where (json_invalid), unless it is no UTF-8 either
        return None if first_bad is None else _not_utf8((), len(body[:first_bad].decode()), body[first_bad])
    if found is None:
        return None
    field, at, surrogate = found
    if first_bad is not None and "\udc80" <= surrogate <= "\udcff":
        return _not_utf8(field, at, ord(surrogate) - 0xDC00)
    return _not_text(field, at, f"U+{ord(surrogate):04X}", "is a lone surrogate, not a character")


def form_not_text(body: bytes) -> dict[str, Any] | None:
    """Where a form (application/x-www-form-urlencoded) holds what is not text: a field whose
    percent-decoded bytes are not UTF-8 (the form parser would store U+FFFD), or a byte not
    percent-encoded (it would read it as Latin-1). A browser sends neither."""
    for pair in body.split(b"&"):
        name, _, value = pair.partition(b"=")
        field = _printable(unquote_to_bytes(name.replace(b"+", b" ")).decode("utf-8", "surrogateescape"))
        for part in (name, value):
            text = unquote_to_bytes(part.replace(b"+", b" ")).decode("utf-8", "surrogateescape")
            if found := _SURROGATE.search(text):
                return _not_utf8([field], found.start(), ord(found.group()) - 0xDC00)
            if not part.isascii():
                at = next(i for i, c in enumerate(text) if not c.isascii())
                return _not_text([field], at, f"U+{ord(text[at]):04X}", "is not percent-encoded (as %XX of UTF-8)")
    return None
