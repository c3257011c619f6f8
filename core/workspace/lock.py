"""One run per project folder: an OS file lock on ``orch.lock`` (DESIGN section 13).

Two runs in one folder would both edit the workspace and the state file. The lock is an
``flock`` on ``orch.lock`` in the project root, held for the life of the run; the kernel drops
it when the process dies, however it dies, so a crashed run never leaves the folder locked.
The holder's pid is written in the file so a second run can say who holds it. ``status`` and
``history`` only read, and take no lock.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_NAME = "orch.lock"


class ProjectLocked(Exception):
    """Another process holds the project's lock; the message names its pid."""


class ProjectLock:
    """The exclusive lock on a project folder: :meth:`acquire`, then :meth:`release`."""

    def __init__(self, root: Path) -> None:
        self.path = root / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock at once or raise :class:`ProjectLocked`; never waits."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode("ascii", errors="replace").strip() or "unknown"
            os.close(fd)
            raise ProjectLocked(
                f"another orch-tui run (pid {holder}) is working in {self.path.parent}; "
                f"wait for it to finish or stop it first"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor drops the flock
            self._fd = None
