"""Running one untrusted command to its end: its process group, its output, its deadline.

The command runs in its own session, hence its own process group: when it exits, on a timeout
and on a Ctrl+C, the whole group gets SIGKILL, so a forked child that keeps the output pipe
open can neither outlive it nor hang us. Its output is captured with a cap (the head and the
tail are kept, the middle is counted) and streamed live to a callback. While it runs, its
process group is recorded on disk (``leftovers``) and in :data:`_RUNNING`, so neither a kill -9
of orch-tui nor the TUI quitting mid-test leaves it running.
"""

from __future__ import annotations

import codecs
import math
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from orch_tui.core.checks.leftovers import recorded
from orch_tui.core.util.records import record

_READ_CHUNK = 65536
_POLL_S = 0.05
# How long the output is still read after the process group was killed; bounds the wait when
# a process that left the group (setsid) keeps the pipe open.
_DRAIN_S = 2.0


@record(frozen=True)
class Finished:
    """How a process ended: its exit code (negative: killed by that signal), whether it ran
    out of time, how long it ran, its capped output and the bytes dropped from its middle."""

    exit_code: int
    timed_out: bool
    duration_s: float
    output: str
    dropped_bytes: int


@record(frozen=True)
class Launch:
    """What to start and how: argv, working folder, environment, the ``preexec_fn`` (a
    parent-death signal) and the thread name of its output reader."""

    argv: Sequence[str]
    cwd: Path
    env: dict[str, str]
    preexec: Callable[[], None]
    name: str


def run_process(
    launch: Launch,
    *,
    timeout_s: float,
    max_output_bytes: int,
    on_output: Callable[[str], None] | None = None,
    running: Path | None = None,
) -> Finished:
    """Run ``launch`` to its end or its deadline, its whole process group killed after.

    Raises ``OSError`` (``FileNotFoundError``, ``PermissionError``...) when it cannot start.
    A ``KeyboardInterrupt`` while waiting kills the process group before it propagates.
    """
    started = time.monotonic()
    process = subprocess.Popen(
        list(launch.argv),
        cwd=launch.cwd,
        env=launch.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        shell=False,
        start_new_session=True,
        preexec_fn=launch.preexec,
    )
    _RUNNING.add(process.pid)
    capture = _OutputCapture(max_output_bytes, on_output)
    assert process.stdout is not None
    reader = threading.Thread(
        target=capture.read_until_eof,
        args=(process.stdout.fileno(),),
        name=f"check-output-{launch.name}",
        daemon=True,
    )
    reader.start()
    try:
        with recorded(running, process.pid):
            try:
                exited = _wait_for_exit(process, started + timeout_s)
            finally:
                # The main process has exited (still a zombie, so its pid names the group) or
                # it is being given up on: either way nothing of the group may live on.
                _kill_group(process.pid)
    finally:
        _RUNNING.discard(process.pid)
        process.wait()
        capture.stop(drain_s=_DRAIN_S)
        reader.join()
        process.stdout.close()
    output, dropped = capture.text()
    return Finished(process.returncode, not exited, time.monotonic() - started, output, dropped)


def _wait_for_exit(process: subprocess.Popen[bytes], deadline: float) -> bool:
    """Wait until the process exits or the deadline passes; True if it exited.

    The process is left a zombie (``WNOWAIT``; a pidfd does not reap it either), so its pid,
    and so its process group id, cannot be reused by an unrelated process before the group
    is killed. A pidfd (Linux 5.3 and later) wakes this wait the moment the process exits;
    polling, where there is none, notices an exit up to :data:`_POLL_S` late, a lag that
    would be in every check's time.
    """
    try:
        pidfd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):  # not Linux, or a kernel or seccomp policy without it
        return _poll_for_exit(process, deadline)
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return bool(poller.poll(0))
            # In slices, so that a signal handled for the main thread (Ctrl+C, SIGTERM) runs
            # within one even when another thread took the signal.
            if poller.poll(math.ceil(min(remaining, _POLL_S) * 1000)):
                return True
    finally:
        os.close(pidfd)


