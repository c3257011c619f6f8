"""What the review screen does before a big proposal's first diff (issue 26, item 4).

The engine posts an event for every edit, and a 200-file proposal's edits arrive while the
screen waits for the proposal: anything the screen does per edit, or per file before the
first file's diff is painted, delays that diff."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from orch_tui.core.domain.events import Event
from orch_tui.tui.app import OrchApp
from orch_tui.tui.messages import EngineEvents
from orch_tui.tui.widgets.following_log import FollowingLog
from tests.support.e2e_support import attempt_turns
from tests.support.tui_support import SIZE, make_tui_project, wait_for_review

pytestmark = pytest.mark.anyio

FILES = 40


@pytest.fixture(autouse=True)
def _fast_workspace_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def many_files_project(tmp_path: Path) -> Any:
    paths = [f"pkg/mod_{n:02d}.py" for n in range(FILES)]
    edits = [("create", path, f"VALUE = {n}\n") for n, path in enumerate(paths)]
    return make_tui_project(tmp_path, [attempt_turns("Many.", edits)], seed={})


async def test_the_edits_lines_reach_the_model_log_in_a_few_writes_before_the_first_diff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes: list[str] = []
    write = FollowingLog.write

    def counted(log: FollowingLog, data: str, scroll_end: bool | None = None) -> FollowingLog:
        if log.id == "model-log":
            writes.append(data)
        return write(log, data, scroll_end)

    monkeypatch.setattr(FollowingLog, "write", counted)
    app = many_files_project(tmp_path).app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        # One write per edit laid the screen out again on nearly every frame meanwhile.
        assert len(writes) <= 4, writes
        lines = [line for line in screen.model_log.lines if "✎" in line]
        assert lines == [f"  ✎ create pkg/mod_{n:02d}.py" for n in range(FILES)]
        await pilot.press("q")


async def test_the_engines_events_stop_at_the_review_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The screen shows each event; one that went on up to the app (nothing there reads it)
    was queued and dispatched a second time: 200 more messages before a 200-file diff. And
    the events come several to a message: one each was a wake-up of the UI thread and a
    dispatch per edit."""
    reached_the_app: list[object] = []
    monkeypatch.setattr(
        OrchApp,
        "on_engine_events",
        lambda app, message: reached_the_app.append(message),
        raising=False,
    )
    taken: list[int] = []
    take = EngineEvents.take

    def counted(message: EngineEvents) -> list[Event]:
        events = take(message)
        taken.append(len(events))
        return events

    monkeypatch.setattr(EngineEvents, "take", counted)
    app = many_files_project(tmp_path).app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        assert len([line for line in screen.model_log.lines if "✎" in line]) == FILES
        assert reached_the_app == []
        assert sum(taken) > FILES  # the edits, the states, the proposal
        assert len(taken) < sum(taken) / 2, taken
        await pilot.press("q")
