"""The content-addressed cache of untouched MinerU output.

One directory per `<sha16>-<config12>-<mineru_version>`. A directory is complete only when it
holds the completion marker, and it only ever appears under its final name by an atomic rename
of a finished temp directory, so a run killed mid-write leaves a temp directory that is never
read as complete (and is removed by the next write of the same key).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import uuid
from collections.abc import Callable
from pathlib import Path

COMPLETE_MARKER = "_COMPLETE.json"
_TMP_PREFIX = ".tmp-"


def cache_key(content_hash: str, config_fingerprint: str, mineru_version: str) -> str:
    return f"{content_hash[:16]}-{config_fingerprint}-{mineru_version}"


def complete_dir(cache_root: Path, key: str) -> Path | None:
    path = cache_root / key
    return path if (path / COMPLETE_MARKER).is_file() else None


def read_marker(path: Path) -> dict:
    return json.loads((path / COMPLETE_MARKER).read_text(encoding="utf-8"))


def pid_alive(pid: int) -> bool:
    """Whether a process of this machine with this pid exists and is not a zombie (a killed
    worker stays one until its parent reaps it, and does no more work)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):
        return True  # no /proc: the signal's answer stands


def _temp_prefix(key: str) -> str:
    # The host is in the name because a pid means something only on its own machine: on a
    # shared cache volume, another host's live temp dir must never look abandoned.
    return f"{_TMP_PREFIX}{key}-{socket.gethostname()}-"


def _remove_abandoned_temps(cache_root: Path, key: str) -> None:
    """Temp dirs of this key left by a process of this host that no longer exists (killed)."""
    prefix = _temp_prefix(key)
    for tmp in cache_root.glob(f"{prefix}*"):
        try:
            pid = int(tmp.name[len(prefix) :].split("-")[0])
        except ValueError:
            continue
        if not pid_alive(pid):
            shutil.rmtree(tmp, ignore_errors=True)


def write_atomically(cache_root: Path, key: str, fill: Callable[[Path], dict]) -> Path:
    """Create the cache directory for `key`: `fill(tmp_dir)` writes the files and returns the
    marker's content; the marker is written last and the directory renamed into place.

    If another process completed the same key meanwhile, its directory wins and ours is
    discarded: both hold the same deterministic output.
    """
    cache_root.mkdir(parents=True, exist_ok=True)
    _remove_abandoned_temps(cache_root, key)
    tmp = cache_root / f"{_temp_prefix(key)}{os.getpid()}-{uuid.uuid4().hex[:8]}"
    tmp.mkdir()
    try:
        marker = fill(tmp)
        (tmp / COMPLETE_MARKER).write_text(json.dumps(marker, indent=2, sort_keys=True), encoding="utf-8")
        final = cache_root / key
        try:
            os.rename(tmp, final)
        except OSError:
            # An incomplete leftover under the final name (from a version without the marker
            # discipline, or a manual copy) is replaced; a complete one is kept.
            if complete_dir(cache_root, key) is None:
                shutil.rmtree(final, ignore_errors=True)
                os.rename(tmp, final)
        return final
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
