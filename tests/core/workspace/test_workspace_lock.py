"""Two project folders naming one ``--workspace`` cannot run at once (issue 22, item 14)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from orch_tui.core.workspace.lock import ProjectLock, ProjectLocked
from orch_tui.tui.cli.commands import main

HOLD = """\
import sys
from pathlib import Path
from orch_tui.core.workspace.lock import ProjectLock

ProjectLock(Path(sys.argv[1]), Path(sys.argv[2])).acquire()
print("locked", flush=True)
sys.stdin.read()
"""


@contextmanager
def held_by_another_process(root: Path, workspace: Path) -> Iterator[int]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(root), str(workspace)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        yield holder.pid
    finally:
        holder.communicate("")


def project(folder: Path) -> Path:
    folder.mkdir()
    (folder / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    (folder / "orchestrator.toml").write_text("")
    (folder / "script.json").write_text(json.dumps({"attempts": []}))
    return folder


def test_a_second_project_on_a_locked_workspace_exits_1_naming_the_holder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = project(tmp_path / "a"), project(tmp_path / "b")
    workspace = tmp_path / "app"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("mine\n")

    with held_by_another_process(first, workspace) as pid:
        code = main(
            [
                str(second / "spec.md"),
                "--auto",
                f"--workspace={workspace}",
                f"--config={second / 'orchestrator.toml'}",
                "--provider=scripted",
                f"--script={second / 'script.json'}",
            ]
        )

    err = capsys.readouterr().err
    assert code == 1
    assert f"pid {pid}" in err and str(workspace) in err and "Traceback" not in err
    assert not (second / "state.json").exists()
    assert sorted(p.name for p in workspace.iterdir()) == ["notes.txt"]


def test_the_workspace_lock_is_released_with_the_project_lock(tmp_path: Path) -> None:
    first, second = project(tmp_path / "a"), project(tmp_path / "b")
    workspace = tmp_path / "app"
    workspace.mkdir()
    lock = ProjectLock(first, workspace)
    lock.acquire()
    with pytest.raises(ProjectLocked):
        ProjectLock(second, workspace).acquire()
    own = ProjectLock(second)  # its own project folder is free: only the workspace is held
    own.acquire()
    own.release()

    lock.release()

    again = ProjectLock(second, workspace)
    again.acquire()
    again.release()


TAKE_LOCK_ONLY = """\
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
print("locked", flush=True)
sys.stdin.read()
"""


def test_a_run_that_has_not_written_its_pid_yet_is_named_all_the_same(tmp_path: Path) -> None:
    """Two runs starting together: the first holds the flock on ``orch.lock`` but has not
    written its pid in it yet. The second's refusal names that pid, never "pid unknown"."""
    holder = subprocess.Popen(
        [sys.executable, "-c", TAKE_LOCK_ONLY, str(tmp_path / "orch.lock")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        assert (tmp_path / "orch.lock").read_text() == ""
        with pytest.raises(ProjectLocked) as refused:
            ProjectLock(tmp_path).acquire()
    finally:
        holder.communicate("")
    assert f"another orch-tui run (pid {holder.pid}) is working in {tmp_path}" in str(refused.value)
