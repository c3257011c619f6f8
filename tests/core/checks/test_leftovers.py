"""What a kill -9 leaves in the project folder is cleared at the next start."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from orch_tui.core.checks import leftovers
from orch_tui.core.runlog.writer import RunLog

OURS = ".state.json.k3v_9x2a.tmp"
"""A temp file as ``write_bytes_atomic`` names it (mkstemp's 8 characters)."""
NOT_OURS = ("notes.tmp", ".state.json.tmp", ".x.too-long-token.tmp", "state.json")


def seed(folder: Path, names: tuple[str, ...]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text("x", encoding="utf-8")


def test_a_start_removes_our_temp_files_from_the_project_and_logs_only(tmp_path: Path) -> None:
    seed(tmp_path, (OURS, *NOT_OURS))
    seed(tmp_path / "logs", (".index.json.abcdefgh.tmp",))
    seed(tmp_path / "workspace", (".app.py.abcdefgh.tmp",))  # the person's files: never touched

    leftovers.clear(tmp_path, tmp_path / "workspace")

    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == sorted(NOT_OURS)
    assert list((tmp_path / "logs").iterdir()) == []
    assert [p.name for p in (tmp_path / "workspace").iterdir()] == [".app.py.abcdefgh.tmp"]


def test_opening_a_run_log_removes_the_temp_files_a_kill_left_in_it(tmp_path: Path) -> None:
    run = tmp_path / "logs" / "run-1"
    seed(run, (".run.json.abcdefgh.tmp", "run.json"))
    seed(run / "attempt-00", (".proposal.json.q1w2e3r4.tmp", "proposal.json"))
    seed(run / "originals", (".manifest.json.zzzzzzzz.tmp",))

    RunLog(tmp_path / "logs", "run-1").clear_after_kill()

    remaining = sorted(str(p.relative_to(run)) for p in run.rglob("*") if p.is_file())
    assert remaining == ["attempt-00/proposal.json", "run.json"]


def test_the_sweep_knows_the_names_mkstemp_gives(tmp_path: Path) -> None:
    """Temp files as ``write_bytes_atomic`` makes them (``mkstemp``'s random part) are found."""
    for _ in range(20):
        fd, _name = tempfile.mkstemp(prefix=".state.json.", suffix=".tmp", dir=tmp_path)
        os.close(fd)

    leftovers.clear(tmp_path, tmp_path / "workspace")

    assert list(tmp_path.iterdir()) == []


def test_a_start_removes_this_workspaces_trial_copies_from_every_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tempfile`` makes a trial copy in the first of $TMPDIR, $TEMP, $TMP, /tmp, /var/tmp it
    can write in, and the first may have changed since; the sweep looks in every one of them
    without importing ``tempfile`` (issue 26), and leaves another workspace's copies."""
    workspace = tmp_path / "workspace"
    prefix = leftovers.trial_prefix(workspace)
    named = {name: tmp_path / name.lower() for name in ("TMPDIR", "TEMP", "TMP")}
    for name, folder in named.items():
        monkeypatch.setenv(name, str(folder))
    copies = [folder / f"{prefix}a1b2c3" for folder in named.values()]
    copies.append(Path("/tmp") / f"{prefix}d4e5f6")  # where tempfile went without $TMPDIR
    others = [folder / f"{leftovers.trial_prefix(tmp_path)}a1b2c3" for folder in named.values()]
    try:
        for copy in [*copies, *others]:
            (copy / "workspace").mkdir(parents=True)
            (copy / "workspace" / "app.py").write_text("x = 1\n", encoding="utf-8")

        leftovers.clear(tmp_path, workspace)

        assert [copy for copy in copies if copy.exists()] == []
        assert all(other.is_dir() for other in others)
    finally:
        shutil.rmtree(copies[-1], ignore_errors=True)
