"""One run per project folder, and one per workspace: OS file locks (DESIGN section 13).

Two runs in one folder would both edit the workspace and the state file. The lock is an
``flock`` on ``orch.lock`` in the project root, held for the life of the run; the kernel drops
it when the process dies, however it dies, so a crashed run never leaves the folder locked.
The holder's pid is written in the file so a second run can say who holds it; in the moment
between taking the lock and writing it, the pid comes from the kernel's table of locks. ``status`` and
``history`` only read, and take no lock. A clean end removes the file (still holding the lock);
a run that had opened the old file before that finds its lock on a removed file and tries again,
so two runs never hold locks on two different files.

Two project folders can name one ``--workspace``: the workspace folder itself is locked too,
with an ``flock`` on the folder (nothing is written into the person's folder); the holder's
pid comes from the kernel's table of locks, ``/proc/locks``.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_NAME = "orch.lock"
PROC_LOCKS = Path("/proc/locks")


class ProjectLocked(Exception):
    """Another process holds the project's lock; the message names its pid."""


class ProjectLock:
    """The exclusive lock on a project folder (and on its workspace, when one is named):
    :meth:`acquire`, then :meth:`release`."""

    def __init__(self, root: Path, workspace: Path | None = None) -> None:
        self.path = root / LOCK_NAME
        self.workspace = workspace
        self._fd: int | None = None
        self._workspace_fd: int | None = None

    def acquire(self) -> None:
        """Take the lock at once or raise :class:`ProjectLocked`; never waits."""
        fd = self._lock_current_file()
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        self._fd = fd
        if self.workspace is not None:
            try:
                self._workspace_fd = lock_folder(self.workspace)
            except BaseException:
                self.release()
                raise

    def _lock_current_file(self) -> int:
        """A descriptor holding the flock on the file now at :attr:`path`."""
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _project_lock_holder(fd)
                os.close(fd)
                raise ProjectLocked(
                    f"another orch-tui run (pid {holder}) is working in {self.path.parent}; "
                    f"wait for it to finish or stop it first"
                ) from None
            if _same_file(fd, self.path):
                return fd
            os.close(fd)  # the holder removed it as it ended: lock the new file

    def release(self) -> None:
        """Drop the locks and remove ``orch.lock`` (removed while still held: see the module)."""
        if self._workspace_fd is not None:
            os.close(self._workspace_fd)
            self._workspace_fd = None
        if self._fd is not None:
            try:
                self.path.unlink(missing_ok=True)
            except OSError:
                pass  # a read-only folder keeps the file; the kernel still drops the lock
            os.close(self._fd)  # closing the last descriptor drops the flock
            self._fd = None


def _project_lock_holder(fd: int) -> str:
    """The pid holding the flock on ``orch.lock`` (open as ``fd``). A run that has just taken
    the lock has not written its pid yet when two start together; the kernel's table of locks
    names it all the same."""
    written = os.read(fd, 32).decode("ascii", errors="replace").strip()
    if written.isdigit():
        return written
    holder = flock_holder(fd)
    return str(holder) if holder is not None else "unknown"


def project_lock_holder(root: Path) -> int | None:
    """The pid of the run working in the project ``root`` now; None when none is. Only
    reads: nothing is locked or written."""
    try:
        fd = os.open(root / LOCK_NAME, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return flock_holder(fd)
    finally:
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        on_disk = os.stat(path)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (held.st_dev, held.st_ino) == (on_disk.st_dev, on_disk.st_ino)


def lock_folder(folder: Path) -> int | None:
    """Lock ``folder`` itself (an flock on the folder); the descriptor holding the lock, or None
    when the folder does not exist yet (the default workspace, made by the run: the project's
    lock covers it). :class:`ProjectLocked` naming the holder's pid when another holds it."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = flock_holder(fd)
        os.close(fd)
        raise ProjectLocked(
            f"another orch-tui run (pid {holder or 'unknown'}) is working in the workspace "
            f"{folder}, from another project folder; wait for it to finish or stop it first"
        ) from None
    return fd


def flock_holder(fd: int) -> int | None:
    """The pid holding an flock on the file ``fd`` is open on, from ``/proc/locks``."""
    st = os.fstat(fd)
    device = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    try:
        lines = PROC_LOCKS.read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return None
    by_inode: int | None = None
    for line in lines:
        fields = line.split()
        if "->" in fields or len(fields) < 6 or fields[1] != "FLOCK":
            continue  # a waiter, or a lock of another kind
        pid, where = fields[4], fields[5]
        if not pid.isdigit():
            continue
        if where == device:
            return int(pid)
        if where.rsplit(":", 1)[-1] == str(st.st_ino):
            by_inode = int(pid)  # overlay file systems report another device number
    return by_inode
