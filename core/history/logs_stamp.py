"""``logs/.index-9.stamp``: ``logs/``'s mtime when its folders last matched the index, so that a
launch can tell no run folder was added or removed without listing 100,000 of them.

Adding, removing or renaming a folder (or any file) in ``logs/`` changes its mtime, and so
does rewriting the index there (a rename): a stamp whose mtime still holds means ``logs/``
holds the names it held when they were listed and found to be the index's. The stamp is
written only by a check that listed the folders and rewrote nothing, with the mtime read
*before* the listing (a folder added during it changes the mtime after). It is overwritten
in place (made once, empty, before that mtime is read), so writing it never changes
``logs/``'s mtime itself.

Timestamps are coarse on some file systems (a second, two on FAT): a folder added in the
same tick as the stamped mtime would leave it unchanged. As git does with its index
("racy clean"), a stamp is trusted only when its mtime was at least :data:`RACY_NS` older
than the moment it was read; a younger one makes the next launch list the folders again
(and stamp them then). A stamp that is missing, malformed or unwritable is no stamp: the
folders are listed, as before there was one.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import NamedTuple

from orch_tui.core.history.index_db import INDEX_VERSION

STAMP_NAME = f".index-{INDEX_VERSION}.stamp"
"""Of this index version: a stamp says the folders matched one index, and another version's
(version 7 kept ``.index-stamp``) may have been checked against the folders when this one
was not (a run added while only the other version was launched)."""
RACY_NS = 2_000_000_000
"""How much older than its reading an mtime must be to be trusted (FAT's 2 s granularity)."""


class Stamp(NamedTuple):
    """``logs/``'s mtime and the wall-clock time it was read at, both in ns."""

    mtime_ns: int
    read_at_ns: int


def stamp_now(logs: Path) -> Stamp | None:
    """``logs/``'s mtime now, to stamp if the listing that follows matches the index; the
    stamp file is made first (empty) so that making it is not a change the stamp misses.
    None when ``logs/`` cannot be read or the stamp file cannot be made."""
    try:
        os.close(os.open(logs / STAMP_NAME, os.O_WRONLY | os.O_CREAT, 0o644))
        mtime = os.stat(logs).st_mtime_ns
    except OSError:
        return None
    return Stamp(mtime, time.time_ns())


def write_stamp(logs: Path, stamp: Stamp) -> None:
    """Overwrite the stamp file in place (never create or rename: ``logs/``'s mtime stays).
    A failed write is ignored: the next launch lists the folders."""
    data = f"{stamp.mtime_ns} {stamp.read_at_ns}\n".encode()
    try:
        fd = os.open(logs / STAMP_NAME, os.O_WRONLY)
    except OSError:
        return
    try:
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, len(data))
    except OSError:
        pass
    finally:
        os.close(fd)


def unchanged_since_stamp(logs: Path) -> bool:
    """Whether ``logs/`` holds the names it held when stamped: its mtime is the stamp's, and
    the stamp is not racy."""
    try:
        with open(logs / STAMP_NAME, "rb") as handle:
            fields = handle.read(64).split()
        mtime = os.stat(logs).st_mtime_ns
    except OSError:
        return False
    try:
        stamped, read_at = map(int, fields)
    except ValueError:  # malformed, or torn by two writers at once
        return False
    return mtime == stamped and read_at - stamped >= RACY_NS
