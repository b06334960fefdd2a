"""MinerU raw output → `Chunk[]`. See `chunker` for the rules."""

from __future__ import annotations

import hashlib
from pathlib import Path

from .chunker import build_chunks

__all__ = ["build_chunks", "NORMALISER_VERSION"]

_PACKAGE = Path(__file__).resolve().parent.parent
# The code that turns raw output into chunks and warnings. A fix in any of these changes the
# artifact without changing its shape, so it must change the version (contract: 0.3.1).
_NORMALISER_SOURCES = sorted(
    [*(_PACKAGE / "normalise").glob("*.py"), *(_PACKAGE / "quality").glob("*.py"),
     _PACKAGE / "contracts.py", _PACKAGE / "pdf_text.py", _PACKAGE / "parsing" / "raw_output.py",
     _PACKAGE / "source_title.py"]
)


def _fingerprint(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(path.relative_to(_PACKAGE).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


NORMALISER_VERSION = _fingerprint(_NORMALISER_SOURCES)
