"""In a git workspace, the person's untracked and ignored files survive a run that overwrites
them, and its reset (issue 22, item 8).

Git holds no copy of either: the model overwrote both with nothing kept, the untracked one was
committed on the run's branch, and the checkout of ``reset`` then deleted it from the folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.loop.engine import EXIT_SUCCESS
from orch_tui.core.loop.restore import restore
from orch_tui.core.runlog.layout import ORIGINALS
from orch_tui.core.workspace.run_workspace import original_text
from orch_tui.tui.cli.commands import main
from tests.core.workspace import test_existing_project as existing
from tests.core.workspace.test_existing_project import BAD, TEST, git, make_engine
from tests.support.scripting import attempt, create, replace

project = pytest.fixture(existing.project.__wrapped__)  # type: ignore[attr-defined]
repo = pytest.fixture(existing.repo.__wrapped__)  # type: ignore[attr-defined]

NOTES = "my own untracked notes\n"  # the repo fixture's untracked file
LOCAL = "token = mine\n"


@pytest.fixture(autouse=True)
def _no_plugin_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


@pytest.fixture
def with_ignored(repo: Path) -> Path:
    (repo / ".gitignore").write_text("local.cfg\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "--quiet", "-m", "ignore local.cfg")
    (repo / "local.cfg").write_text(LOCAL)
    return repo


def overwriting_attempts() -> list:
    """The model overwrites the person's untracked notes and ignored config, then fixes add."""
    return [
        attempt(
            create("calc.py", BAD),
            create("tests/test_calc.py", TEST),
            create("notes.txt", "the model's notes\n"),
            create("local.cfg", "token = the model's\n"),
            text="Add calc.",
        ),
        attempt(replace("calc.py", "a - b", "a + b"), text="Fix the sign of add."),
    ]


def test_reset_gives_back_the_untracked_and_ignored_files_the_model_overwrote(
    project: Path, with_ignored: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = with_ignored
    engine = make_engine(project, repo, overwriting_attempts())
    assert engine.run() == EXIT_SUCCESS
    assert (repo / "notes.txt").read_text() == "the model's notes\n"  # the attack took place
    kept = project / "logs" / engine.state.run_id / ORIGINALS / "files"
    assert (kept / "notes.txt").read_text() == NOTES
    assert (kept / "local.cfg").read_text() == LOCAL
    assert not (kept / "README.md").exists()  # tracked: the start commit holds it
    (project / "orchestrator.toml").write_text("")

    assert main(["reset", "--yes", "--config", str(project / "orchestrator.toml")]) == 0

    said = capsys.readouterr().out
    assert "checked out main" in said and "restored 2 changed files" in said
    assert git(repo, "branch", "--show-current") == "main"
    assert (repo / "notes.txt").read_text() == NOTES
    assert (repo / "local.cfg").read_text() == LOCAL
    assert not (repo / "calc.py").exists()  # the run's own work stays on its branch


def test_restore_to_an_attempt_in_git_knows_the_persons_untracked_original(
    project: Path, with_ignored: Path
) -> None:
    """What a file was before the run comes from the kept copy, not from the start commit
    (which never held it)."""
    repo = with_ignored
    engine = make_engine(project, repo, overwriting_attempts())
    assert engine.run() == EXIT_SUCCESS
    log_dir = project / "logs" / engine.state.run_id
    restore(engine.state, log_dir, repo, 0)
    assert (repo / "notes.txt").read_text() == "the model's notes\n"  # attempt 0's result
    assert engine.state.workspace is not None
    assert original_text(engine.state.workspace, log_dir, "notes.txt") == NOTES
    assert original_text(engine.state.workspace, log_dir, "local.cfg") == LOCAL
    assert original_text(engine.state.workspace, log_dir, "README.md") == "# calc\n"


def test_continue_refuses_to_carry_uncommitted_work_onto_the_runs_branch(
    project: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 22, item 9: after a stopped run the person goes back to main and edits a tracked
    file; ``--continue`` checked the run's branch out over it, carrying the edit along (the
    run then tested it and committed it as its own). Now: exit 1, nothing moved."""
    engine = make_engine(project, repo, overwriting_attempts()[:1])
    engine.run()  # attempt 0 fails its test; the script has no attempt 1: the run stops
    saved = (project / "state.json").read_text()
    git(repo, "checkout", "--quiet", "main")
    (repo / "README.md").write_text("# calc, my edit on main\n")
    (project / "orchestrator.toml").write_text("")
    script = project / "script.json"
    script.write_text('{"attempts": []}')

    code = main(
        [
            str(project / "spec.md"), "--auto", "--continue", "--workspace", str(repo),
            "--config", str(project / "orchestrator.toml"),
            "--provider", "scripted", "--script", str(script),
        ]
    )  # fmt: skip

    err = capsys.readouterr().err
    assert code == 1, err
    assert "uncommitted changes on main (README.md)" in err and "git stash" in err
    assert "Traceback" not in err
    assert git(repo, "branch", "--show-current") == "main"
    assert (repo / "README.md").read_text() == "# calc, my edit on main\n"
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == "M README.md"
    assert (project / "state.json").read_text() == saved
