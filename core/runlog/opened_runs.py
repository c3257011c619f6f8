"""``logs/.opened-runs``: the id of every run a writer opened, one a line, appended.

Every write to a run folder goes through a :class:`~orch_tui.core.runlog.writer.RunLog`,
which names its run here first. The history index remembers how far into this file it had
read, so a launch over a long history needs to look again only at the runs named since, the
runs that were unfinished when recorded and folders added or removed: not at every folder
(two ``stat`` calls a run, 0.6 s of CPU at 100,000 runs). A failed append is ignored: the
index then finds the run as it always could, by a full check.
"""

from __future__ import annotations

import os
from pathlib import Path

OPENED_RUNS = ".opened-runs"


def note_opened(logs_root: Path, run_id: str) -> None:
    """Append ``run_id`` (one write on an O_APPEND descriptor: lines never interleave)."""
    try:
        fd = os.open(logs_root / OPENED_RUNS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError:
        return
    try:
        os.write(fd, f"{run_id}\n".encode())
    except OSError:
        pass
    finally:
        os.close(fd)


def opened_size(logs_root: Path) -> int:
    """The file's size now (0 when there is none): where a later read starts."""
    try:
        return os.stat(logs_root / OPENED_RUNS).st_size
    except OSError:
        return 0


def opened_since(logs_root: Path, offset: int) -> set[str] | None:
    """The runs named after byte ``offset``; None when the file is shorter than that (it was
    replaced or cut: what was named since is unknown)."""
    try:
        with open(logs_root / OPENED_RUNS, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            if handle.tell() < offset:
                return None
            handle.seek(offset)
            text = handle.read().decode("utf-8", "replace")
    except FileNotFoundError:
        return None if offset else set()
    except OSError:
        return None
    return {line for line in text.splitlines() if line}
