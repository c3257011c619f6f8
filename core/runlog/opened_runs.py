"""``logs/.opened-runs``: the id of every run a writer opened, one a line, appended.

Every write to a run folder goes through a :class:`~orch_tui.core.runlog.writer.RunLog`,
which names its run here first. The history index remembers how far into this file it had
read, so a launch over a long history needs to look again only at the runs named since, the
runs that were unfinished when recorded and folders added or removed: not at every folder
(two ``stat`` calls a run, 0.6 s of CPU at 100,000 runs). A failed append is ignored: the
index then finds the run as it always could, by a full check.

The file is trimmed when the index is rewritten (:func:`trim_opened`): it is replaced by one
that starts with a line ``#<mark>`` of its own and holds only the lines the index has not
read. A position in the file is a :class:`Position`, the mark and an offset, so an index
that read another file (the one before a trim) is never read against this one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

OPENED_RUNS = ".opened-runs"
TRIM_OVER = 64 * 1024
"""Above this many bytes (about 3,000 lines), rewriting the index trims the file."""


class Position(NamedTuple):
    """How far into the file a reader got: the file's mark (``""``: a file from before
    trimming, with no mark line) and a byte offset."""

    mark: str
    offset: int


def note_opened(logs_root: Path, run_id: str) -> None:
    """Append ``run_id`` (one write on an O_APPEND descriptor: lines never interleave).

    A trim replaces the file: a line written to the file it replaced after the trim read
    it would be lost, so a writer that finds the name no longer leads to the file it wrote
    to writes the line again to the one it leads to now."""
    line = f"{run_id}\n".encode()
    path = logs_root / OPENED_RUNS
    for _attempt in range(3):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError:
            return
        try:
            os.write(fd, line)
            written = os.fstat(fd)
            now = os.stat(path)
        except OSError:
            return
        finally:
            os.close(fd)
        if (now.st_dev, now.st_ino) == (written.st_dev, written.st_ino):
            return


def opened_position(logs_root: Path) -> Position:
    """The file's end now (an offset of 0 when there is none): where a later read starts."""
    try:
        with open(logs_root / OPENED_RUNS, "rb") as handle:
            mark = _mark(handle.readline())
            return Position(mark, handle.seek(0, os.SEEK_END))
    except OSError:
        return Position("", 0)


def opened_since(logs_root: Path, since: Position) -> tuple[set[str], Position] | None:
    """The runs named after ``since`` and the position read up to; None when the file is not
    the one ``since`` was in (it was replaced, trimmed or cut: what was named since is
    unknown)."""
    try:
        with open(logs_root / OPENED_RUNS, "rb") as handle:
            if _mark(handle.readline()) != since.mark:
                return None
            end = handle.seek(0, os.SEEK_END)
            if end < since.offset:
                return None
            handle.seek(since.offset)
            raw = handle.read()
    except FileNotFoundError:
        return None if since != Position("", 0) else (set(), since)
    except OSError:
        return None
    text = raw.decode("utf-8", "replace")
    named = {line for line in text.splitlines() if line and not line.startswith("#")}
    return named, Position(since.mark, since.offset + len(raw))


def trim_opened(logs_root: Path, since: Position) -> Position:
    """When the file is over :data:`TRIM_OVER` bytes, replace it by one that holds only the
    runs named after ``since`` (what the index being written has not read) and return the
    position of its start; else, or when it cannot be done, ``since`` as it is.

    The new file takes the name at once (a rename); the old one is read to its end after
    that, and a writer that wrote to it since writes its line again (:func:`note_opened`)."""
    path = logs_root / OPENED_RUNS
    try:
        if os.stat(path).st_size <= TRIM_OVER:
            return since
        old = open(path, "rb")  # noqa: SIM115 - read after the rename, closed below
    except OSError:
        return since
    mark = os.urandom(8).hex()
    header = f"#{mark}\n".encode()
    temp = path.with_name(f"{OPENED_RUNS}.{mark}.tmp")
    try:
        with old:
            if _mark(old.readline()) != since.mark:
                return since
            temp.write_bytes(header)
            os.replace(temp, path)
            old.seek(since.offset)
            left = old.read()
    except OSError:
        temp.unlink(missing_ok=True)
        return since
    named = [line for line in left.splitlines() if line and not line.startswith(b"#")]
    for run_id in dict.fromkeys(named):
        note_opened(logs_root, run_id.decode("utf-8", "replace"))
    return Position(mark, len(header))


def _mark(first_line: bytes) -> str:
    """The mark of a file whose first line is ``first_line`` (``""``: no mark line)."""
    if first_line.startswith(b"#"):
        return first_line[1:].rstrip(b"\n").decode("utf-8", "replace")
    return ""
