"""The app around the review screen: ``orch-tui history`` and resuming a run from it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.color import Color

from tests.tui_support import SIZE, make_tui_project, wait_for, wait_for_review
from tui.app import OrchApp, ResumeRequest
from tui.screens.history import RunsScreen

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_r_in_the_history_app_returns_the_unfinished_run_to_resume(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_review(pilot, app)
        await pilot.press("q")
    run_id = app.engine.state.run_id

    history = OrchApp(project.paths, project.config())
    async with history.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(history.screen, RunsScreen), "the run list")
        await pilot.press("r")
    assert history.resume_request == ResumeRequest(run_id, str(tmp_path / "spec.md"))


async def test_leaving_the_history_app_resumes_nothing(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    history = OrchApp(project.paths, project.config())
    async with history.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(history.screen, RunsScreen), "the run list")
        await pilot.press("escape")
    assert history.resume_request is None
    assert history.return_value == 0


def test_a_builtin_theme_gets_diff_colours_from_its_own_palette(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    app = OrchApp(project.paths, project.config())
    app.theme = "textual-light"
    defaults = app.get_theme_variable_defaults()
    theme = app.current_theme
    assert defaults["diff-added-sign"] == Color.parse(theme.success or "").hex
    assert defaults["diff-removed-sign"] == Color.parse(theme.error or "").hex
