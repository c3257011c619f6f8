"""The review screen driven with Pilot: every key and decision path, against the real engine.

The model is the scripted provider (recorded turns), the checks are real pytest runs in the
workspace, and every assertion reads what the person would see (widgets) or what landed
(workspace files, the run's logs).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandList
from textual.widgets import Label, Log, Markdown, Static, TextArea
from textual.widgets._toast import Toast

from orch_tui.core.config.ui_state import load_ui_state
from orch_tui.core.domain import events as ev
from orch_tui.core.providers.base import AssistantTurn, ModelError, TextSink, TurnRequest
from orch_tui.core.util.terminal_text import is_unsafe
from orch_tui.tui import full_collections
from orch_tui.tui.messages import EngineEvents
from orch_tui.tui.screens.dialogs import (
    EditScreen,
    FeedbackScreen,
    HelpScreen,
    RewrittenScreen,
    StoppedScreen,
)
from orch_tui.tui.screens.history.attempt import AttemptScreen
from orch_tui.tui.screens.history.run import RunScreen
from orch_tui.tui.screens.history.runs_list import RunsScreen
from orch_tui.tui.screens.review.screen import ReviewScreen
from orch_tui.tui.widgets.diff.view import DiffView
from tests.support.e2e_support import attempt_turns
from tests.support.tui_support import (
    ADD_TESTS,
    CALC_BUGGY,
    CALC_FIXED,
    CALC_TESTS,
    CONFIG_TEXT,
    FIRST_ATTEMPT,
    FIX_ADD,
    FIX_MUL,
    SIZE,
    TuiProject,
    make_tui_project,
    status_text,
    wait_for,
    wait_for_finish,
    wait_for_history,
    wait_for_review,
    wait_for_screen,
    wait_for_trial,
)

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def _fast_workspace_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workspace's pytest runs skip plugin auto-loading (allowed through env_allow)."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def position(screen: ReviewScreen) -> tuple[str, int]:
    """The file and hunk under the cursor, as the diff view shows them."""
    diff = screen.query_one(DiffView)
    assert diff.change is not None
    return diff.change.path, diff.cursor_hunk


def saved_decisions(project: TuiProject, attempt: int = 0) -> dict[str, Any]:
    return project.log_json(attempt, "decisions.json")


def toasts(app: Any) -> str:
    return "\n".join(str(toast.render()) for toast in app.screen.query(Toast))


async def test_the_proposal_opens_on_the_first_hunk_with_the_run_in_the_header(
    tmp_path: Path,
) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        assert position(screen) == ("calc.py", 0)
        assert "file 1/2 · hunk 1/2" in status_text(screen)
        assert "0 accepted · 0 rejected · 3 undecided" in status_text(screen)
        header = str(screen.query_one("#run-header").render())
        assert "REVIEWING" in header and "attempt 0/3" in header and "0:00" in header
        assert "I fix add and mul" in "\n".join(screen.query_one("#model-log", Log).lines)
        await pilot.press("q")


async def test_y_and_n_decide_hunks_move_on_and_are_saved_as_made(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        await pilot.press("y")
        assert position(screen) == ("calc.py", 1)
        assert saved_decisions(project)["hunks"]["calc.py"] == ["accepted"]
        await pilot.press("n")
        assert position(screen) == ("tests/test_calc.py", 0)
        assert saved_decisions(project)["hunks"]["calc.py"] == ["accepted", "rejected"]
        assert "1 accepted · 1 rejected · 1 undecided" in status_text(screen)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.engine.state.last_test, "the checks to run")
        # The rejected hunk kept mul broken; the undecided test file landed as accepted.
        assert project.read("calc.py") == CALC_FIXED.replace("return a * b", "return a + b")
        assert project.read("tests/test_calc.py") == CALC_TESTS
        assert app.engine.state.last_test.failing == ["tests/test_calc.py::test_mul"]
        # The script has no attempt 1: the run stops on a model error. q answers that dialog.
        await wait_for_screen(pilot, app, StoppedScreen, "the stop message")
        await pilot.press("q")


async def test_Y_and_N_decide_whole_files_and_a_rejected_new_file_is_not_created(
    tmp_path: Path,
) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        await pilot.pause()
        held = full_collections.held()  # full collections kept off the review's objects
        await pilot.press("right_curly_bracket", "N")
        assert saved_decisions(project)["file_decisions"] == {"tests/test_calc.py": "rejected"}
        await pilot.press("left_curly_bracket", "Y")
        assert saved_decisions(project)["file_decisions"]["calc.py"] == "accepted"
        assert "2 accepted · 1 rejected · 0 undecided" in status_text(screen)
        await pilot.press("enter")
        assert held and not full_collections.held()  # the review is over
        await wait_for(pilot, lambda: app.engine.state.last_test, "the checks to run")
        assert project.read("calc.py") == CALC_FIXED
        assert project.read("tests/test_calc.py") is None
        # The script has no attempt 1: wait for that stop, so q does not race it.
        await wait_for_screen(pilot, app, StoppedScreen, "the stop message")
        await pilot.press("q")


async def test_brackets_walk_hunks_across_files_and_braces_jump_between_files(
    tmp_path: Path,
) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        diff = screen.query_one(DiffView)
        ahead = [[change.path for change in diff._ahead]]  # lexed while the reviewer is idle
        walk = []
        for key in ("]", "]", "]", "[", "{", "}", "}", "{"):
            await pilot.press(key)
            walk.append(position(screen))
            ahead.append([change.path for change in diff._ahead])
        assert walk == [
            ("calc.py", 1),
            ("tests/test_calc.py", 0),
            ("tests/test_calc.py", 0),  # the last hunk: ] stays
            ("calc.py", 1),
            ("calc.py", 0),
            ("tests/test_calc.py", 0),
            ("tests/test_calc.py", 0),
            ("calc.py", 0),
        ]
        assert ahead[0] == ["tests/test_calc.py"] and ahead[2] == ["calc.py"]  # next, previous
        await pilot.press("q")


async def test_e_edits_the_file_with_highlighting_and_the_saved_text_lands(
    tmp_path: Path,
) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        await pilot.press("}", "e")
        await wait_for_screen(pilot, app, EditScreen, "the editor")
        editor = app.screen.query_one(TextArea)
        assert editor.language == "python"
        assert editor.text == CALC_TESTS
        await pilot.press(*"# checked", "enter", "ctrl+s")
        await wait_for(pilot, lambda: app.screen is screen, "the editor to close")
        edited = "# checked\n" + CALC_TESTS
        assert saved_decisions(project)["edits"] == {"tests/test_calc.py": edited}
        assert screen.query_one(DiffView).change.new_text == edited  # type: ignore[union-attr]
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.engine.state.last_test, "the checks to run")
        assert project.read("tests/test_calc.py") == edited
        assert await wait_for_finish(pilot, app) == "SUCCESS"  # q must not race the run's end
        await pilot.press("q")


async def test_escape_in_the_editor_discards_the_edit(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        await pilot.press("e")
        await wait_for_screen(pilot, app, EditScreen, "the editor")
        await pilot.press(*"junk", "escape")
        await wait_for(pilot, lambda: app.screen is screen, "the editor to close")
        assert screen.session is not None and screen.session.decisions.edits == {}
        assert "junk" not in (screen.query_one(DiffView).change.new_text or "")  # type: ignore[union-attr]
        await pilot.press("q")


async def test_f_rejects_the_proposal_and_the_reason_goes_to_the_model(tmp_path: Path) -> None:
    second = attempt_turns("Only the bugs, then.", [FIX_ADD, FIX_MUL])
    project = make_tui_project(tmp_path, [FIRST_ATTEMPT, second])
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_review(pilot, app)
        await pilot.press("f")
        await wait_for_screen(pilot, app, FeedbackScreen, "the reason box")
        await pilot.press("enter")  # an empty reason is refused
        assert isinstance(app.screen, FeedbackScreen)
        await pilot.press(*"no test files please", "enter")
        await wait_for_review(pilot, app, attempt=1)
        assert saved_decisions(project)["reject_reason"] == "no test files please"
        prompt = project.log_json(1, "conversation.json")["messages"][0]["content"]
        assert "no test files please" in str(prompt)
        assert project.read("calc.py") == CALC_BUGGY  # nothing of attempt 0 landed
        await pilot.press("q")


async def test_escape_in_the_reason_box_keeps_reviewing(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        await pilot.press("f")
        await wait_for_screen(pilot, app, FeedbackScreen, "the reason box")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "the review screen")
        assert screen.session is not None and screen.session.decisions.reject_reason is None
        await pilot.press("q")


async def test_enter_applies_undecided_as_accepted_and_the_run_succeeds(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await wait_for_review(pilot, app)
        await pilot.press("enter")
        assert await wait_for_finish(pilot, app) == "SUCCESS"
        assert project.read("calc.py") == CALC_FIXED
        assert project.read("tests/test_calc.py") == CALC_TESTS
        assert "SUCCESS" in str(screen.query_one("#run-header").render())
        timeline = "\n".join(str(option.prompt) for option in screen.query_one("#timeline").options)  # type: ignore[attr-defined]
        assert "✓ 2 passed" in timeline
        status = str(screen.query_one("#review-status").render())
        assert "2 files changed · tests: 2 passed · 1 attempt · $" in status, status
        await pilot.press("y")  # nothing left to review: a warning, not an error
        await pilot.pause()
        assert "Nothing to review" in toasts(app)
        await pilot.press("q")
    assert app.return_value == 0


async def test_failing_tests_are_listed_and_the_patch_reviewed_with_trial_evidence(
    tmp_path: Path,
) -> None:
    first = attempt_turns("add first.", [FIX_ADD, ADD_TESTS])
    second = attempt_turns("now mul.", [FIX_MUL])
    project = make_tui_project(tmp_path, [first, second])
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        assert "t runs" in status_text(screen)  # no sandbox here: the trial waits for its key
        await pilot.press("t")
        await wait_for_trial(pilot, screen)
        assert "1 passed, 1 failed" in status_text(screen)
        await pilot.press("enter")
        await wait_for_review(pilot, app, attempt=1)
        failing = str(screen.query_one("#failing", Static).render())
        assert "✗ tests/test_calc.py::test_mul" in failing
        await pilot.press("t")
        await wait_for_trial(pilot, screen)
        assert "1 failing → 0; fixes test_mul; breaks none" in status_text(screen)
        await pilot.press("y", "enter")
        assert await wait_for_finish(pilot, app) == "SUCCESS"
        assert project.read("calc.py") == CALC_FIXED
        await pilot.press("q")


COMMENTED_CONFIG = "# my checks\n[checks]  # inline\ntimeout_seconds = 60  # a minute\n"


async def test_v_switches_the_diff_layout_and_remembers_it_outside_the_config(
    tmp_path: Path,
) -> None:
    project = make_tui_project(tmp_path / "p", config_text=COMMENTED_CONFIG)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        diff = screen.query_one(DiffView)
        assert diff.diff_layout == "split"
        await pilot.press("v")
        assert diff.diff_layout == "unified"
        assert load_ui_state() == {"diff_layout": "unified"}
        await pilot.press("q")
    assert (tmp_path / "p" / "orchestrator.toml").read_text() == COMMENTED_CONFIG
    reopened = project.app()
    async with reopened.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, reopened)
        assert screen.query_one(DiffView).diff_layout == "unified"
        # The history's diff opens in the remembered layout; its v is remembered as well.
        await pilot.press("h")
        runs = await wait_for_history(pilot, reopened, RunsScreen, "the run history")
        assert len(runs.shown) == 1
        await pilot.press("enter")
        run = await wait_for_history(pilot, reopened, RunScreen, "the run")
        assert run.highlighted is not None
        await pilot.press("enter")
        attempt = await wait_for_screen(pilot, reopened, AttemptScreen, "the attempt")
        assert attempt.query_one(DiffView).diff_layout == "unified"
        await pilot.press("v")
        assert load_ui_state() == {"diff_layout": "split"}
        await pilot.press("escape", "escape", "escape")
        assert reopened.screen is screen
        assert screen.query_one(DiffView).diff_layout == "split"
        await pilot.press("q")


async def test_v_without_a_config_creates_no_config(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    (tmp_path / "orchestrator.toml").unlink()
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_review(pilot, app)
        await pilot.press("v")
        await pilot.press("q")
    assert not (tmp_path / "orchestrator.toml").exists()


async def test_help_and_history_open_over_the_review_and_close_back_to_it(
    tmp_path: Path,
) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "scroll sideways" in app.screen.query_one(Markdown).source
        await pilot.press("escape")
        assert app.screen is screen
        await pilot.press("h")
        await wait_for_screen(pilot, app, RunsScreen, "the run history")
        runs = app.screen
        assert isinstance(runs, RunsScreen)
        await wait_for(pilot, lambda: len(runs.shown) == 1, "the run in the history")
        assert runs.shown[0].run_id == app.engine.state.run_id
        await pilot.press("escape")
        assert app.screen is screen and screen.session is not None
        assert full_collections.held()  # the history let go; the review still holds
        await pilot.press("y")
        assert position(screen) == ("calc.py", 1)
        await pilot.press("q")


async def test_quit_mid_review_and_reopen_shows_the_same_proposal_and_decisions(
    tmp_path: Path,
) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_review(pilot, app)
        await pilot.press("y", "n", "q")
    assert app.return_value == 130
    assert app.engine_thread is not None
    app.engine_thread.thread.join(5)
    assert project.state()["state"] == "REVIEWING"

    reopened = project.app()
    async with reopened.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, reopened)
        assert reopened.engine.state.run_id == app.engine.state.run_id
        assert screen.session is not None
        assert screen.session.decisions.for_file(screen.session.proposal.changes[0]) == [
            "accepted",
            "rejected",
        ]
        assert position(screen) == ("tests/test_calc.py", 0)  # the first undecided hunk
        assert "1 accepted · 1 rejected · 1 undecided" in status_text(screen)
        assert "I fix add and mul" in "\n".join(screen.query_one("#model-log", Log).lines)
        await pilot.press("enter")
        await wait_for(pilot, lambda: reopened.engine.state.last_test, "the checks to run")
        assert project.read("calc.py") == CALC_FIXED.replace("return a * b", "return a + b")
        await wait_for_screen(pilot, reopened, StoppedScreen, "the stop message")
        await pilot.press("q")


class FailsOnce:
    """A provider whose first request fails like an unreachable API, then replays a script."""

    name = "flaky"

    def __init__(self, then: Any) -> None:
        self.then = then
        self.failed = False

    def complete(self, request: TurnRequest, on_text: TextSink) -> AssistantTurn:
        if not self.failed:
            self.failed = True
            raise ModelError("authentication failed (401): invalid x-api-key")
        return self.then.complete(request, on_text)


async def test_a_model_error_is_a_message_with_choices_and_r_asks_again(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    app = project.app(provider=FailsOnce(project.provider()))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(pilot, app, StoppedScreen, "the stop message")
        stopped = app.screen
        message = str(stopped.query_one("#stopped-message").render())
        assert "model error: authentication failed (401)" in message
        keys = str(stopped.query_one("#stopped-keys").render())
        assert "r asks the model again" in keys and "q quits" in keys
        assert project.state()["state"] == "FAILED"
        await pilot.press("r")
        screen = await wait_for_review(pilot, app)
        assert position(screen) == ("calc.py", 0)
        assert project.state()["state"] == "REVIEWING"
        await pilot.press("q")


async def test_a_safety_stop_says_nothing_was_written_and_offers_no_retry(tmp_path: Path) -> None:
    escape = attempt_turns("Writing outside.", [("create", "../outside.py", "x = 1\n")])
    project = make_tui_project(tmp_path, [escape])
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(pilot, app, StoppedScreen, "the stop message")
        message = str(app.screen.query_one("#stopped-message").render())
        advice = str(app.screen.query_one("#stopped-advice").render())
        assert "safety violation" in message and "Nothing the model proposed was written" in advice
        await pilot.press("r")  # no retry for a safety stop
        assert isinstance(app.screen, StoppedScreen)
        await pilot.press("q")
    assert app.return_value == 2
    assert not (tmp_path / "outside.py").exists()


async def test_a_check_command_that_cannot_run_is_reported_in_the_app(tmp_path: Path) -> None:
    config = '[checks]\ntest_command = ["orch-no-such-[b=1]"]\n'  # brackets stay as written
    project = make_tui_project(tmp_path, config_text=config)
    app = project.app(max_retries=1)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await wait_for_review(pilot, app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: "could not run" in toasts(app), "the check error")
        assert "orch-no-such-[b=1]" in str(screen.query_one("#failing", Static).render())
        assert "Check [checks] in orchestrator.toml" in toasts(app)
        await wait_for_screen(pilot, app, StoppedScreen, "the stop message")
        await pilot.press("q")


async def test_the_theme_picked_in_the_command_palette_is_saved(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_review(pilot, app)
        app.search_themes()
        await pilot.pause()
        await pilot.press(*"vscode-light")
        results = app.screen.query_one(CommandList)
        await wait_for(pilot, lambda: results.option_count == 1, "the palette's search")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.theme == "vscode-light", "the light theme")
        assert load_ui_state()["theme"] == "vscode-light"
        app.theme = "high-contrast"
        await pilot.pause()
        assert load_ui_state()["theme"] == "high-contrast"
        assert "theme" not in (tmp_path / "orchestrator.toml").read_text()
        await pilot.press("q")


# -- text from the model, tests and files is never read as markup ([/] once crashed this screen)

BRACKETED = ["[/]", "test_path[/tmp]", "[zero]", "[b=1]", "[bold]x[/bold]"]

BRACKET_TESTS = """\
import pytest


