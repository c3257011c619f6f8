"""The app around the review screen: ``orch-tui history`` and resuming a run from it."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.color import Color
from textual.command import CommandList
from textual.screen import Screen
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from orch_tui.core.domain.state import RunState
from orch_tui.core.loop.engine import RunOptions
from orch_tui.core.loop.exit_codes import EXIT_INTERRUPTED
from orch_tui.tui.app import SWITCH_INTERVAL_S, OrchApp, ResumeRequest, RunRequest
from orch_tui.tui.cli.failing import Refused
from orch_tui.tui.cli.parse import run_parser
from orch_tui.tui.cli.run import OpenedRun
from orch_tui.tui.launch import OpeningApp, run_review
from orch_tui.tui.screens.history.runs_list import RunsScreen
from orch_tui.tui.screens.loading import LoadingScreen
from orch_tui.tui.screens.review.screen import ReviewScreen
from orch_tui.tui.widgets.diff.view import DiffView
from orch_tui.tui.widgets.run_header import RunHeader
from tests.support.tui_support import (
    SIZE,
    TuiProject,
    frozen_clock,
    make_tui_project,
    wait_for,
    wait_for_finish,
    wait_for_history,
    wait_for_review,
)

pytestmark = pytest.mark.anyio


async def test_r_in_the_history_app_returns_the_unfinished_run_to_resume(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_review(pilot, app)
        await pilot.press("q")
    run_id = app.engine.state.run_id

    history = OrchApp(project.paths, project.config())
    async with history.run_test(size=SIZE) as pilot:
        await wait_for_history(pilot, history, RunsScreen, "the run list")
        await pilot.press("r")
    assert history.resume_request == ResumeRequest(run_id, str(tmp_path / "spec.md"))


@pytest.mark.parametrize("key", ["escape", "q"])
async def test_leaving_the_history_app_resumes_nothing(tmp_path: Path, key: str) -> None:
    project = make_tui_project(tmp_path)
    history = OrchApp(project.paths, project.config())
    async with history.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(history.screen, RunsScreen), "the run list")
        await pilot.press(key)
        await wait_for(pilot, lambda: history.return_value is not None, "the app to exit")
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


async def test_the_palette_offers_the_review_actions(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        titles = [command.title for command in app.get_system_commands(screen)]
        assert {"Apply", "Layout", "History", "Help"} <= set(titles)
        # Textual's own theme command: "Theme", or "Change theme" in older Textual (6.2).
        assert any("theme" in title.lower() for title in titles)
        diff = screen.query_one(DiffView)
        assert diff.diff_layout == "split"
        app.action_command_palette()
        await pilot.pause()
        await pilot.press(*"Layout")
        results = app.screen.query_one(CommandList)
        await wait_for(pilot, lambda: results.option_count >= 1, "the palette's search")
        await pilot.press("enter")
        await wait_for(pilot, lambda: diff.diff_layout == "unified", "the layout to switch")
        await pilot.press("q")


async def test_the_elapsed_clock_stops_when_the_run_succeeds(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    now = [0.0]
    app = OrchApp(
        project.paths,
        project.config(),
        RunRequest(project.spec(), project.provider(), RunOptions(max_retries=3)),
        clock=lambda: now[0],
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        now[0] = 65.0
        await pilot.press("enter")
        assert await wait_for_finish(pilot, app) == "SUCCESS"
        now[0] = 3600.0
        header = str(screen.query_one("#run-header").render())
        assert "1:05" in header and "60:00" not in header
        await pilot.press("q")


async def test_the_elapsed_clock_stops_while_the_run_waits_for_an_answer() -> None:
    """NEEDS_HELP stops the clock as SUCCESS and FAILED do; continuing the run restarts it."""
    now = [0.0]
    header = RunHeader(clock=lambda: now[0])
    async with App[None]().run_test() as pilot:
        await pilot.app.mount(header)
        now[0] = 10.0
        header.state = RunState.NEEDS_HELP
        now[0] = 70.0
        assert header.elapsed == 10
        header.state = RunState.PATCHING
        assert header.elapsed == 70
        assert header.has_class("-patching") and not header.has_class("-needs_help")


async def test_an_engine_started_before_the_app_shows_its_proposal_once_mounted(
    tmp_path: Path,
) -> None:
    """``orch-tui SPEC`` starts the engine before the app runs: everything it posts before the
    review screen exists (the run, the model's edits, the proposal) is held, then shown."""
    app = app_with_a_proposal_held(make_tui_project(tmp_path))

    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        header = str(screen.query_one("#run-header").render())
        model_log = "\n".join(str(line) for line in screen.model_log.lines)
        assert screen.query_one(DiffView).change is not None
        assert "REVIEWING" in header
        assert "── attempt 0 ──" in model_log and "✎ str_replace calc.py" in model_log
        await pilot.press("q")


def app_with_a_proposal_held(project: TuiProject) -> OrchApp:
    """An app whose engine has posted its proposal, with no review screen yet to show it."""
    app = project.app()
    app.start_engine()
    deadline = time.monotonic() + 30
    while not app.reviewer.waiting:
        assert time.monotonic() < deadline, "the engine never asked for a review"
        time.sleep(0.01)
    return app


async def test_a_proposal_held_for_the_review_screen_is_in_its_first_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: what the engine posted while the review screen loaded (the launch's usual
    case) is handled before that screen is first laid out, which has the size classes and the
    footer's keys it keeps: its first layout, and the first frame drawn from it, hold the diff.
    An empty screen was laid out and drawn first, then laid out again for its size classes
    and its footer's keys (built after a refresh, again once the diff had the focus, and
    fitted to the width only once laid out: that frame's footer had lost Quit)."""
    app = app_with_a_proposal_held(make_tui_project(tmp_path))
    layouts: list[tuple[bool, set[str], list[str], list[str]]] = []
    lay_out = Screen._refresh_layout

    def footer(screen: Screen[object]) -> tuple[list[str], list[str]]:
        keys = list(screen.query(FooterKey))
        return [str(key.description) for key in keys if key.display], [
            str(key.description) for key in keys
        ]

    def laying_out(screen: Screen[object], *args: Any, **kwargs: Any) -> None:
        if isinstance(screen, ReviewScreen):
            diff_shown = screen.query_one(DiffView).change is not None
            layouts.append((diff_shown, set(screen.classes), *footer(screen)))
        lay_out(screen, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", laying_out)
    async with app.run_test(size=(120, 40)) as pilot:  # the benchmark's: not every key fits
        screen = await wait_for_review(pilot, app)
        await pilot.pause()
        shown, built = footer(screen)
        await pilot.press("q")

    diff_shown, classes, first_shown, first_built = layouts[0]
    assert diff_shown
    assert {"-wide", "-medium"} <= classes  # what Textual gives it on its first resize
    assert first_built == built and "Scroll sideways" in built  # the diff's key: it has focus
    assert first_shown == shown and "Quit" in shown and shown != built


def opened_run(project: TuiProject, released: list[str]) -> OpenedRun:
    return OpenedRun(
        project.paths,
        project.config(),
        project.spec(),
        project.provider(),
        RunOptions(max_retries=3),
        lambda: released.append("lock"),
    )


async def test_the_launch_paints_the_frame_then_opens_the_run_behind_it(tmp_path: Path) -> None:
    """``orch-tui SPEC`` on a terminal: the frame, its footer's keys included, is up before the
    run is opened (the opening thread starts after its first refresh), then the review screen
    replaces it and shows the proposal of the engine it started."""
    project = make_tui_project(tmp_path)
    seen: list[str] = []
    keys: list[str] = []
    gate = threading.Event()

    def open_run() -> OpenedRun:
        seen.append(type(app.screen).__name__)
        keys.extend(key.description for key in app.screen.query(FooterKey))
        gate.wait(10)
        return opened_run(project, [])

    app = OpeningApp(open_run, "spec.md", "vscode-dark", clock=frozen_clock)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: seen, "the opening thread")
        frame = app.screen
        assert isinstance(frame, LoadingScreen) and app.engine_thread is None
        assert "Opening the run" in str(frame.query_one("#diff", Static).render())
        gate.set()
        screen = await wait_for_review(pilot, app)
        assert app.screen is screen and frame not in app.screen_stack
        assert screen.query_one(DiffView).change is not None
        await pilot.press("q")
    assert seen == ["LoadingScreen"]
    assert "Quit" in keys  # in the first frame, not two refreshes later


async def test_a_run_that_cannot_open_ends_the_app_with_its_code(tmp_path: Path) -> None:
    def open_run() -> OpenedRun:
        raise Refused("state.json: not valid JSON", 3)

    app = OpeningApp(open_run, "spec.md", "vscode-dark")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.refused is not None, "the refusal")
        await pilot.pause()
    assert app.return_value == 3
    assert app.refused is not None and app.refused.message == "state.json: not valid JSON"


