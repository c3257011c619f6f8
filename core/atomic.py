"""Atomic file writes: temp file in the same folder, fsync, ``os.replace``.

A reader (or a process killed half-way) sees the old file or the new one,
never a torn mix.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any


def _umask() -> int:
    """The process's umask (read by setting it, so once, at import, before any thread)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


UMASK = _umask()


def new_file_mode(path: Path) -> int:
    """The mode ``path`` keeps when it exists; else what ``open()`` would give: 0666 & ~umask.

    ``mkstemp`` makes its file 0600; without this a config or state file would be unreadable
    by the person's group where their other files are not.
    """
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~UMASK


def write_bytes_atomic(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Replace ``path`` with ``data`` in one rename; ``durable``: fsync the file and the folder.

    A file nothing resumes from (a log for people) needs no fsync: after a crash it is whole,
    old or missing, never torn, and a missing one costs no decision.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, new_file_mode(path))
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if durable:
        fsync_dir(path.parent)


def write_text_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    write_bytes_atomic(path, text.encode("utf-8"), durable=durable)


def write_json_atomic(path: Path, data: Any, *, durable: bool = True) -> None:
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n", durable=durable)


def fsync_dir(folder: Path) -> None:
    """Make a rename or a new file in ``folder`` durable (best effort where unsupported)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


_TEMP_NAME = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")
"""The name :func:`write_bytes_atomic` gives its temp file: ``.<target>.<mkstemp's 8>.tmp``."""


def remove_temp_files(folder: Path) -> None:
    """Delete the temp files a killed writer left in ``folder`` (ours only, by their name).

    Call it where no other writer is at work: under the project lock, before the run writes.
    """
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if _TEMP_NAME.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
            Path(entry.path).unlink(missing_ok=True)