@pytest.mark.parametrize("b", [0, 1], ids=["zero", "b=1"])
def test_div(b):
    assert b == "never"


@pytest.mark.parametrize("p", ["/tmp", "/"], ids=["/tmp", "/"])
def test_path(p):
    assert p == "never"
"""

FIX_BRACKET_TESTS = [
    ("str_replace", "tests/test_b.py", 'assert b == "never"', "assert b is not None"),
    ("str_replace", "tests/test_b.py", 'assert p == "never"', "assert p"),
]


async def test_bracketed_test_ids_and_model_text_show_as_written(tmp_path: Path) -> None:
    first = attempt_turns(
        "Tests for [/] and [b=1].", [("create", "tests/test_b.py", BRACKET_TESTS)]
    )
    second = attempt_turns("Fixing [zero].", FIX_BRACKET_TESTS)
    project = make_tui_project(tmp_path, [first, second], seed={})
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        await pilot.press("enter")
        await wait_for_review(pilot, app, attempt=1)
        failing = str(screen.query_one("#failing", Static).render())
        for test_id in ("test_div[zero]", "test_div[b=1]", "test_path[/tmp]", "test_path[/]"):
            assert f"✗ tests/test_b.py::{test_id}" in failing
        timeline = "\n".join(
            str(option.prompt)
            for option in screen.query_one("#timeline").options  # type: ignore[attr-defined]
        )
        assert "4 failed" in timeline
        await pilot.press("t")
        await wait_for(pilot, lambda: "fixes" in status_text(screen), "the trial run's outcome")
        assert "fixes test_div[b=1], test_div[zero], test_path[/], test_path[/tmp]" in (
            status_text(screen)
        )
        assert "Tests for [/] and [b=1]." in "\n".join(screen.query_one("#model-log", Log).lines)
        await pilot.press("q")


async def test_notices_and_dialogs_show_bracketed_text_as_written(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await wait_for_review(pilot, app)
        for text in BRACKETED:
            screen.post_message(EngineEvents([ev.Notice(message=f"notice {text}")]))
        await pilot.pause()
        shown = toasts(app)
        for text in BRACKETED:
            assert f"notice {text}" in shown
        app.push_screen(EditScreen("src/[b=1]/[/].py", "x = 1\n"))
        await pilot.pause()
        assert "Editing src/[b=1]/[/].py" in str(app.screen.query_one("#edit-title").render())
        await pilot.press("escape")
        app.push_screen(StoppedScreen("stopped [zero]", "breaks test_path[/tmp], [/]", False))
        await pilot.pause()
        assert str(app.screen.query_one("#stopped-title").render()) == "stopped [zero]"
        message = str(app.screen.query_one("#stopped-message").render())
        assert message == "breaks test_path[/tmp], [/]"
        await pilot.press("escape")
        await pilot.press("q")


SLOW_TRIAL = """\
import os, sys, time
if "orch-trial-" in os.getcwd():
    time.sleep(300)
