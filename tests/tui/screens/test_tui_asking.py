"""The needs-help dialog and the stopped run's continue/guidance keys, with Pilot and the engine."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets import Input

from orch_tui.core.domain.events import EventBus
from orch_tui.core.history.detail import kinds_of, load_run
from orch_tui.core.loop.engine import Engine, RunOptions
from orch_tui.core.loop.review import AcceptAllReviewer
from orch_tui.tui.screens.dialogs import StoppedScreen
from orch_tui.tui.screens.needs_help import NeedsHelpScreen
from orch_tui.tui.widgets.timeline import Timeline
from tests.support.e2e_support import attempt_turns
from tests.support.fake_anthropic import Turn
from tests.support.tui_support import (
    CALC_FIXED,
    CONFIG_TEXT,
    FIRST_ATTEMPT,
    SIZE,
    TuiProject,
    make_tui_project,
    wait_for_finish,
    wait_for_review,
    wait_for_screen,
)
from tests.tui.screens.review import test_tui_review

pytestmark = pytest.mark.anyio

QUESTION = "Should mul() [also] accept strings?"


# The review tests' fixture: workspace pytest without plugin autoload.
_fast_workspace_pytest = test_tui_review._fast_workspace_pytest


def first_prompt(project: TuiProject, attempt: int) -> str:
    return project.log_json(attempt, "conversation.json")["messages"][0]["content"]


def rendered(screen, selector: str) -> str:
    return str(screen.query_one(selector).render())


async def test_a_digit_answers_the_models_question_and_the_run_goes_on(tmp_path: Path) -> None:
    asks = [Turn.ask(QUESTION, ["yes", "no, numbers only"], "no: the spec says numbers")]
    project = make_tui_project(tmp_path, [asks, FIRST_ATTEMPT])
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(pilot, app, NeedsHelpScreen, "the question")
        dialog = app.screen
        assert rendered(dialog, "#needs-help-question") == QUESTION
        options = rendered(dialog, "#needs-help-options")
        assert "1  yes" in options and "2  no, numbers only" in options
        assert "Recommended: no: the spec says numbers" in rendered(
            dialog, "#needs-help-recommendation"
        )
        assert project.state()["state"] == "NEEDS_HELP"
        await pilot.press("2")
        await wait_for_review(pilot, app, attempt=1)
        prompt = first_prompt(project, 1)
        assert "Their answer, verbatim:\n\nno, numbers only" in prompt and QUESTION in prompt
        timeline = app.screen.query_one(Timeline)
        # the generation prompt again, with the answer: not a patch
        assert str(timeline.get_option("attempt-1").prompt).startswith("#1 generate + answer:")
        assert str(timeline.get_option("attempt-0").prompt).startswith("#0 generate:")
        await pilot.press("enter")
        assert await wait_for_finish(pilot, app) == "SUCCESS"
        detail = load_run(project.run_dir().parent, project.run_dir().name)
        assert kinds_of(detail.attempts, ()) == {0: "generate", 1: "generate + answer"}
        assert project.read("calc.py") == CALC_FIXED
        assert project.state()["run_id"] == project.run_dir().name
        await pilot.press("q")
    assert app.return_value == 0


async def test_free_guidance_is_typed_in_the_box(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path, [[Turn.ask(QUESTION)], FIRST_ATTEMPT])
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(pilot, app, NeedsHelpScreen, "the question")
        await pilot.press("1")  # no options: a digit picks nothing
        assert isinstance(app.screen, NeedsHelpScreen)
        await pilot.press("tab", *"numbers-only", "enter")
        await wait_for_review(pilot, app, attempt=1)
        assert "Their answer, verbatim:\n\nnumbers-only" in first_prompt(project, 1)
        await pilot.press("q")


# The fixes change the code, not the test: a test that existed before an attempt is the contract.
APP = ("create", "x.py", "VALUE = 0\n")
FAIL_TEST = (
    "create",
    "tests/test_x.py",
    "from x import VALUE\n\n\ndef test_x():\n    assert VALUE == 2\n",
)
STILL_FAILING = ("str_replace", "x.py", "VALUE = 0", "VALUE = 1")
PASSING = ("str_replace", "x.py", "VALUE = 1", "VALUE = 2")


def failed_project(tmp_path: Path) -> TuiProject:
    """A run that ended FAILED (retries exhausted) headless, with one more attempt scripted."""
    attempts = [
        attempt_turns("Adding a test.", [APP, FAIL_TEST]),
        attempt_turns("Trying again.", [STILL_FAILING]),
        attempt_turns("Fixing it.", [PASSING]),
    ]
    project = make_tui_project(tmp_path, attempts, seed={})
    engine = Engine(
        paths=project.paths,
        config=project.config(),
        spec=project.spec(),
        provider=project.provider(),
        reviewer=AcceptAllReviewer(),
        bus=EventBus(),
        options=RunOptions(max_retries=1),
    )
    assert engine.run() == 1
    return project


@pytest.mark.parametrize("key", ["c", "g"])
async def test_a_failed_run_continues_with_c_or_with_guidance_after_g(
    tmp_path: Path, key: str
) -> None:
    project = failed_project(tmp_path)
    run_id = project.state()["run_id"]
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(pilot, app, StoppedScreen, "the stop message")
        emitted_on: list[tuple[str, str]] = []
        app.engine.bus.subscribe(
            lambda event: emitted_on.append((event.kind, threading.current_thread().name))
        )
        keys = rendered(app.screen, "#stopped-keys")
        assert "c continues" in keys and "g continues with your guidance" in keys
        await pilot.press(key)
        if key == "g":
            await wait_for_screen(pilot, app, NeedsHelpScreen, "the box")
            app.screen.query_one(Input).focus()
            await pilot.press(*"use-2", "enter")
        await wait_for_review(pilot, app, attempt=2)
        assert project.state()["run_id"] == run_id
        assert ("use-2" in first_prompt(project, 2)) is (key == "g")
        await pilot.press("enter")
        assert await wait_for_finish(pilot, app) == "SUCCESS"
        await pilot.press("q")
    assert app.return_value == 0
    # Reopening the run is the engine's work, on its thread: the UI thread only asked for it.
    assert ("reopened", "orch-engine") in emitted_on
    assert threading.main_thread().name not in {thread for _kind, thread in emitted_on}


async def test_a_stuck_run_asks_the_person_naming_the_failing_test(tmp_path: Path) -> None:
    attempts = [
        attempt_turns("Adding a test.", [APP, FAIL_TEST]),
        attempt_turns("Trying again.", [STILL_FAILING]),
        attempt_turns("Fixing it.", [PASSING]),
    ]
    project = make_tui_project(tmp_path, attempts, seed={})
    app = project.app(max_retries=1)
    async with app.run_test(size=SIZE) as pilot:
        for attempt in (0, 1):
            await wait_for_review(pilot, app, attempt=attempt)
            await pilot.press("enter")
        await wait_for_screen(pilot, app, NeedsHelpScreen, "the question")
        assert rendered(app.screen, "#needs-help-title") == "The run is stuck"
        assert "tests/test_x.py::test_x" in rendered(app.screen, "#needs-help-question")
        assert project.state()["state"] == "NEEDS_HELP"
        await pilot.press("1")
        await wait_for_review(pilot, app, attempt=2)
        assert "Explain what the tests expect" in first_prompt(project, 2)
        await pilot.press("enter")
        assert await wait_for_finish(pilot, app) == "SUCCESS"
        await pilot.press("q")


async def test_give_up_in_the_stuck_dialog_ends_the_run_without_a_request(tmp_path: Path) -> None:
    attempts = [
        attempt_turns("Adding a test.", [APP, FAIL_TEST]),
        attempt_turns("Trying again.", [STILL_FAILING]),
        attempt_turns("Fixing it.", [PASSING]),  # never asked for: the person gives up
    ]
    project = make_tui_project(tmp_path, attempts, seed={})
    app = project.app(max_retries=1)
    async with app.run_test(size=SIZE) as pilot:
        for attempt in (0, 1):
            await wait_for_review(pilot, app, attempt=attempt)
            await pilot.press("enter")
        await wait_for_screen(pilot, app, NeedsHelpScreen, "the question")
        assert "3  Give up on this run" in rendered(app.screen, "#needs-help-options")
        await pilot.press("3")
        assert await wait_for_finish(pilot, app) == "FAILED"
        state = project.state()
        assert state["stop_reason"] == "given up by the person at attempt 1"
        assert (state["attempt"], state["max_retries"], state["question"]) == (1, 1, None)
        assert not (project.run_dir() / "attempt-02").exists()  # no request, no next attempt
        await pilot.pause()
        assert not isinstance(app.screen, NeedsHelpScreen)
        await pilot.press("q")


def escalating_project(tmp_path: Path) -> TuiProject:
    """Attempt 0 fails its test; attempt 1 is answered by the stronger model."""
    config_text = '[model]\nescalate_to = "claude-opus-4-1"\n[loop]\nescalate_after = 1\n'
    attempts = [attempt_turns("Adding a test.", [APP, FAIL_TEST]), FIRST_ATTEMPT]
    return make_tui_project(tmp_path, attempts, seed={}, config_text=CONFIG_TEXT + config_text)


async def test_the_header_shows_the_stronger_model_once_it_takes_over(tmp_path: Path) -> None:
    project = escalating_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app, attempt=0)
        assert "claude-opus-4-1" not in rendered(screen, "#run-header")
        await pilot.press("enter")
        await wait_for_review(pilot, app, attempt=1)
        assert "model claude-opus-4-1" in rendered(screen, "#run-header")
        assert project.log_json(1, "conversation.json")["model"] == "claude-opus-4-1"
        await pilot.press("q")


async def test_a_run_resumed_after_it_escalated_shows_the_stronger_model(tmp_path: Path) -> None:
    project = escalating_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_review(pilot, app, attempt=0)
        await pilot.press("enter")
        await wait_for_review(pilot, app, attempt=1)
        await pilot.press("q")  # leave at attempt 1's review: the stronger model's proposal
    assert project.state()["state"] == "REVIEWING"

    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app, attempt=1)
        assert "model claude-opus-4-1" in rendered(screen, "#run-header")
        await pilot.press("q")
