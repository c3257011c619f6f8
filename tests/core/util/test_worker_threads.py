"""The fsyncs' pool: threads reused, started only when none is idle, an error handed back."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from orch_tui.core.util.worker_threads import WorkerThreads


def _fsync_threads() -> set[str]:
    return {t.name for t in threading.enumerate() if t.name.startswith("test-pool-")}


def test_calls_one_after_another_reuse_one_thread() -> None:
    pool = WorkerThreads(8, "test-pool-a")
    seen = set()
    for _ in range(20):
        pool.submit(lambda: seen.add(threading.get_ident())).wait()
    assert len(seen) == 1
    assert _fsync_threads() == {"test-pool-a-1"}


def test_calls_waiting_together_get_threads_up_to_the_limit() -> None:
    pool = WorkerThreads(3, "test-pool-b")
    release = threading.Event()
    seen: set[int] = set()

    def held() -> None:
        seen.add(threading.get_ident())
        release.wait(10)

    outcomes = [pool.submit(held) for _ in range(5)]
    release.set()
    for outcome in outcomes:
        outcome.wait()
    assert len(seen) == 3
    assert {n for n in _fsync_threads() if n.startswith("test-pool-b")} == {
        "test-pool-b-1",
        "test-pool-b-2",
        "test-pool-b-3",
    }


def test_a_calls_error_is_raised_to_whoever_waits_and_the_thread_goes_on() -> None:
    pool = WorkerThreads(1, "test-pool-c")

    def broken(path: str, *, folder: bool) -> None:
        raise OSError(28, f"no space left ({path}, {folder})")

    with pytest.raises(OSError, match=r"no space left \(x, True\)"):
        pool.submit(broken, "x", folder=True).wait()
    done: list[int] = []
    pool.submit(done.append, 1).wait()
    assert done == [1]


EXIT_PROBE = """
import os, sys, time
from pathlib import Path
from orch_tui.core.util import atomic

real_fsync = os.fsync
marker = Path(sys.argv[1]) / "synced"

def slow_fsync(fd):
    if os.readlink(f"/proc/self/fd/{fd}") == sys.argv[1]:
        time.sleep(0.3)
        marker.write_text("the folder's fsync ran")
    real_fsync(fd)

os.fsync = slow_fsync
atomic.Commit(settle_later=True).commit(Path(sys.argv[1]) / "state.json", b"{}\\n")
print("committed", marker.exists())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fd")
def test_a_background_folder_fsync_is_waited_for_when_the_interpreter_exits(
    tmp_path: Path,
) -> None:
    """The pool's threads are daemons: the interpreter's exit waits for a state's folder fsync
    left in the background (as concurrent.futures' pool did) instead of cutting it off."""
    folder = os.path.realpath(tmp_path)
    result = subprocess.run(
        [sys.executable, "-c", EXIT_PROBE, folder], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["committed", "False"]  # it was still in the background
    assert (tmp_path / "synced").read_text() == "the folder's fsync ran"
