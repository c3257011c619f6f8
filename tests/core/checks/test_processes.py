"""core.checks.processes: waiting for a real process without reaping it, woken by its exit."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from orch_tui.core.checks import processes


def _exited(pid: int) -> bool:
    """Whether ``pid`` has exited, leaving it unreaped."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def _sleeper(seconds: float) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({seconds})"])


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="pidfds are Linux's")
def test_the_wait_is_woken_by_the_exit_not_by_polling(monkeypatch) -> None:
    """A check's time is its process's: polling every 50 ms added up to 50 ms to each."""

    def polled(_seconds: float) -> None:
        raise AssertionError("the wait slept between polls")

    process = _sleeper(0.2)
    monkeypatch.setattr(time, "sleep", polled)
    try:
        assert processes._wait_for_exit(process, time.monotonic() + 60)
        assert _exited(process.pid)  # and still a zombie: its pid cannot be reused yet
    finally:
        process.kill()
        process.wait()


@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "polling"])
def test_the_wait_gives_up_at_the_deadline_and_sees_an_exit_either_way(
    monkeypatch, pidfd: bool
) -> None:
    if not pidfd:
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    elif not hasattr(os, "pidfd_open"):
        pytest.skip("pidfds are Linux's")
    lasting, brief = _sleeper(60), _sleeper(0)
    try:
        assert not processes._wait_for_exit(lasting, time.monotonic() + 0.2)
        assert lasting.poll() is None
        assert processes._wait_for_exit(brief, time.monotonic() + 60)
        assert _exited(brief.pid)
    finally:
        for process in (lasting, brief):
            process.kill()
            process.wait()