"""


def trial_checks() -> list[tuple[int, Path]]:
    """Live processes whose working folder is in an ``orch-trial-*`` folder, with that folder."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cwd = Path(entry / "cwd").resolve()
            if entry.name.isdigit() and "orch-trial-" in str(cwd):
                if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    found.append((int(entry.name), cwd))
        except OSError:
            continue
    return found


async def test_applying_stops_the_trial_run_and_removes_its_folder(tmp_path: Path) -> None:
    (tmp_path / "slow_trial.py").write_text(SLOW_TRIAL, encoding="utf-8")
    config = f'[checks]\nsandbox = "none"\ntest_command = ["{{python}}", "{tmp_path / "slow_trial.py"}"]\n'
    project = make_tui_project(tmp_path / "project", config_text=config)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_review(pilot, app)
        await pilot.press("t")
        await wait_for(pilot, lambda: bool(mine()), "the trial run to start")
        [(pid, scratch)] = mine()

        await pilot.press("enter")
        assert await wait_for_finish(pilot, app) == "SUCCESS"

        await wait_for(pilot, lambda: not mine(), "the trial run to be stopped")
        assert not scratch.exists()


async def test_quitting_mid_trial_leaves_no_trial_copy(tmp_path: Path) -> None:
    """q while the trial's checks run: the scratch copy (the model's code, the person's
    files) must not stay in the temporary folder once orch-tui has gone."""
    (tmp_path / "slow_trial.py").write_text(SLOW_TRIAL, encoding="utf-8")
    config = f'[checks]\nsandbox = "none"\ntest_command = ["{{python}}", "{tmp_path / "slow_trial.py"}"]\n'
    project = make_tui_project(tmp_path / "project", config_text=config)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_review(pilot, app)
        await pilot.press("t")
        await wait_for(pilot, lambda: bool(mine()), "the trial run to start")
        [(pid, scratch)] = mine()
        await pilot.press("q")
    assert not mine()
    assert not scratch.parent.exists(), sorted(scratch.parent.rglob("*"))[:5]