def _poll_for_exit(process: subprocess.Popen[bytes], deadline: float) -> bool:
    """:func:`_wait_for_exit` without a pidfd: ask every few milliseconds, then every
    :data:`_POLL_S`."""
    delay = 0.001
    while True:
        if _has_exited(process):
            return True
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, _POLL_S)


def _has_exited(process: subprocess.Popen[bytes]) -> bool:
    """Whether ``process`` exited: left unreaped with ``waitid`` (Linux, and macOS from Python
    3.13); reaped by ``poll`` where there is no ``waitid``. Reaped, the leader's pid may name
    a new process before the group is killed, but not while a member of the group lives on
    (POSIX reuses no pid that is still a process group's id), so the kill still reaches them."""
    waitid = getattr(os, "waitid", None)
    if waitid is None:
        return process.poll() is not None
    return waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


# Process groups of checks running right now, so a process that must leave at once
# (the TUI quitting mid-test) can take them down with it.
_RUNNING: set[int] = set()


def kill_running_checks() -> None:
    """Kill the process group of every check still running (from any thread)."""
    for pgid in list(_RUNNING):
        _kill_group(pgid)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # nothing left in the group (PermissionError: macOS, for a group of zombies)


class _OutputCapture:
    """Collects a process's output from a pipe: the first and last bytes, and how many were
    dropped in between; forwards decoded text to a live callback."""

    def __init__(self, max_bytes: int, on_output: Callable[[str], None] | None) -> None:
        self._head_cap = max_bytes // 2
        self._tail_cap = max_bytes - self._head_cap
        self._stream_cap = max_bytes
        self._head = bytearray()
        self._tail = bytearray()
        self._total = 0
        self._streamed = 0
        self._stream_ended = False
        self._on_output = on_output
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._stopping = threading.Event()
        self._drain_deadline = 0.0

    def read_until_eof(self, fd: int) -> None:
        """Reader thread: read until end of file, or until told to stop and nothing is left."""
        poller = select.poll()  # not select.select: it fails on descriptors above 1023
        poller.register(fd, select.POLLIN)
        while True:
            ready = poller.poll(_POLL_S * 1000)
            if ready:
                data = os.read(fd, _READ_CHUNK)
                if not data:
                    return
                self._keep(data)
                self._stream(data)
            if self._stopping.is_set() and (not ready or time.monotonic() > self._drain_deadline):
                return

    def stop(self, drain_s: float) -> None:
        self._drain_deadline = time.monotonic() + drain_s
        self._stopping.set()

    def text(self) -> tuple[str, int]:
        """The kept output and the number of bytes dropped from its middle."""
        dropped = self._total - len(self._head) - len(self._tail)
        if not dropped:
            return (self._head + self._tail).decode("utf-8", errors="replace"), 0
        head = self._head.decode("utf-8", errors="replace")
        tail = self._tail.decode("utf-8", errors="replace")
        return f"{head}\n[... {dropped} bytes dropped ...]\n{tail}", dropped

    def _keep(self, data: bytes) -> None:
        self._total += len(data)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._tail += data
            excess = len(self._tail) - self._tail_cap
            if excess > 0:
                del self._tail[:excess]

    def _stream(self, data: bytes) -> None:
        if self._on_output is None or self._stream_ended:
            return
        room = self._stream_cap - self._streamed
        text = self._decoder.decode(data[:room])
        self._streamed += min(len(data), room)
        if len(data) > room:
            text += f"\n[... output beyond {self._stream_cap} bytes is not shown live ...]\n"
            self._stream_ended = True
        try:
            if text:
                self._on_output(text)
        except Exception:
            # A broken display must not stop the draining of the pipe (the check would block on
            # a full pipe and time out); the output is still captured.
            import logging  # here: a run's start does without it (issue 26, item 6)

            logging.getLogger(__name__).exception(
                "live output callback failed; no more output is shown live"
            )
            self._on_output = None
