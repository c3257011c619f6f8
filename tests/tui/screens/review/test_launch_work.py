"""What the review screen does between the launch's frame and its first diff (issue 26, item 1).

Everything after the frame runs on one interpreter lock, so only work removed brings the diff
sooner: these count the work (widgets styled, ...), never its time."""

from __future__ import annotations

import gc
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets._footer import FooterKey

from orch_tui.tui.cli import executable
from orch_tui.tui.cli.run import OpenedRun
from orch_tui.tui.launch import OpeningApp
from orch_tui.tui.screens.loading import LoadingScreen
from orch_tui.tui.screens.review import decisions, trial
from orch_tui.tui.screens.review.screen import ReviewScreen
from orch_tui.tui.widgets.diff.view import DiffView
from tests.support.tui_support import frozen_clock, make_tui_project, wait_for, wait_for_review
from tests.tui.test_tui_app import app_with_a_proposal_held, opened_run

pytestmark = pytest.mark.anyio


def on_review_screen(node: DOMNode) -> bool:
    try:
        return isinstance(node, Widget) and isinstance(node.screen, ReviewScreen)
    except Exception:  # noqa: BLE001 - not mounted yet: no screen
        return False


async def test_the_review_screens_widgets_are_styled_once_before_its_first_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual styles a widget when it is mounted, and its whole subtree again for every class
    or focus change and every showing of its screen. Before the first diff the review screen
    was styled about twice over: again as it was shown, the spec pane's subtree as it took the
    focus first and gave it to the diff, each footer key for its compact class. Only the diff
    (its focus) and the tabs and the header (the state the held events leave) change after
    their mounting now."""
    app = app_with_a_proposal_held(make_tui_project(tmp_path))
    styled: Counter[Widget] = Counter()
    laid_out: list[ReviewScreen] = []
    apply = Stylesheet.apply

    def counting(stylesheet: Stylesheet, node: DOMNode, *args: Any, **kwargs: Any) -> None:
        if not laid_out and on_review_screen(node):
            assert isinstance(node, Widget)
            styled[node] += 1
        apply(stylesheet, node, *args, **kwargs)

    lay_out = Screen._refresh_layout

    def laying_out(screen: Screen[object], *args: Any, **kwargs: Any) -> None:
        if isinstance(screen, ReviewScreen):
            laid_out.append(screen)
        lay_out(screen, *args, **kwargs)

    monkeypatch.setattr(Stylesheet, "apply", counting)
    monkeypatch.setattr(Screen, "_refresh_layout", laying_out)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for_review(pilot, app)
        await pilot.press("q")

    assert len(styled) > 40  # the screen's widgets, the spec's Markdown and the footer's keys
    again = {type(widget).__name__ for widget, times in styled.items() if times > 1}
    assert again <= {"DiffView", "ContentTab", "RunHeader"}, styled


async def test_the_frames_footer_keys_are_built_once(tmp_path: Path) -> None:
    """The launch's frame builds its footer's keys with itself; the screen's telling of its
    bindings after its first refresh rebuilt the same keys and laid the frame out twice more,
    on the UI thread while the run was opening."""
    project = make_tui_project(tmp_path)
    opening: list[list[FooterKey]] = []
    gate = threading.Event()

    def open_run() -> OpenedRun:
        opening.append(list(app.screen.query(FooterKey)))
        gate.wait(10)
        return opened_run(project, [])

    app = OpeningApp(open_run, "spec.md", "vscode-dark", clock=frozen_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: opening, "the opening thread")
        await pilot.pause(0.2)
        assert isinstance(app.screen, LoadingScreen)
        assert list(app.screen.query(FooterKey)) == opening[0] != []
        gate.set()
        await wait_for_review(pilot, app)
        await pilot.press("q")


async def test_the_review_screen_is_not_laid_out_again_for_the_size_of_its_first_layout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A screen's layout sends it a Resize for the size it was laid out at, and Textual laid the
    whole review screen out again for each: four layouts at the launch's size where two are
    asked for (its first, then one a widget asks for once drawn), after the first diff and
    before any key. A real resize still lays it out, with the size classes of the new size."""
    app = app_with_a_proposal_held(make_tui_project(tmp_path))
    layouts: list[object] = []
    lay_out = Screen._refresh_layout

    def laying_out(screen: Screen[object], *args: Any, **kwargs: Any) -> None:
        if isinstance(screen, ReviewScreen):
            layouts.append(screen.size)
        lay_out(screen, *args, **kwargs)

    monkeypatch.setattr(Screen, "_refresh_layout", laying_out)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_review(pilot, app)
        await pilot.pause()
        settled = len(layouts)
        await pilot.resize_terminal(80, 30)
        await pilot.pause()
        assert len(layouts) > settled and screen.size == (80, 30)
        assert {"-narrow", "-short"} <= screen.classes and "-wide" not in screen.classes
        await pilot.press("q")
    assert layouts[:settled].count(layouts[0]) == 2, layouts


async def test_the_auto_trial_waits_for_refreshes_with_no_layout(tmp_path: Path) -> None:
    """After the first diff the screen lays itself out a few more times (scroll bars, the
    footer, a notice's toast, the state changes): the trial's copy and checks, started after
    the first refresh, took the interpreter lock from that settling and from the first key.
    A layout since the auto trial's last look holds it back; refreshes with none start it."""
    app = app_with_a_proposal_held(make_tui_project(tmp_path))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await wait_for_review(pilot, app)
        assert screen.session is not None and not screen.trial_started  # no sandbox: no trial
        assert screen.layouts >= 1  # its first layout, the diff in it
        screen._start_auto_trial(screen.session, screen.layouts - 1)
        assert not screen.trial_started and screen.trial_quiet == 0
        await wait_for(pilot, lambda: screen.trial_started, "the trial, the screen quiet")
        assert screen.trial_quiet == trial.AUTO_TRIAL_QUIET_REFRESHES
        assert screen.trial_text == trial.TRIAL_RUNNING
        await pilot.press("q")


async def test_the_launch_collects_no_garbage_until_the_first_diff_is_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The executable starts with the collector off (cli/executable.py). Turned on as the run
    opened, it collected ~150 times before and around the demo's first diff, walking the
    review screen's modules, widgets and the proposal as they were made; it comes on once that
    diff is drawn, with all of them frozen."""
    project = make_tui_project(tmp_path)
    collections: list[int] = []
    turned_on: list[tuple[int, bool]] = []

    def collected(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    def start_collecting() -> None:
        screen = app.review_screen
        drawn = screen is not None and screen.query_one(DiffView).change is not None
        turned_on.append((len(collections), drawn))
        executable.start_collecting()

    monkeypatch.setattr(decisions, "start_collecting", start_collecting)
    monkeypatch.setattr("orch_tui.tui.launch.start_collecting", start_collecting)
    app = OpeningApp(lambda: opened_run(project, []), "spec.md", "vscode-dark", clock=frozen_clock)
    gc.disable()  # as the executable's main() does
    gc.callbacks.append(collected)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_for_review(pilot, app)
            await wait_for(pilot, lambda: turned_on, "the collector on")
            await pilot.press("q")
    finally:
        gc.callbacks.remove(collected)
        gc.unfreeze()
        gc.enable()
    assert turned_on[0] == (0, True), turned_on
