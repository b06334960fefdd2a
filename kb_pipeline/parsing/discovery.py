"""Finding MinerU output files by role, under plain or prefixed names.

MinerU 4 writes ``content_list_v2.json``, ``content_list.json``, ``markdown.md``,
``middle_json.json`` and ``model_output.json``; older versions and the hosted API write
``full.md``, ``layout.json``, ``*_model.json``, and prefix names with the document name or a
UUID (``63805328-..._content_list.json``). Every entry of the directory is recorded (unknown
ones under ``other``) so the manifest's ``input_files_all`` is a complete audit list.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path


class NoContentListError(FileNotFoundError):
    """The directory holds neither content_list_v2.json nor content_list.json (plain or prefixed)."""


class IncompleteOutputError(ValueError):
    """The directory lacks a file the normaliser reads (a content list, the middle JSON, the PDF)."""


# Checked in this order; the first role whose pattern matches claims the file,
# so "*_content_list_v2.json" is never mistaken for "*_content_list.json".
_ROLE_PATTERNS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("content_list_v2", ("content_list_v2.json", "*_content_list_v2.json")),
    ("content_list", ("content_list.json", "*_content_list.json")),
    ("middle_json", ("middle_json.json", "*_middle_json.json", "*_middle.json", "layout.json", "*_layout.json")),
    ("model_output", ("model_output.json", "*_model_output.json", "model.json", "*_model.json")),
    ("structured_content", ("structured_content.json", "*_structured_content.json")),
    ("markdown", ("markdown.md", "full.md", "*.md")),
    ("origin_pdf", ("origin.pdf", "*_origin.pdf", "*.pdf")),
)


@dataclass(frozen=True)
class DiscoveredInputs:
    input_dir: Path
    files: dict[str, list[Path]]  # role -> every matching file, plain name first
    images_dir: Path | None

    def first(self, role: str) -> Path | None:
        candidates = self.files.get(role)
        return candidates[0] if candidates else None

    @property
    def content_list(self) -> Path | None:
        return self.first("content_list_v2") or self.first("content_list")

    def required(self, role: str, what: str, hint: str = "") -> Path:
        found = self.first(role)
        if found is None:
            raise IncompleteOutputError(f"no {what} in {self.input_dir}" + (f" ({hint})" if hint else ""))
        return found


def _role_of(name: str) -> str:
    for role, patterns in _ROLE_PATTERNS:
        if any(fnmatch.fnmatch(name.lower(), pattern) for pattern in patterns):
            return role
    return "other"


def discover_inputs(input_dir: Path) -> DiscoveredInputs:
    if not input_dir.is_dir():
        raise NoContentListError(f"not a directory: {input_dir}")
    files: dict[str, list[Path]] = {}
    images_dir = None
    for entry in sorted(input_dir.iterdir()):
        if entry.is_dir():
            if entry.name == "images":
                images_dir = entry
            else:
                files.setdefault("other", []).append(entry)
            continue
        files.setdefault(_role_of(entry.name), []).append(entry)
    for role, patterns in _ROLE_PATTERNS:
        # The first pattern matched wins: a plain name over prefixed variants, MinerU 4's names
        # over older ones (middle_json.json over layout.json); ties keep name order.
        files.get(role, []).sort(
            key=lambda path: next(
                n for n, pattern in enumerate(patterns) if fnmatch.fnmatch(path.name.lower(), pattern)
            )
        )
    found = DiscoveredInputs(input_dir=input_dir, files=files, images_dir=images_dir)
    if found.content_list is None:
        raise NoContentListError(f"no content_list_v2.json or content_list.json (plain or prefixed) in {input_dir}")
    return found
