"""A batch folder out of space: how the batch notices it, and what it tells the person.

Three signs, any one enough: a write of the batch's own (``batch.json``, the report, a run's
folder) fails; a run stops with the system's "no space" error as its last word in
``batch-run.log``; or, after a run stops, the folder's file system has less than
:data:`LOW_SPACE_BYTES` left. The batch then starts no more runs, keeps every file as the last
whole write left it (they are written atomically), and says which folder needs space.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from orch_tui.core.batch.run_one import RUN_LOG
from orch_tui.core.util.records import record

LOW_SPACE_BYTES = 1 << 20
"""Less than this left after a run stopped: the next run could not write its logs."""
SPACE_ERRNOS = (errno.ENOSPC, errno.EDQUOT)
TAIL_BYTES = 4096


@record(frozen=True)
class StorageProblem:
    """Why the batch stopped starting runs: a write that failed, or a disk out of space."""

    detail: str
    """``path: No space left on device``, or what the stopped run said."""
    space: bool = True
    """False: a write failed for another reason (a read-only folder, a permission)."""

    @classmethod
    def of(cls, exc: OSError) -> StorageProblem:
        reason = exc.strerror or str(exc)
        path = exc.filename2 or exc.filename
        detail = f"{path}: {reason}" if path else reason
        return cls(detail, exc.errno in SPACE_ERRNOS)

    def message(self, folder: Path, finished: int) -> str:
        """What the person reads: the folder, the problem, what was kept, and what to do."""
        what = "is out of space" if self.space else "cannot be written"
        fix = "free some space" if self.space else "make it writable"
        return (
            f"the batch folder {folder} {what} ({self.detail}); no more runs were started; "
            f"{finished} finished run(s) are kept as they were and batch.json holds the last "
            f"state saved; {fix}, then run the same command to resume the batch"
        )


def last_words(run_folder: Path) -> str:
    """The last line the run wrote to ``batch-run.log`` (its error, when it stopped on one)."""
    try:
        with open(run_folder / RUN_LOG, "rb") as log:
            log.seek(max(log.seek(0, os.SEEK_END) - TAIL_BYTES, 0))
            tail = log.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    lines = [line.strip() for line in tail.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def run_out_of_space(run_folder: Path) -> StorageProblem | None:
    """Why the stopped run in ``run_folder`` points to a full disk; None when nothing does."""
    said = last_words(run_folder)
    if any(os.strerror(code) in said for code in SPACE_ERRNOS):
        return StorageProblem(f"{run_folder.name} stopped: {said}")
    try:
        free = shutil.disk_usage(run_folder).free
    except OSError:
        return None
    if free < LOW_SPACE_BYTES:
        return StorageProblem(f"{free:,} bytes left on its file system")
    return None
