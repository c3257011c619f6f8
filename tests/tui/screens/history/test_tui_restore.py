"""``R`` on an attempt in the history browser restores it, as ``orch-tui restore K`` does."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Label

from orch_tui.core.loop.engine import EXIT_SUCCESS
from orch_tui.tui.screens.dialogs import ConfirmScreen
from orch_tui.tui.screens.history.attempt import AttemptScreen
from tests.core.loop.test_engine import BAD, GOOD
from tests.core.workspace.test_existing_project import bad_then_good, commits, git, make_engine
from tests.tui.screens.history.test_history_screens import SIZE, HistoryHost, _open_run

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _no_plugin_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


async def test_r_asks_first_and_n_changes_nothing_y_restores_naming_what_it_undid(
    tmp_path: Path,
) -> None:
    project, repo = tmp_path / "orch", tmp_path / "repo"
    project.mkdir()
    repo.mkdir()
    (project / "spec.md").write_text("# calc\n")
    git(repo, "init", "--quiet", "-b", "main")
    (repo / "README.md").write_text("# calc\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "--quiet", "-m", "start")
    engine = make_engine(project, repo, bad_then_good())
    assert engine.run() == EXIT_SUCCESS
    assert (repo / "calc.py").read_text() == GOOD
    state_before = (project / "state.json").read_text()
    commits_before = commits(repo)

    app = HistoryHost(project / "logs", project / "state.json")
    async with app.run_test(size=SIZE) as pilot:
        await _open_run(pilot, app, engine.state.run_id)
        await pilot.press("enter")  # the first attempt
        await pilot.pause()
        attempt = app.screen
        assert isinstance(attempt, AttemptScreen) and attempt.attempt.number == 0
        await pilot.press("R")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        asked = str(app.screen.query_one("#confirm-message", Label).render())
        assert asked == "Restore attempt 0? This will undo 1 file from attempt 1 (calc.py)."
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is attempt
        assert (repo / "calc.py").read_text() == GOOD  # nothing changed
        assert (project / "state.json").read_text() == state_before
        assert commits(repo) == commits_before
        assert not (project / "logs" / engine.state.run_id / "restores").exists()

        await pilot.press("R")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        messages = [notification.message for notification in app._notifications]
    assert (repo / "calc.py").read_text() == BAD
    assert commits(repo)[-1].endswith("restore 1: back to attempt 0")
    assert any(
        message.startswith("restored attempt 0: undid 1 file from attempt 1 (calc.py)")
        for message in messages
    ), messages
