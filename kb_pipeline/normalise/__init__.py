"""MinerU raw output → `Chunk[]`. See `chunker` for the rules; the version of this code is
`kb_pipeline.versions.NORMALISER_VERSION`."""

from __future__ import annotations

from .chunker import build_chunks

__all__ = ["build_chunks"]
