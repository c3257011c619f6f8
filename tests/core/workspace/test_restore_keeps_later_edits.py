"""``restore K`` never silently overwrites the person's later edits (issue 22, item 12): outside
git it keeps a copy the message names, in git it refuses a dirty tree, naming the files."""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.loop.engine import EXIT_SUCCESS
from orch_tui.tui.cli.commands import main
from tests.core.loop.test_engine import BAD
from tests.core.workspace import test_existing_project as existing
from tests.core.workspace.test_existing_project import bad_then_good, git, make_engine

project = pytest.fixture(existing.project.__wrapped__)  # type: ignore[attr-defined]
repo = pytest.fixture(existing.repo.__wrapped__)  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _no_plugin_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


MINE = "def add(a, b):\n    return a + b  # my own fix, made after the run\n"


def restore(project: Path, attempt: str) -> int:
    (project / "orchestrator.toml").write_text("")
    return main(["restore", attempt, "--config", str(project / "orchestrator.toml")])


@pytest.mark.parametrize("where", ["a plain folder", "the default workspace"])
def test_a_later_edit_is_kept_in_a_copy_the_message_names(
    project: Path, tmp_path: Path, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if where == "a plain folder":
        folder = tmp_path / "plain"
        folder.mkdir()
        engine = make_engine(project, folder, bad_then_good())
    else:
        folder = project / "workspace"
        engine = make_engine(project, folder, bad_then_good())
    assert engine.run() == EXIT_SUCCESS
    (folder / "calc.py").write_text(MINE)
    (folder / "tests" / "test_calc.py").unlink()  # removed by the person: nothing to keep

    assert restore(project, "0") == 0

    out = capsys.readouterr().out
    kept = project / "logs" / engine.state.run_id / "restores" / "kept-01"
    assert f"your later edits to calc.py were kept in {kept}" in out
    assert (kept / "calc.py").read_text() == MINE
    assert (folder / "calc.py").read_text() == BAD


def test_an_unedited_workspace_keeps_no_copies(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    engine = make_engine(project, folder, bad_then_good())
    assert engine.run() == EXIT_SUCCESS

    assert restore(project, "0") == 0

    assert "later edits" not in capsys.readouterr().out
    assert not (project / "logs" / engine.state.run_id / "restores" / "kept-01").exists()


@pytest.mark.parametrize("staged", [False, True], ids=["edited", "edited and staged"])
def test_in_git_a_restore_refuses_a_dirty_tree_naming_the_files(
    project: Path, repo: Path, staged: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = make_engine(project, repo, bad_then_good())
    assert engine.run() == EXIT_SUCCESS
    head = git(repo, "rev-parse", "HEAD")
    (repo / "calc.py").write_text(MINE)
    if staged:
        git(repo, "add", "calc.py")

    assert restore(project, "0") == 1

    err = capsys.readouterr().err
    assert "(calc.py)" in err and "git stash" in err and "Traceback" not in err
    assert (repo / "calc.py").read_text() == MINE
    assert git(repo, "rev-parse", "HEAD") == head
    assert not list((project / "logs" / engine.state.run_id).glob("restores/restore-*.json"))
