"""Source documents in a drop folder: their doc ids, content hashes, and whether they are done.

A doc id is a Dagster partition key and a directory name, so it must be safe as both. A file
name that is not (commas, brackets, `..`, control characters, non-ASCII, very long) is mapped to
a safe id deterministically; the original name travels as `source_title`. Nothing is dropped.
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path

PDF_SUFFIX = ".pdf"
MAX_DOC_ID_LENGTH = 80
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]*$")
_UNSAFE_RUN = re.compile(r"[^A-Za-z0-9_\-]+")
_HASH_CHUNK = 1 << 20


def doc_id_for(path: Path) -> str:
    """The document's id: its file stem when that is a safe key, else a readable slug plus a
    short digest of the full name, so two names that slug alike never collide.

    Only the exact suffix `.pdf` keeps the bare stem: `a.pdf` and `a.PDF` side by side must not
    share an id, and which one gets the bare stem must not depend on which arrived first.
    """
    stem = path.name[: -len(path.suffix)] if path.suffix else path.name
    return _doc_id(stem, path.name, bare_stem=path.suffix == PDF_SUFFIX)


def doc_id_for_name(name: str) -> str:
    """The id of a document known by a name rather than a file (a MinerU output folder's, or one
    given on the command line): the same rule, the id its PDF `<name>.pdf` would have."""
    return _doc_id(name, name + PDF_SUFFIX, bare_stem=True)


def _doc_id(stem: str, name: str, *, bare_stem: bool) -> str:
    if bare_stem and _SAFE_ID.match(stem) and len(stem) <= MAX_DOC_ID_LENGTH:
        return stem
    ascii_stem = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode()
    slug = _UNSAFE_RUN.sub("_", ascii_stem).strip("_-")[: MAX_DOC_ID_LENGTH - 9] or "doc"
    digest = hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{slug}_{digest}"


def sha256_file(path: Path, copy_to: Path | None = None) -> str:
    """sha256 of a file's bytes, streamed so a large PDF is never held in memory. With
    `copy_to`, the same read also writes a copy, whose hash is then the one returned."""
    h = hashlib.sha256()
    with path.open("rb") as f, copy_to.open("wb") if copy_to else nullcontext() as out:
        while block := f.read(_HASH_CHUNK):
            h.update(block)
            if out is not None:
                out.write(block)
    return h.hexdigest()


@dataclass(frozen=True)
class SourceFile:
    """One PDF found in a drop folder, as seen at one moment."""

    path: Path
    doc_id: str
    size: int
    mtime_ns: int


def list_pdfs(folder: Path) -> tuple[list[SourceFile], list[tuple[Path, str]]]:
    """PDFs directly in `folder`, sorted by name, plus every other entry with why it was skipped.

    Symlinks are not followed (a link could point outside the drop folder); hidden files are
    listed like any other so a `.report.pdf` is not silently ignored.
    """
    found: list[SourceFile] = []
    skipped: list[tuple[Path, str]] = []
    with os.scandir(folder) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            path = Path(entry.path)
            if entry.is_symlink():
                skipped.append((path, "symlink: not followed"))
            elif not entry.is_file(follow_symlinks=False):
                if entry.is_dir(follow_symlinks=False):
                    continue
                skipped.append((path, "not a regular file"))
            elif path.suffix.lower() != PDF_SUFFIX:
                skipped.append((path, f"not a PDF (suffix {path.suffix or 'none'!r})"))
            else:
                st = entry.stat(follow_symlinks=False)
                found.append(SourceFile(path, doc_id_for(path), st.st_size, st.st_mtime_ns))
    return found, skipped