def mine() -> list[tuple[int, Path]]:
    """Trial checks of this test (children of this process)."""
    return [
        (pid, cwd)
        for pid, cwd in trial_checks()
        if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1] == str(os.getpid())
    ]


async def test_a_key_remapped_in_the_config_keymap_works(tmp_path: Path) -> None:
    config = CONFIG_TEXT + '[ui]\nkeymap = { "review.accept_hunk" = "a" }\n'
    project = make_tui_project(tmp_path, config_text=config)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        await pilot.press("y")  # no longer bound: nothing decided, the cursor stays
        await pilot.pause()
        assert position(screen) == ("calc.py", 0)
        await pilot.press("a")
        assert position(screen) == ("calc.py", 1)
        assert saved_decisions(project)["hunks"]["calc.py"] == ["accepted"]
        await pilot.press("q")


async def test_a_run_resumed_at_review_shows_its_tokens_and_cost_in_the_header(
    tmp_path: Path,
) -> None:
    usage = {"input_tokens": 1200, "output_tokens": 345}
    project = make_tui_project(tmp_path, [[replace(turn, usage=usage) for turn in FIRST_ATTEMPT]])
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_review(pilot, app)
        await pilot.press("q")  # leave mid-review: state.json keeps REVIEWING and the totals
    saved = project.state()
    assert saved["state"] == "REVIEWING"
    tokens = sum(saved["usage"].values())
    assert tokens > 0

    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        header = str(screen.query_one("#run-header").render())
        assert f"tokens {tokens:,} · ${saved['cost_usd']:.4f}" in header, header


