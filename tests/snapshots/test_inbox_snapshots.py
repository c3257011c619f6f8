"""Snapshots of ``orch-tui inbox``: the list of waiting runs, and an opened run's review.

The batch is a real one (``orch-tui batch`` on the scripted provider, two specs) made once for
the module with a fixed id (``--batch snap``); the runs' finish times are set so the list's
order (newest first) is fixed, and the landing target is a fixed path, so nothing of this
machine or this moment is on screen.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from orch_tui.core.batch.landing import Target
from orch_tui.core.config.models import load_config
from orch_tui.core.config.paths import STATE_NAME
from orch_tui.tui.inbox_app import InboxApp
from orch_tui.tui.screens.inbox.review import InboxReviewScreen
from orch_tui.tui.screens.inbox.runs import InboxScreen
from tests.support.inbox_support import make_batch_project, run_batch
from tests.support.tui_support import wait_for, wait_for_screen, wait_for_trial

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
TARGET = Target(Path("/home/me/app"))
"""Where accepted hunks would land: shown in the review's header, never written."""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_batch_project(tmp_path_factory.mktemp("inbox") / "project")
    run_batch(root, "--batch", "snap")
    for age, name in enumerate(("two", "one")):  # "two" finished last: listed first
        when = 1_790_000_000 - 60 * age
        os.utime(root / "batches" / "snap" / name / STATE_NAME, (when, when))
    return root


def inbox_app(project: Path) -> InboxApp:
    return InboxApp(project, load_config(project / "orchestrator.toml"), lambda entry: TARGET)


def the_list(app: InboxApp) -> Callable[[Any], Awaitable[None]]:
    async def run_before(pilot: Any) -> None:
        screen = await wait_for_screen(pilot, app, InboxScreen, "the inbox list")
        screen.query_one(Input).cursor_blink = False  # the cursor is on in every picture
        await wait_for(pilot, lambda: len(screen.shown) == 2, "both runs listed")
        await pilot.pause()

    return run_before


def the_opened_run(app: InboxApp) -> Callable[[Any], Awaitable[None]]:
    async def run_before(pilot: Any) -> None:
        await the_list(app)(pilot)
        await pilot.press("enter")
        screen = await wait_for_screen(pilot, app, InboxReviewScreen, "the run's review")
        await wait_for(pilot, lambda: screen.session is not None, "the run's change")
        await wait_for_trial(pilot, screen)  # the checks on a scratch copy, run as it opens
        await pilot.pause()

    return run_before


@SIZES
def test_the_inbox_list(snap_compare: Any, project: Path, size: tuple[int, int]) -> None:
    app = inbox_app(project)
    assert snap_compare(app, terminal_size=size, run_before=the_list(app))


def test_an_opened_run(snap_compare: Any, project: Path) -> None:
    """120x40 only: the review screen's own snapshots cover its small terminals."""
    app = inbox_app(project)
    assert snap_compare(app, terminal_size=(120, 40), run_before=the_opened_run(app))
