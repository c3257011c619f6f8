"""A reset that cannot put a git workspace back changes nothing, keeps state.json and exits 1
(issue 22, item 9): a checkout git refuses, a repository that had no commits."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from orch_tui.core.domain.state import StateStore
from orch_tui.core.loop.engine import EXIT_SUCCESS
from orch_tui.tui.cli.commands import main
from tests.core.workspace import test_existing_project as existing
from tests.core.workspace.test_existing_project import bad_then_good, git, make_engine

project = pytest.fixture(existing.project.__wrapped__)  # type: ignore[attr-defined]
repo = pytest.fixture(existing.repo.__wrapped__)  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _no_plugin_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def reset(project: Path) -> int:
    (project / "orchestrator.toml").write_text("")
    return main(["reset", "--yes", "--config", str(project / "orchestrator.toml")])


def test_a_failed_checkout_keeps_state_json_and_exits_1(
    project: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = make_engine(project, repo, bad_then_good())
    assert engine.run() == EXIT_SUCCESS
    branch = f"orch/{engine.state.run_id}"
    (repo / "README.md").write_text("# mine, uncommitted\n")  # the run changed calc.py only
    git(repo, "checkout", "--quiet", "main")  # README.md's edit comes along: a conflict below
    git(repo, "checkout", "--quiet", branch)
    (repo / "calc.py").write_text("def add(a, b):\n    return 0  # mine\n")
    state_before = (project / "state.json").read_text()

    code = reset(project)

    err = capsys.readouterr().err
    assert code == 1
    assert "cannot check out main" in err and "state.json is kept" in err
    assert "Traceback" not in err
    assert (project / "state.json").read_text() == state_before
    assert git(repo, "branch", "--show-current") == branch
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return 0  # mine\n"


def test_a_repository_without_commits_is_left_alone_with_a_clear_message(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "fresh"
    folder.mkdir()
    subprocess.run(["git", "init", "--quiet", "-b", "main", str(folder)], check=True)
    (folder / "notes.txt").write_text("mine\n")
    engine = make_engine(project, folder, bad_then_good(), allow_dirty=True)
    engine.run()
    record = engine.state.workspace
    assert record is not None and record.git is not None
    record.git.start_branch = None  # as recorded before the first commit existed
    record.git.start_commit = None
    StateStore(project / "state.json").save(engine.state)

    code = reset(project)

    err = capsys.readouterr().err
    assert code == 1
    assert "no commit to return to" in err and "Traceback" not in err
    assert (project / "state.json").exists()
    assert (folder / "notes.txt").read_text() == "mine\n"