# -- control characters from the model are spelt out, never sent to the terminal

CONTROL_PATH = "evil.py\r\x1b[2K\x9b\u202eyp.txt\u200b"
SPELT_OUT = "evil.py\\r\\x1b[2K\\x9b\\u202eyp.txt\\u200b"


async def test_control_characters_in_paths_notices_and_dialogs_are_spelt_out(
    tmp_path: Path,
) -> None:
    turns = attempt_turns("Writing \x1b[2J\u2067.", [("create", CONTROL_PATH, "EVIL = 1\n")])
    project = make_tui_project(tmp_path, [turns], seed={})
    app = project.app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        screen = await wait_for_review(pilot, app)
        files = [str(option.prompt) for option in screen.query_one("#files").options]  # type: ignore[attr-defined]
        assert any(SPELT_OUT in prompt for prompt in files), files
        model_log = "\n".join(screen.query_one("#model-log", Log).lines)
        assert "Writing \\x1b[2J\\u2067." in model_log and f"create {SPELT_OUT}" in model_log
        assert not [char for char in model_log if is_unsafe(char) and char != "\n"]
        screen.post_message(EngineEvents([ev.Notice(message=f"notice {CONTROL_PATH}")]))
        screen.post_message(
            EngineEvents(
                [ev.TaskStarted(index=0, total=1, task_id="t", title=CONTROL_PATH, first_attempt=0)]
            )
        )
        await pilot.pause()
        assert f"notice {SPELT_OUT}" in toasts(app)
        timeline = [str(option.prompt) for option in screen.query_one("#timeline").options]  # type: ignore[attr-defined]
        assert any(SPELT_OUT in line for line in timeline), timeline
        app.push_screen(EditScreen(CONTROL_PATH, "x = 1\n"))
        await pilot.pause()
        assert f"Editing {SPELT_OUT}" in str(app.screen.query_one("#edit-title").render())
        await pilot.press("escape")
        app.push_screen(StoppedScreen("stopped", f"breaks {CONTROL_PATH}", False))
        await pilot.pause()
        assert str(app.screen.query_one("#stopped-message").render()) == f"breaks {SPELT_OUT}"
        await pilot.press("escape")
        await pilot.press("q")