def test_run_review_shortens_the_switch_interval_and_leaves_before_the_run_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Threads hand the interpreter lock over every ``SWITCH_INTERVAL_S`` while the app runs;
    q before the run was opened leaves with 130 and nothing opened."""
    (tmp_path / "spec.md").write_text("# A spec\n", encoding="utf-8")
    seen: dict[str, object] = {}

    def run(app: OpeningApp) -> int:
        seen["interval"] = sys.getswitchinterval()
        return EXIT_INTERRUPTED

    monkeypatch.setattr(OpeningApp, "run", run)
    before = sys.getswitchinterval()

    code = run_review(run_parser().parse_args([str(tmp_path / "spec.md")]))

    assert code == EXIT_INTERRUPTED
    assert seen["interval"] == SWITCH_INTERVAL_S < before
    assert sys.getswitchinterval() == before


async def test_sighup_ends_the_process_at_once_instead_of_shutting_textual_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The terminal is gone: Textual's shutdown would write to it (seen to hang for good,
    holding the project's lock), so the handler ends the process with 130 straight away."""
    project = make_tui_project(tmp_path)
    app = project.app()
    exits: list[int] = []
    monkeypatch.setattr(os, "_exit", exits.append)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_review(pilot, app)
        os.kill(os.getpid(), signal.SIGHUP)  # handled by the app's loop, as the terminal closes
        await wait_for(pilot, lambda: exits, "the SIGHUP handler")
        assert app.is_running  # no shutdown was started
        await pilot.press("q")
    assert exits == [130]
