"""Watching a drop folder: which PDFs are new or changed, still being written, or gone.

Pure logic over a small JSON-able state, so the Dagster sensor keeps it in its cursor (which
survives restarts) and tests drive it tick by tick. A file is hashed only when its size or
mtime moved since it was last recorded, so a tick over 1,000 unchanged files reads no file.
A file is "finished" once its size and mtime are the same at two looks in a row, or, given a
settle time, once its mtime is that old (a writer still at work keeps touching it).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from .pdf_text import PDFIUM_LOCK, PdfTextLayer
from .sources import SourceFile, list_pdfs, sha256_file


@dataclass
class Recorded:
    size: int
    mtime_ns: int
    content_hash: str
    doc_id: str
    # Identity of the last request made for this file: content, config and code versions.
    request_key: str


@dataclass
class FolderState:
    files: dict[str, Recorded] = field(default_factory=dict)
    # Files seen once, waiting for a second look with the same size and mtime.
    pending: dict[str, tuple[int, int]] = field(default_factory=dict)
    # Non-PDF entries already reported, so each is logged once, not on every tick.
    skipped: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> str:
        files = {name: [r.size, r.mtime_ns, r.content_hash, r.doc_id, r.request_key] for name, r in self.files.items()}
        pending = {name: list(v) for name, v in self.pending.items()}
        return json.dumps({"files": files, "pending": pending, "skipped": self.skipped}, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | None) -> FolderState:
        if not text:
            return cls()
        raw = json.loads(text)
        return cls(
            files={name: Recorded(*values) for name, values in raw.get("files", {}).items()},
            pending={name: (v[0], v[1]) for name, v in raw.get("pending", {}).items()},
            skipped=raw.get("skipped", {}),
        )


@dataclass
class Ready:
    """A finished PDF whose content or processing identity is not yet requested."""

    source: SourceFile
    content_hash: str
    request_key: str


def largest_first(ready: list[Ready]) -> list[Ready]:
    """The order to run documents in when several workers share them: the longest first, so the
    last to finish is a short one and no worker idles at the end while another parses a long one.
    Long is pages (then bytes): a parse's time follows its pages, while a file's size is mostly its
    images and fonts (of ten corpus reports, the largest file had 18 pages, the 47-page manual was
    seventh; docs/PERFORMANCE.md)."""
    return sorted(ready, key=lambda item: (page_count(item.source.path), item.source.size), reverse=True)


def page_count(pdf: Path) -> int:
    """The PDF's number of pages; 0 for one that does not open (its run fails at once)."""
    try:
        with PDFIUM_LOCK, PdfTextLayer(pdf) as layer:
            return len(layer)
    except Exception:  # noqa: BLE001 — damaged, encrypted, gone: preflight names it in its run
        return 0


@dataclass
class FolderChanges:
    ready: list[Ready] = field(default_factory=list)
    waiting: list[SourceFile] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    newly_skipped: list[tuple[Path, str]] = field(default_factory=list)


def request_key(doc_id: str, content_hash: str, processing_identity: str) -> str:
    """Run key: the same content under the same config and code never runs twice."""
    return f"{doc_id}:{content_hash[:16]}:{processing_identity}"


def scan(
    folder: Path,
    state: FolderState,
    processing_identity: str,
    *,
    require_stable: bool = True,
    settle_seconds: float | None = None,
    now: float | None = None,
) -> tuple[FolderChanges, FolderState]:
    """Compare the folder with `state`: the changes, and the state to keep *after* the ready files
    have been requested. `require_stable=False` treats every file as finished (a one-shot ingest,
    where nobody is still writing)."""
    settled_before_ns = None if settle_seconds is None else int(((now or time.time()) - settle_seconds) * 1e9)
    sources, skipped = list_pdfs(folder)
    changes = FolderChanges()
    new = FolderState()
    for path, reason in skipped:
        new.skipped[path.name] = reason
        if state.skipped.get(path.name) != reason:
            changes.newly_skipped.append((path, reason))
    for source in sources:
        name = source.path.name
        stat = (source.size, source.mtime_ns)
        known = state.files.get(name)
        if known is not None and (known.size, known.mtime_ns) == stat and known.doc_id == source.doc_id:
            key = request_key(source.doc_id, known.content_hash, processing_identity)
            new.files[name] = known
            if key == known.request_key:
                changes.unchanged += 1
            else:  # same bytes, new config or code: request again, no need to hash
                changes.ready.append(Ready(source, known.content_hash, key))
            continue
        settled = settled_before_ns is not None and source.mtime_ns <= settled_before_ns
        if require_stable and not settled and state.pending.get(name) != stat:
            new.pending[name] = stat
            changes.waiting.append(source)
            if known is not None:
                new.files[name] = known
            continue
        try:
            content_hash = sha256_file(source.path)
        except FileNotFoundError:
            continue  # vanished between listing and hashing: it is simply not there any more
        key = request_key(source.doc_id, content_hash, processing_identity)
        new.files[name] = Recorded(
            source.size, source.mtime_ns, content_hash, source.doc_id, known.request_key if known else ""
        )
        if known is not None and key == known.request_key:
            changes.unchanged += 1  # touched, same bytes
        else:
            changes.ready.append(Ready(source, content_hash, key))
    changes.removed = sorted(set(state.files) - set(new.files) - set(new.pending))
    return changes, new


def mark_requested(state: FolderState, ready: list[Ready]) -> FolderState:
    for item in ready:
        state.files[item.source.path.name].request_key = item.request_key
    return state