@pytest.mark.parametrize(("key", "final"), [("y", "SUCCESS"), ("n", "FAILED")])
async def test_tests_rewritten_to_pass_need_the_persons_explicit_yes_for_success(
    tmp_path: Path, key: str, final: str
) -> None:
    rewrite = (
        "str_replace", "tests/test_calc.py", "assert add(2, 3) == 5", "assert True",
    )  # fmt: skip
    script = [attempt_turns("The add test is wrong.", [FIX_MUL, rewrite])]
    seed = {"calc.py": CALC_BUGGY, "tests/test_calc.py": CALC_TESTS}
    project = make_tui_project(tmp_path, script, seed=seed)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_review(pilot, app)
        await pilot.press("y", "y")  # the mul fix, and the locked test's hunk: its own yes
        await pilot.press("enter")
        dialog = await wait_for_screen(pilot, app, RewrittenScreen, "the rewritten-tests dialog")
        assert dialog.tests == ["tests/test_calc.py::test_add"]
        shown = str(dialog.query_one("#rewritten-message", Label).render())
        assert "tests/test_calc.py::test_add" in shown
        await pilot.press(key)
        assert await wait_for_finish(pilot, app) == final
        reason = app.engine.state.stop_reason
        if final == "FAILED":
            assert reason.startswith("tests rewritten to pass: tests/test_calc.py::test_add")
            assert reason.endswith("the person did not accept them")
        else:
            assert "2 tests pass (0 added, 1 rewritten, 1 weakened)" in reason
        await pilot.press("q")
