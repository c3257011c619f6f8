"""The history screens show a run's judge and verifier decisions (Pilot)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from orch_tui.tui.screens.history.attempt import AttemptScreen
from orch_tui.tui.screens.history.run import RunScreen
from orch_tui.tui.screens.history.runs_list import RunsScreen
from orch_tui.tui.widgets.runs_table import RunsTable
from tests.core.loop import test_engine
from tests.core.loop.test_engine import BAD, TEST, fast_config, make_engine, state_of
from tests.support.scripting import CountingProvider, attempt, create, judge_retry, replace, verdict
from tests.support.tui_support import wait_for_history, wait_for_screen
from tests.tui.screens.history.test_history_screens import SIZE, HistoryHost

pytestmark = pytest.mark.anyio
project = test_engine.project
_no_plugin_autoload = test_engine._no_plugin_autoload

ADVICE = "add() subtracts: return a + b instead."


async def test_run_and_attempt_screens_show_judge_and_verifier_decisions(project: Path) -> None:
    config = fast_config()
    config.model.judge, config.model.verifier = "claude-haiku-4-5", "claude-opus-4-1"
    script = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a + b")),
    ]
    roles = {"judge": {0: judge_retry(ADVICE)}, "verifier": {1: verdict()}}
    make_engine(project, CountingProvider(script, roles), config=config)[0].run()
    run_id = state_of(project).run_id

    app = HistoryHost(project / "logs", project / "state.json")
    async with app.run_test(size=SIZE) as pilot:
        runs = await wait_for_history(pilot, app, RunsScreen, "the runs list")
        table = runs.query_one("#runs", RunsTable)
        table.cursor_row = [run.run_id for run in runs.shown].index(run_id)
        await pilot.press("enter")
        screen = await wait_for_history(pilot, app, RunScreen, "the run screen")
        attempts = screen.query_one("#attempts", DataTable)
        summaries = [str(attempts.get_row_at(i)[3]) for i in range(attempts.row_count)]
        assert summaries[0].startswith("1 failed · judge: retry: add() subtracts")
        assert "verifier: sufficient" in summaries[1]
        await pilot.press("enter")
        attempt_screen = await wait_for_screen(pilot, app, AttemptScreen, "attempt 0")
        title = str(attempt_screen.query_one("#attempt-title").render())
        assert f"judge: retry: {ADVICE}" in title
