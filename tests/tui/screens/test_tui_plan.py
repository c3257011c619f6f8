"""The plan screen (Pilot): edit as Markdown, drop, reorder, approve; header and timeline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import OptionList, TextArea

from orch_tui.core.loop.engine import RunOptions
from orch_tui.tui.app import OrchApp, RunRequest
from orch_tui.tui.screens.plan import PlanEditScreen, PlanScreen
from orch_tui.tui.widgets.run_header import RunHeader
from orch_tui.tui.widgets.timeline import Timeline
from tests.support.fake_anthropic import Turn
from tests.support.tui_support import (
    FIRST_ATTEMPT,
    SIZE,
    frozen_clock,
    make_tui_project,
    wait_for,
    wait_for_review,
    wait_for_screen,
)

pytestmark = pytest.mark.anyio

PLAN = {
    "tasks": [
        {"id": "t1", "title": "Fix add", "description": "add sums", "acceptance": "add(2, 3) == 5"},
        {"id": "t2", "title": "Fix mul", "description": "mul multiplies", "acceptance": "6"},
        {"id": "t3", "title": "Docs", "description": "a README", "acceptance": "it exists"},
    ]
}


def plan_app(tmp_path: Path, plan: dict = PLAN) -> tuple[OrchApp, Path]:
    planning = [Turn([Turn.tool_use("submit_plan", plan)], "tool_use")]
    project = make_tui_project(tmp_path, [planning, FIRST_ATTEMPT])
    app = OrchApp(
        project.paths,
        project.config(),
        RunRequest(project.spec(), project.provider(), RunOptions(max_retries=3, plan=True)),
        clock=frozen_clock,
    )
    return app, tmp_path


def titles(screen: PlanScreen) -> list[str]:
    return [task.title for task in screen.plan.tasks]


async def test_the_plan_screen_shows_the_files_a_task_names(tmp_path: Path) -> None:
    named = {"tasks": [{**PLAN["tasks"][0], "files": ["calc.py", "util/"]}, PLAN["tasks"][1]]}
    app, _ = plan_app(tmp_path, named)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(pilot, app, PlanScreen, "the plan screen")
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        assert "files: calc.py, util/" in str(options.get_option_at_index(0).prompt)
        assert "files:" not in str(options.get_option_at_index(1).prompt)


async def test_the_plan_screen_edits_drops_reorders_and_approves(tmp_path: Path) -> None:
    app, root = plan_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(pilot, app, PlanScreen, "the plan screen")
        screen = app.screen
        assert isinstance(screen, PlanScreen)
        await pilot.pause()
        assert titles(screen) == ["Fix add", "Fix mul", "Docs"]
        shown = str(screen.query_one(OptionList).get_option_at_index(0).prompt)
        assert "t1: Fix add" in shown and "add sums" in shown and "add(2, 3) == 5" in shown

        header = str(app.review_screen.query_one(RunHeader).render()) if app.review_screen else ""
        assert " · PLANNING · tokens " in header  # the planning turn is no "attempt 0/3"
        await pilot.press("down", "down", "d")  # drop Docs
        assert titles(screen) == ["Fix add", "Fix mul"]
        await pilot.press("K")  # the cursor is on Fix mul: move it up
        assert titles(screen) == ["Fix mul", "Fix add"]
        await pilot.press("J")
        assert titles(screen) == ["Fix add", "Fix mul"]

        await pilot.press("e")
        await wait_for_screen(pilot, app, PlanEditScreen, "the plan editor")
        editor = app.screen.query_one(TextArea)
        editor.text = editor.text + "\n## no title\n"
        await pilot.press("ctrl+s")
        error = app.screen.query_one("#plan-edit-error")
        assert isinstance(app.screen, PlanEditScreen)  # an error keeps the editor open
        assert "a task heading is '## <id>: <title>'" in str(error.render())
        assert editor.cursor_location[0] == editor.text.count("\n") - 1
        editor.text = editor.text.replace("## no title\n", "").replace(
            "## t1: Fix add", "## t1: Fix add, the sum"
        )
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen, "the plan screen again")
        assert titles(screen) == ["Fix add, the sum", "Fix mul"]

        await pilot.press("enter")
        review = await wait_for_review(pilot, app, attempt=1)
        header = str(review.query_one(RunHeader).render())
        assert "task 1/2 · attempt 0/3" in header
        timeline = review.query_one(Timeline)
        rows = [str(timeline.get_option_at_index(i).prompt) for i in range(timeline.option_count)]
        assert rows[-2].startswith("task 1/2 · t1: Fix add, the sum")
        assert rows[-1].startswith("  #1 generate")
        await pilot.press("q")

    run = next(p for p in (root / "logs").iterdir() if p.is_dir())
    approved = json.loads((run / "plan.json").read_text())
    assert [t["title"] for t in approved["tasks"]] == ["Fix add, the sum", "Fix mul"]
    state = json.loads((root / "state.json").read_text())
    assert state["plan"]["current"] == "t1" and state["state"] == "REVIEWING"


async def test_q_on_the_plan_screen_leaves_and_the_plan_is_asked_again_without_the_model(
    tmp_path: Path,
) -> None:
    app, root = plan_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(pilot, app, PlanScreen, "the plan screen")
        await pilot.press("q")
    state = json.loads((root / "state.json").read_text())
    assert state["state"] == "PLANNING" and "plan" not in state
    assert (next(p for p in (root / "logs").iterdir() if p.is_dir()) / "plan-draft.json").exists()


def test_history_shows_a_planned_runs_attempts_under_their_tasks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orch_tui.core.history.detail import load_run
    from orch_tui.tui.screens.history.run import planning_note, task_cells
    from tests.core.loop.test_plan_engine import (
        PLAIN_SPEC,
        TWO_TASKS,
        make_engine,
        submit,
        task_one,
        task_two,
    )
    from tests.support.scripting import CountingProvider

    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # the checks' pytest starts fast
    provider = CountingProvider([[submit(TWO_TASKS)], task_one(), task_two()])
    engine = make_engine(tmp_path, PLAIN_SPEC, provider)
    engine.run()
    detail = load_run(tmp_path / "logs", engine.state.run_id)
    assert [(a.number, a.task, a.outcome) for a in detail.attempts] == [
        (0, "plan", "planned"),
        (1, "t1", "passed"),
        (2, "t2", "passed"),
    ]
    assert task_cells(detail) == {0: "plan", 1: "1. t1: add (done)", 2: "2. t2: mul (done)"}
    # the run screen's facts: 2 attempts, the planning turn apart with its cost (issue 25)
    assert detail.summary.attempts == 2
    assert planning_note(detail) == f" (planning 15 tokens, ${detail.attempts[0].cost_usd:.4f})"
