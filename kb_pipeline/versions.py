"""Versions of our own code that shape what the pipeline writes. A change to any source listed
here changes what a stage produces without changing its shape, so it changes the version: the
artifact's `version` is bumped and Dagster shows the partitions unsynced (contract 0.3.1)."""

from __future__ import annotations

import hashlib
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def source_fingerprint(paths: list[Path]) -> str:
    """12 hex of a hash over the sources' paths and bytes."""
    h = hashlib.sha256()
    for path in sorted(paths):
        h.update(path.relative_to(_PACKAGE).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


# Everything that turns raw output into chunks, their layout and warnings: the normaliser itself
# and what it reads and checks with (the contracts, the quality rules, the text layer, the
# raw-output reader, the source-title rule). The artifact records it as `normaliser_version`.
NORMALISER_VERSION = source_fingerprint(
    [
        *(_PACKAGE / "normalise").glob("*.py"),
        *(_PACKAGE / "quality").glob("*.py"),
        _PACKAGE / "contracts.py",
        _PACKAGE / "layout_contract.py",
        _PACKAGE / "pdf_text.py",
        _PACKAGE / "parsing" / "raw_output.py",
        _PACKAGE / "source_title.py",
    ]
)
# What decides what MinerU reads and how (the preflight's OCR decision) and rewrites the PDF
# before it does (pages turned upright, scanned pages given a text layer): a change to it changes
# MinerU's output as a setting would, so it is part of the parser-config fingerprint, and the
# raw-output cache key moves with it.
PREPROCESS_SOURCES = [_PACKAGE / "parsing" / name for name in ("preflight.py", "ocr.py", "upright.py")]
PREPROCESS_VERSION = source_fingerprint(PREPROCESS_SOURCES)
# The RAG packager: `kb_package`'s code version. It packages the artifact and its layout (whose
# own version covers the normaliser) and names MinerU's files in its manifest (`parsing/discovery.py`).
# Not `rag/coverage.py`: it measures a package after the fact (tests, bench) and writes nothing
# into one, so a change to it must not show every package unsynced.
PACKAGER_SOURCES = [
    *(p for p in (_PACKAGE / "rag").glob("*.py") if p.name != "coverage.py"),
    _PACKAGE / "parsing" / "discovery.py",
    _PACKAGE / "layout_contract.py",
]
PACKAGER_VERSION = source_fingerprint(PACKAGER_SOURCES)
# The knowledge extraction (readers, span check, link stage, contracts, and the model call's
# record in usage.json): `knowledge_payloads`' code version, and part of its data version. Not
# the rest of llm/ (client, retries, cache, server): which model answers is the code version's
# other half (`knowledge_code_version`), and how it is reached decides no payload.
# The readers also read the artifacts' models (the chunks; the layout: title, list layouts) and
# the part-of-speech tagger's weights (the sentence analysis).
KNOWLEDGE_SOURCES = [
    *(_PACKAGE / "knowledge").rglob("*.py"),
    *(_PACKAGE / "knowledge" / "language" / "taggers").glob("*.json.gz"),
    _PACKAGE / "llm" / "usage.py",
    _PACKAGE / "contracts.py",
    _PACKAGE / "layout_contract.py",
]
KNOWLEDGE_VERSION = source_fingerprint(KNOWLEDGE_SOURCES)
