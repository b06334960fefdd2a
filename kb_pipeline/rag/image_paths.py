"""Turning an image reference from a content list into a project-root-relative path.

A content list writes ``images/abc.jpg`` relative to the MinerU output directory; the
knowledge base needs a path that resolves from the project root instead. A reference is
usable only if it is a local file with an image extension, inside the MinerU output
directory, and present on disk; otherwise the packager gets the reason to log.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".gif", ".bmp", ".webp"})


@dataclass(frozen=True)
class ResolvedImage:
    path: str  # project-root-relative POSIX path, "" when unusable
    problem: str = ""  # why the reference is unusable, "" when usable


def project_relative(path: Path, project_root: Path) -> str:
    """POSIX path from the project root; it starts with ".." only if ``path`` lies outside it."""
    return Path(os.path.relpath(path.resolve(), project_root.resolve())).as_posix()


def resolve_image(reference: str, input_dir: Path, project_root: Path) -> ResolvedImage:
    reference = reference.strip()
    if not reference:
        return ResolvedImage("", "no image reference")
    if reference.startswith(("data:", "http://", "https://", "file:")):
        return ResolvedImage("", "image is not a local file reference")
    if reference.endswith("/") or Path(reference).suffix.lower() not in IMAGE_SUFFIXES:
        return ResolvedImage("", "reference is not an image file name")
    input_root = input_dir.resolve()
    full_path = (input_root / reference).resolve()
    if not full_path.is_relative_to(input_root):
        return ResolvedImage("", "reference points outside the MinerU output directory")
    if not full_path.is_file():
        return ResolvedImage("", "image file not found")
    return ResolvedImage(project_relative(full_path, project_root))
