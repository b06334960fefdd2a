"""A document's kept versions: when its payloads are written, a copy of the
reviewable ones (glossary, rules, formulas, brief, review queue) and a small record of the
source they were extracted from, under `<versions>/<content_hash>/` — by default
`<data root>/knowledge_versions/<doc_id>/` (`DataLayout.document_versions`).

A version is the source's content (`ParsedDocument.content_hash`, the PDF's sha256): a
re-extraction of the same content replaces that version's copy, a new content adds one. Kept
apart from the document's folder, so a failed extraction — which removes the folder's payloads —
removes no kept version. None is pruned: a version costs about its payloads (~1 KB per entry).
A folder that is no content hash, or whose record is unreadable or names another content (a hand
edit, an older schema), is no version: skipped with a warning, never an error — the document's
extraction and the desk's pages read the versions that are whole.
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, ValidationError

from ...contracts import ParsedDocument
from ...files import copy_atomically, write_text_atomically

RECORD_NAME = "version.json"
# What a reviewer reads of a version: the desk's five payloads (usage and rejected are not kept).
KEPT_PAYLOADS = (
    "glossary.json",
    "interpretation_pack.json",
    "formulas.json",
    "brief_context.json",
    "review_queue.json",
)
_HASH = re.compile(r"[0-9a-f]{16,128}")
_log = logging.getLogger(__name__)


class DocumentVersion(BaseModel):
    """What a kept version was extracted from, and when."""

    doc_id: str
    content_hash: str  # the source PDF's sha256
    source_file: str  # the PDF's file name when it was ingested
    n_pages: int
    parsed_at: str | None  # when this content was parsed (the artifact's `created_at`)
    extracted_at: str  # when these payloads were written (ISO 8601 UTC, seconds)
    # The document's extractions counted: the order of its versions (a re-extraction of an
    # older content makes it the latest again), which a clock's seconds cannot always tell. Two
    # extractions at once may count the same number: `extracted_at` then orders them.
    extraction: int

    @property
    def short(self) -> str:
        return self.content_hash[:12]


def version_folder(versions: Path, content_hash: str) -> Path:
    """Where one version is kept; the hash checked first, since it names a folder."""
    if not _HASH.fullmatch(content_hash):
        raise ValueError(f"not a content hash: {content_hash!r}")
    return versions / content_hash


def keep_version(
    document: ParsedDocument, payloads: Path, versions: Path, now: datetime | None = None
) -> DocumentVersion:
    """The payloads just written to the folder `payloads`, kept as `document`'s version under
    `versions`; the record is written last, so a version with a record is whole."""
    folder = version_folder(versions, document.content_hash)
    extraction = max((v.extraction for v in list_versions(versions)), default=0) + 1
    for name in KEPT_PAYLOADS:
        copy_atomically(payloads / name, folder / name)
    record = DocumentVersion(
        doc_id=document.doc_id,
        content_hash=document.content_hash,
        source_file=Path(document.source_path).name,
        n_pages=document.n_pages,
        parsed_at=document.created_at,
        extracted_at=(now or datetime.now(UTC)).isoformat(timespec="seconds"),
        extraction=extraction,
    )
    write_text_atomically(folder / RECORD_NAME, record.model_dump_json(indent=2) + "\n")
    return record


def list_versions(versions: Path) -> list[DocumentVersion]:
    """Every whole version kept under `versions`, the oldest extraction first: the folders named
    by a content hash whose record is readable and names that content."""
    found = []
    for folder in sorted(versions.iterdir()) if versions.is_dir() else ():
        record = folder / RECORD_NAME
        if not _HASH.fullmatch(folder.name) or not record.is_file():
            continue
        try:
            version = DocumentVersion.model_validate_json(record.read_bytes())
        except (OSError, ValidationError) as error:
            _log.warning("%s: not a version, skipped (unreadable: %s)", record, str(error).splitlines()[0])
            continue
        if version.content_hash != folder.name:
            _log.warning("%s: not a version, skipped (it names content %s)", record, version.content_hash)
            continue
        found.append(version)
    return sorted(found, key=lambda v: (v.extraction, v.extracted_at))
