"""Nothing left in the person's folders that they did not ask for (issue 25, item 8).

Read-only commands and ``reset`` in an empty folder leave no ``orch.lock`` or ``orch-running/``;
a run that ends cleanly removes its lock file; ``--fresh`` keeps a tracked ``.gitkeep`` and the
project's ``AGENTS.md`` where they are.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from orch_tui.core.checks import leftovers
from orch_tui.core.workspace import lock as lock_module
from orch_tui.core.workspace.lock import LOCK_NAME, ProjectLock, ProjectLocked
from tests.support.e2e_support import (
    FAST_CONFIG,
    assert_clean_exit,
    attempt_turns,
    child_env,
    orch_tui,
    write_attempts_script,
)

SPEC = "# tiny\n\nA module `app.py` with `def one(): return 1`.\n"
APP = "def one():\n    return 1\n"
TEST = "from app import one\n\n\ndef test_one():\n    assert one() == 1\n"


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [orch_tui(), *args],
        cwd=cwd,
        env=child_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=90,
    )


@pytest.mark.parametrize(
    "command",
    [("status",), ("history",), ("history", "--costs"), ("reset", "--yes"), ("doctor",)],
)
def test_commands_in_an_empty_folder_leave_it_empty(tmp_path: Path, command: tuple[str]) -> None:
    run(tmp_path, *command)

    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_released_lock_removes_its_file_and_the_next_lock_works(tmp_path: Path) -> None:
    lock = ProjectLock(tmp_path)
    lock.acquire()
    assert (tmp_path / LOCK_NAME).read_text() != ""

    lock.release()

    assert not (tmp_path / LOCK_NAME).exists()
    again = ProjectLock(tmp_path)
    again.acquire()
    assert (tmp_path / LOCK_NAME).exists()
    again.release()


def test_a_lock_taken_on_the_removed_file_does_not_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run may open ``orch.lock`` just before the holder removes it and lock the removed
    file: that lock must not count while another run holds the new file."""
    first = ProjectLock(tmp_path)
    first.acquire()
    stale = os.open(tmp_path / LOCK_NAME, os.O_RDWR)  # opened while the first run held it
    first.release()
    second = ProjectLock(tmp_path)
    second.acquire()  # a new file, locked
    real_open, opened = os.open, []

    def open_stale_first(path: object, flags: int, mode: int = 0o777) -> int:
        opened.append(path)
        return stale if len(opened) == 1 else real_open(path, flags, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(lock_module.os, "open", open_stale_first)

    with pytest.raises(ProjectLocked):
        ProjectLock(tmp_path).acquire()
    second.release()


def test_a_check_record_leaves_no_running_folder(tmp_path: Path) -> None:
    folder = tmp_path / leftovers.RUNNING_DIR
    with leftovers.recorded(folder, 4_000_000):
        assert [p.name for p in folder.iterdir()] == ["4000000.json"]

    assert not folder.exists()


def test_a_start_after_a_kill_clears_the_running_folder(tmp_path: Path) -> None:
    folder = tmp_path / leftovers.RUNNING_DIR
    folder.mkdir()
    (folder / "4000000.json").write_text("")  # killed between creating and writing it

    leftovers.clear(tmp_path, tmp_path / "workspace")

    assert not folder.exists()


def test_a_clean_run_leaves_no_lock_and_fresh_keeps_gitkeep_and_agents(tmp_path: Path) -> None:
    (tmp_path / "spec.md").write_text(SPEC)
    (tmp_path / "orchestrator.toml").write_text(FAST_CONFIG)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / ".gitkeep").write_text("")
    (workspace / "AGENTS.md").write_text("Use four spaces.\n")
    turns = attempt_turns("Writing.", [("create", "app.py", APP), ("create", "test_app.py", TEST)])
    script = write_attempts_script(tmp_path / "script.json", [turns])
    options = ("spec.md", "--auto", "--provider", "scripted", "--script", str(script))

    assert_clean_exit(run(tmp_path, *options), 0)
    assert not (tmp_path / LOCK_NAME).exists()
    assert not (tmp_path / leftovers.RUNNING_DIR).exists()

    assert_clean_exit(run(tmp_path, *options, "--fresh"), 0)

    assert (workspace / ".gitkeep").exists()
    assert (workspace / "AGENTS.md").read_text() == "Use four spaces.\n"
    set_aside = [p for p in (tmp_path / "logs").glob("*/workspace")]
    assert len(set_aside) == 1
    assert sorted(p.name for p in set_aside[0].iterdir()) == ["app.py", "test_app.py"]
