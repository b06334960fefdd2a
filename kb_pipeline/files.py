"""Writing files so that a reader never sees half of one: write beside the target, then rename
over it (atomic on one filesystem). Every output of the pipeline is written this way."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .parsing.cache import pid_alive


@contextmanager
def replacing(path: Path) -> Iterator[Path]:
    """A temp path beside `path`, renamed over it when the block ends without an error (and
    removed when it raises). Temp files of writers that were killed mid-write are removed on
    the way: the temp name carries the writer's pid."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        pid = stale.name[len(path.name) + 2 : -len(".tmp")]
        if pid.isdigit() and not pid_alive(int(pid)):
            stale.unlink(missing_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        yield tmp
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomically(path: Path, text: str) -> None:
    with replacing(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def copy_atomically(source: Path, target: Path) -> None:
    with replacing(target) as tmp:
        shutil.copyfile(source, tmp)
