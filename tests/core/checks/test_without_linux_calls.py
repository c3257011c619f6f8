"""Without the sandbox on any POSIX system: no Linux-only call on a path that runs where it
does not exist (issue 25, item 2). Each of ``prctl``, ``pidfd_open``, ``waitid`` and ``/proc``
is made unavailable here, as on macOS, and a check still runs, ends with its own exit code and
takes its process group down with it."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from orch_tui.core.checks import leftovers, process_guard
from orch_tui.core.checks.processes import Launch, run_process
from orch_tui.core.workspace import lock
from orch_tui.core.workspace.lock import ProjectLock, ProjectLocked

CHILD_THEN_EXIT_3 = """\
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print(child.pid, flush=True)
sys.exit(3)
"""


@pytest.fixture
def no_linux_calls(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delattr(os, "pidfd_open", raising=False)
    monkeypatch.delattr(os, "waitid", raising=False)
    monkeypatch.setattr(process_guard, "_PRCTL", None)
    monkeypatch.setattr(leftovers, "PROC", tmp_path / "no-proc")
    monkeypatch.setattr(lock, "PROC_LOCKS", tmp_path / "no-proc" / "locks")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.usefixtures("no_linux_calls")
def test_a_check_ends_with_its_own_code_and_its_group_is_killed(tmp_path: Path) -> None:
    launch = Launch(
        argv=[sys.executable, "-c", CHILD_THEN_EXIT_3],
        cwd=tmp_path,
        env=dict(os.environ),
        preexec=process_guard.die_with_parent,
        name="t",
    )
    finished = run_process(
        launch, timeout_s=60, max_output_bytes=10_000, running=tmp_path / "running"
    )

    assert finished.exit_code == 3 and not finished.timed_out
    child = int(finished.output.split()[0])
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)
    assert not (tmp_path / "running").exists()


@pytest.mark.usefixtures("no_linux_calls")
def test_a_timeout_is_still_seen_without_pidfd_or_waitid(tmp_path: Path) -> None:
    launch = Launch(
        argv=[sys.executable, "-c", "import time; time.sleep(60)"],
        cwd=tmp_path,
        env=dict(os.environ),
        preexec=process_guard.die_with_parent,
        name="t",
    )
    finished = run_process(launch, timeout_s=0.5, max_output_bytes=10_000)
    assert finished.timed_out and finished.exit_code == -signal.SIGKILL


@pytest.mark.usefixtures("no_linux_calls")
def test_hardening_and_lock_holders_say_nothing_without_prctl_or_proc(tmp_path: Path) -> None:
    assert process_guard.make_non_dumpable() is False
    assert leftovers.start_time(os.getpid()) is None
    held = ProjectLock(tmp_path, tmp_path)
    held.acquire()
    try:
        with pytest.raises(ProjectLocked, match=r"pid unknown\) is working in the workspace"):
            lock.lock_folder(tmp_path)
    finally:
        held.release()


def test_a_libc_without_prctl_loads_as_none(monkeypatch: pytest.MonkeyPatch) -> None:
    class NoPrctl:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoPrctl)
    assert process_guard._load_prctl() is None
