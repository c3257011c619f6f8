"""The history screens, driven with Pilot over logs the real engine wrote, plus snapshots.

Snapshots use a copy of the real runs with fixed run ids and timestamps (the engine's own
are the wall clock), shown in UTC.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from textual.app import App
from textual.widgets import DataTable, Input, OptionList, TabbedContent

from bench.synthetic_runs import write_synthetic_runs
from orch_tui.core.history import index as history_index
from orch_tui.core.history import index_open, run_query
from orch_tui.core.history.index_db import INDEX_NAME
from orch_tui.core.history.scan import RunSummary
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.util.terminal_text import is_unsafe
from orch_tui.themes import DEFAULT_THEME, register_themes, theme_variable_defaults
from orch_tui.tui import full_collections
from orch_tui.tui.messages import ResumeRun
from orch_tui.tui.screens.history import run as run_screen
from orch_tui.tui.screens.history import runs_list
from orch_tui.tui.screens.history.attempt import AttemptScreen
from orch_tui.tui.screens.history.compare import CompareScreen
from orch_tui.tui.screens.history.run import RunScreen
from orch_tui.tui.screens.history.runs_list import RunsScreen
from orch_tui.tui.widgets.diff.view import DiffView
from orch_tui.tui.widgets.runs_table import RunsTable
from tests.core.history.test_history import DEMO_SUCCESS, DemoProject
from tests.support.tui_support import wait_for, wait_for_history, wait_for_screen

SIZE = (120, 34)
pytestmark = pytest.mark.anyio

STABLE_IDS = ("20260301-090000-a001", "20260301-100000-b002", "20260301-110000-c003")


class HistoryHost(App[None]):
    """A bare app that opens the runs list, as ``orch-tui history`` does."""

    def __init__(self, logs: Path, state_path: Path) -> None:
        super().__init__()
        self.logs = logs
        self.state_path = state_path
        self.resumed: list[tuple[str, str]] = []
        self.runs_closed = False

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def on_mount(self) -> None:
        register_themes(self)
        self.theme = DEFAULT_THEME
        self.push_screen(RunsScreen(self.logs, self.state_path), callback=self._runs_dismissed)

    def _runs_dismissed(self, _result: object) -> None:
        self.runs_closed = True

    def on_resume_run(self, message: ResumeRun) -> None:
        self.resumed.append((message.run_id, message.spec_path))


@pytest.fixture
def project(demo_runs: DemoProject, tmp_path: Path) -> DemoProject:
    root = tmp_path / "project"
    shutil.copytree(demo_runs.root, root)
    return DemoProject(root, demo_runs.success, demo_runs.failed, demo_runs.unfinished)


@pytest.fixture
def utc() -> Iterator[None]:
    """Show times in UTC, whatever the machine's zone."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if old is None:
        os.environ.pop("TZ")
    else:
        os.environ["TZ"] = old
    time.tzset()


@pytest.fixture
def stable(project: DemoProject, utc: None) -> DemoProject:
    """The real runs renamed to fixed ids, their event times replaced by fixed ones."""
    old_ids = (project.success, project.failed, project.unfinished)
    for number, (old, new) in enumerate(zip(old_ids, STABLE_IDS, strict=True)):
        folder = project.logs / new
        (project.logs / old).rename(folder)
        start = f"2026-03-01T{9 + number:02d}:00"
        meta = json.loads((folder / runlog.RUN_META).read_text())
        meta.update(run_id=new, created_at=f"{start}:00.000Z")
        (folder / runlog.RUN_META).write_text(json.dumps(meta))
        lines = (folder / runlog.EVENTS).read_text().splitlines()
        events = []
        for second, line in enumerate(lines):
            event = json.loads(line)
            event["at"] = f"{start}:{second:02d}.000Z"
            if event.get("stop_reason"):  # a model error names the script's temporary path
                event["stop_reason"] = re.sub(r"/\S*/", "", event["stop_reason"])
            if "run_id" in event:
                event["run_id"] = new
            events.append(json.dumps(event))
        (folder / runlog.EVENTS).write_text("\n".join(events) + "\n")
    state = json.loads(project.state.read_text())
    state["run_id"] = STABLE_IDS[2]
    project.state.write_text(json.dumps(state))
    (project.logs / INDEX_NAME).unlink(missing_ok=True)
    return DemoProject(project.root, *STABLE_IDS)


async def _runs_loaded(pilot, app: HistoryHost) -> RunsScreen:  # type: ignore[no-untyped-def]
    return await wait_for_history(pilot, app, RunsScreen, "the runs list")


def _shown(app: HistoryHost) -> list[str]:
    screen = app.screen
    assert isinstance(screen, RunsScreen)
    return [run.run_id for run in screen.shown]


def _painted(table: RunsTable, y: int) -> list[str]:
    """The text of each column on line ``y`` of the table as painted (0 is the header)."""
    text = table.render_line(y).text
    cells, left = [], 0
    for width in table.column_widths:
        cells.append(text[left + 1 : left + 1 + width].strip())
        left += width + 2
    return cells


def _painted_row(table: RunsTable, row: int) -> list[str]:
    """The painted cells of run number ``row`` (the table scrolled to show it)."""
    table.scroll_to(y=row, animate=False, immediate=True)
    return _painted(table, 1 + row - round(table.scroll_y))


# -- the runs list ------------------------------------------------------------------------------


async def test_list_shows_real_runs_newest_first(project: DemoProject) -> None:
    app = HistoryHost(project.logs, project.state)
    async with app.run_test(size=SIZE) as pilot:
        await _runs_loaded(pilot, app)
        assert _shown(app) == [project.unfinished, project.failed, project.success]
        table = app.screen.query_one("#runs", RunsTable)
        assert len(table.runs) == 3
        assert _painted(table, 0) == [
            "When ↓",
            "Spec",
            "State",
            "Attempts",
            "Duration",
            "Tokens",
            "Cost",
            "Stop reason",
        ]
        assert _painted_row(table, 2)[2] == "SUCCESS"
        assert _painted_row(table, 0)[2] == "REVIEWING ↻"  # resumable


def _synthetic_runs(tmp_path: Path, count: int) -> tuple[HistoryHost, list[str]]:
    """An app over ``count`` synthetic runs, and their ids."""
    ids = write_synthetic_runs(tmp_path / "logs", count)
    return HistoryHost(tmp_path / "logs", tmp_path / "state.json"), ids


def _held(monkeypatch: pytest.MonkeyPatch, screen: ModuleType, name: str) -> threading.Event:
    """Make the ``screen`` module's ``name`` (a reader of the logs) wait for the returned event."""
    release = threading.Event()
    real = getattr(screen, name)

    def held(*args: object, **kwargs: object) -> object:
        assert release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(screen, name, held)
    return release


async def test_the_list_reads_the_runs_off_the_ui_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = _held(monkeypatch, runs_list, "recorded_then_checked")
    app, _ids = _synthetic_runs(tmp_path, 25)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_screen(pilot, app, RunsScreen, "the runs list")
        await pilot.pause()
        assert "loading…" in str(screen.query_one("#runs-title").render())
        assert "reading the runs" in str(screen.query_one("#runs-status").render())
        assert not screen.query_one("#runs", RunsTable).runs
        await pilot.press("7")  # the screen answers keys while the runs are read
        release.set()
        await wait_for_history(pilot, app, RunsScreen, "the runs list")
        costs = [run.cost_usd for run in screen.shown]
        assert len(costs) == 25 and costs == sorted(costs, reverse=True)
        assert "25 runs · sorted by Cost ↓" in str(screen.query_one("#runs-title").render())


async def test_the_recorded_runs_show_while_every_folder_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With an index file, its runs are on screen, and filtered as a person types, before
    the folders are checked."""
    app, ids = _synthetic_runs(tmp_path, 25)
    history_index.build_index(tmp_path / "logs")  # the index file a launch after the first finds
    # the check's first step, the listing of the folders there are, waits for ``release``
    release = _held(monkeypatch, history_index, "_listing")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_screen(pilot, app, RunsScreen, "the runs list")
        await wait_for(pilot, lambda: len(screen.shown) == 25, "the recorded runs")
        assert not screen.loaded
        assert "25 runs" in str(screen.query_one("#runs-title").render())
        await pilot.press("slash", *ids[3])
        await wait_for(pilot, lambda: len(screen.shown) == 1, "the filtered recorded runs")
        assert [run.run_id for run in screen.shown] == [ids[3]] and not screen.loaded

        release.set()
        await wait_for_history(pilot, app, RunsScreen, "the checked runs")
        await pilot.pause()
        assert [run.run_id for run in screen.shown] == [ids[3]]


async def test_the_runs_table_reads_only_the_rows_it_shows_from_the_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However many runs there are, the list reads from the index the pages of the rows on
    screen (and counts the rest): on opening, after ``end``, and for each key of a filter."""
    monkeypatch.setattr(run_query, "PAGE", 16)  # five pages of 80 runs, a screen two or three
    runs = 80
    app, ids = _synthetic_runs(tmp_path, runs)

    def read_for(first: int, last: int) -> int:
        """The rows of the pages that hold rows ``first`` to ``last``."""
        return sum(min(16, runs - page * 16) for page in range(first // 16, last // 16 + 1))

    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_history(pilot, app, RunsScreen, "the runs list")
        await pilot.pause()
        table = screen.query_one("#runs", RunsTable)
        visible = table.scrollable_content_region.height - 1
        assert len(table.runs) == runs and table.runs is screen.shown
        assert screen.shown.fetched == read_for(0, visible - 1)  # the rows on screen
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_run is not None and table.cursor_run.run_id == ids[0]
        at_end = read_for(0, visible - 1) + read_for(runs - visible, runs - 1)
        assert screen.shown.fetched == at_end < runs  # and those of the last screenful
        await pilot.press("slash", *"tag001")
        await pilot.pause()
        assert len(screen.shown) == 10 and screen.shown.fetched == 10
        assert "10 of 80 runs" in str(screen.query_one("#runs-title").render())


async def test_a_run_added_while_the_list_is_open_shows_once_the_folders_are_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, ids = _synthetic_runs(tmp_path, 25)
    history_index.build_index(tmp_path / "logs")
    release = _held(monkeypatch, history_index, "_listing")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_screen(pilot, app, RunsScreen, "the runs list")
        await wait_for(pilot, lambda: len(screen.shown) == 25, "the recorded runs")
        logs = tmp_path / "logs"
        shutil.copytree(logs / ids[3], logs / "20990101-000000-added")  # another run's writer
        release.set()
        await wait_for_history(pilot, app, RunsScreen, "the checked runs")
        await wait_for(pilot, lambda: len(screen.shown) == 26, "the added run")
        assert screen.highlighted is not None
        await pilot.press("slash", *"added")
        await wait_for(pilot, lambda: len(screen.shown) == 1, "the added run found")
        assert [run.run_id for run in screen.shown] == ["20990101-000000-added"]


async def test_a_logs_folder_that_cannot_be_written_lists_the_runs_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ids = _synthetic_runs(tmp_path, 5)
    real = index_open._connect

    def read_only(path: str) -> Any:
        if path != ":memory:":
            raise sqlite3.OperationalError("unable to open database file")
        return real(path)

    monkeypatch.setattr(index_open, "_connect", read_only)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_history(pilot, app, RunsScreen, "the runs list")
        await pilot.pause()
        assert len(screen.shown) == 5
        notes = [note.message for note in app._notifications]
        assert any("cannot be written" in note for note in notes), notes
    assert not (tmp_path / "logs" / INDEX_NAME).exists()


async def test_a_check_that_finds_the_record_reuses_the_list_made_from_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing changed since the index file was written: the resumable run is looked for and
    the columns fitted once, and the screen is loaded all the same."""
    app, _ids = _synthetic_runs(tmp_path, 25)
    history_index.build_index(tmp_path / "logs")
    marked: list[int] = []
    mark = runs_list.resumable_id

    def counted(index: Any, state: Path) -> str | None:
        marked.append(len(index))
        return mark(index, state)

    monkeypatch.setattr(runs_list, "resumable_id", counted)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_history(pilot, app, RunsScreen, "the runs list")
        assert len(screen.shown) == 25
    assert marked == [25]


async def test_the_folder_check_waits_for_the_recorded_list_on_screen_and_draws_it_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check (two stats a run) does not take turns with the UI thread at drawing the
    recorded list: it starts once the list is painted, and when it finds every run as
    recorded the list is not drawn again."""
    app, _ids = _synthetic_runs(tmp_path, 25)
    history_index.build_index(tmp_path / "logs")
    on_screen_at_check: list[int] = []
    check = history_index._listing

    def watched_check(*args: object) -> object:
        on_screen_at_check.append(len(app.screen.query_one("#runs", RunsTable).runs))
        return check(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(history_index, "_listing", watched_check)
    drawn: list[int] = []
    set_runs = RunsTable.set_runs

    def counted(table: RunsTable, runs: Sequence[RunSummary], **kwargs: bool) -> None:
        drawn.append(len(runs))
        set_runs(table, runs, **kwargs)

    monkeypatch.setattr(RunsTable, "set_runs", counted)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_history(pilot, app, RunsScreen, "the checked runs")
        await pilot.pause()
        assert len(screen.shown) == 25
    assert on_screen_at_check == [25]
    assert [count for count in drawn if count] == [25]


async def test_the_runs_read_are_kept_off_full_collections_while_the_list_is_open(
    tmp_path: Path,
) -> None:
    """Once read, checked and laid out for searching, the runs are kept off full collections
    (one walking 100,000 runs' objects was a 0.1 s keystroke every few keys); leaving the list
    lets go, so that they can be collected."""
    app, _ids = _synthetic_runs(tmp_path, 25)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_history(pilot, app, RunsScreen, "the checked runs")
        await wait_for(pilot, full_collections.held, "full collections held off")
        assert screen.total == 25
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.runs_closed, "the list closed")
        assert not full_collections.held()


class ManualTimer:
    """Stands in for the runs screen's quiet-time timer: it fires when the test says the quiet
    time has passed, and counts the restarts, so nothing depends on how fast the machine is."""

    def __init__(self, callback: Callable[[], object]) -> None:
        self.callback = callback
        self.restarts = 0

    def reset(self) -> None:
        self.restarts += 1

    def fire(self) -> None:
        self.callback()


async def test_keys_typed_in_the_filter_hold_the_folder_check_off_until_it_is_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person filtering as the list appears has the interpreter to themselves: the check
    waits for the quiet time, which each key in the filter restarts, and runs once it passes."""
    app, ids = _synthetic_runs(tmp_path, 25)
    history_index.build_index(tmp_path / "logs")
    quiet = 123.0
    monkeypatch.setattr(RunsScreen, "QUIET_S", quiet)
    # The cap on the wait is another rule (a busy UI never holds the check off for long):
    # lifted here, so a loaded machine's slow keys cannot reach it before the timer fires.
    monkeypatch.setattr(RunsScreen, "CHECK_WAIT_MAX_S", 600.0)
    timers: list[ManualTimer] = []
    set_timer = RunsScreen.set_timer

    def quiet_time_by_hand(
        screen: RunsScreen, delay: float, callback: Any = None, **kw: Any
    ) -> Any:
        if delay != quiet:
            return set_timer(screen, delay, callback, **kw)
        timers.append(ManualTimer(callback))
        return timers[-1]

    monkeypatch.setattr(RunsScreen, "set_timer", quiet_time_by_hand)
    checked: list[bool] = []
    check = history_index._listing

    def watched_check(*args: object) -> object:
        checked.append(True)
        return check(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(history_index, "_listing", watched_check)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_screen(pilot, app, RunsScreen, "the runs list")
        await wait_for(pilot, lambda: len(timers) == 1, "the recorded list drawn")
        await pilot.press("slash", *ids[3])
        await wait_for(pilot, lambda: len(screen.shown) == 1, "the filtered recorded runs")
        assert timers[0].restarts == len(ids[3])  # each key in the filter
        assert checked == [] and not screen.loaded

        timers[0].fire()  # the quiet time has passed
        await wait_for_history(pilot, app, RunsScreen, "the checked runs")
        assert checked == [True]
        assert [run.run_id for run in screen.shown] == [ids[3]]


async def test_closing_while_the_worker_waits_for_the_list_to_be_drawn_checks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker waits for the recorded list to be painted before it checks the folders; an
    app closed before that releases it at once, and it checks nothing: a person who quits at
    once does not wait for the check, nor for the wait."""
    app, _ids = _synthetic_runs(tmp_path, 25)
    history_index.build_index(tmp_path / "logs")
    monkeypatch.setattr(RunsScreen, "CHECK_WAIT_MAX_S", 2.0)
    release = _held(
        monkeypatch, runs_list, "resumable_id"
    )  # the record is posted after the app closed
    resumed: list[bool] = []
    finished = threading.Event()
    read = runs_list.recorded_then_checked

    def watched(*args: Any, **kwargs: Any) -> Iterator[Any]:
        try:
            indexes = read(*args, **kwargs)
            yield next(indexes)
            resumed.append(True)  # the worker went on to the check
            yield from indexes
        finally:
            finished.set()

    monkeypatch.setattr(runs_list, "recorded_then_checked", watched)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(pilot, app, RunsScreen, "the runs list")
    release.set()
    assert finished.wait(30)
    assert resumed == []


async def test_a_run_says_loading_until_its_worker_has_read_it(
    project: DemoProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = _held(monkeypatch, run_screen, "load_run")
    app = HistoryHost(project.logs, project.state)
    async with app.run_test(size=SIZE) as pilot:
        await _runs_loaded(pilot, app)
        await pilot.press("down", "down", "enter")
        screen = await wait_for_screen(pilot, app, RunScreen, "the run")
        await pilot.pause()
        assert "loading…" in str(screen.query_one("#run-title").render())
        assert not screen.query_one("#run-body").display
        release.set()
        await wait_for_history(pilot, app, RunScreen, "the run")
        assert screen.query_one("#run-body").display
        assert screen.query_one("#attempts", DataTable).row_count == 2


async def test_sort_keys_and_reverse(tmp_path: Path) -> None:
    app, _ids = _synthetic_runs(tmp_path, 25)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _runs_loaded(pilot, app)
        await pilot.press("7")  # cost, largest first
        costs = [run.cost_usd for run in screen.shown]
        assert costs == sorted(costs, reverse=True)
        await pilot.press("7")
        assert [run.cost_usd for run in screen.shown] == sorted(costs)
        await pilot.press("2")  # spec, A to Z
        names = [run.spec_name for run in screen.shown]
        assert names == sorted(names)
        heading = _painted(screen.query_one("#runs", RunsTable), 0)
        assert heading[:2] == ["When", "Spec ↑"]


async def test_clicking_a_header_sorts_by_that_column(tmp_path: Path) -> None:
    app, _ids = _synthetic_runs(tmp_path, 10)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _runs_loaded(pilot, app)
        table = screen.query_one("#runs", RunsTable)
        x = sum(width + 2 for width in table.column_widths[:5])
        await pilot.click(table, offset=(x + 2, 0))  # the Tokens header
        await pilot.pause()
        assert screen.sort_column == "tokens"
        tokens = [run.tokens for run in screen.shown]
        assert tokens == sorted(tokens, reverse=True)


async def test_filter_as_you_type_then_escape_clears_it(tmp_path: Path) -> None:
    app, ids = _synthetic_runs(tmp_path, 30)
    async with app.run_test(size=SIZE) as pilot:
        await _runs_loaded(pilot, app)
        await pilot.press("slash")
        filter_input = app.screen.query_one("#runs-filter", Input)
        assert filter_input.has_focus and filter_input.display
        await pilot.press(*"tag001")
        assert set(_shown(app)) == set(ids[10:20])
        await pilot.press("5")
        assert _shown(app) == [ids[15]]  # text inside the spec
        await pilot.press("enter")
        assert app.screen.query_one("#runs", RunsTable).has_focus
        await pilot.press("escape")
        assert len(_shown(app)) == 30 and filter_input.value == "" and not filter_input.display
        assert not app.runs_closed
        await pilot.press("escape")
        assert app.runs_closed


async def test_enter_opens_a_run_and_escape_comes_back(project: DemoProject) -> None:
    app = HistoryHost(project.logs, project.state)
    async with app.run_test(size=SIZE) as pilot:
        await _runs_loaded(pilot, app)
        await pilot.press("down", "down", "enter")
        screen = await wait_for_history(pilot, app, RunScreen, "the run")
        assert screen.run_id == project.success
        await pilot.press("escape")
        assert isinstance(app.screen, RunsScreen)


async def test_r_resumes_only_a_resumable_run(project: DemoProject) -> None:
    app = HistoryHost(project.logs, project.state)
    async with app.run_test(size=SIZE) as pilot:
        await _runs_loaded(pilot, app)
        await pilot.press("down", "r")  # the failed run
        await pilot.pause()
        assert app.resumed == []
        assert any("already finished" in str(n.message) for n in app._notifications)
        await pilot.press("up", "r")  # the unfinished run in state.json
        await pilot.pause()
        assert app.resumed == [(project.unfinished, "spec.md")]


async def test_a_damaged_run_is_listed_and_opens(project: DemoProject) -> None:
    folder = project.logs / project.success
    (folder / runlog.EVENTS).write_text("not json\n")
    (folder / "attempt-00" / runlog.PROPOSAL).write_text("{")
    app = HistoryHost(project.logs, project.state)
    async with app.run_test(size=SIZE) as pilot:
        await _runs_loaded(pilot, app)
        table = app.screen.query_one("#runs", RunsTable)
        row = _shown(app).index(project.success)
        cells = _painted_row(table, row)
        assert cells[2] == "DAMAGED"
        assert "events.jsonl line 1" in cells[7]
        table.cursor_row = row
        await pilot.press("enter")
        await wait_for_history(pilot, app, RunScreen, "the damaged run")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, AttemptScreen)
        assert app.screen.query_one("#diff", DiffView).change is None


# -- a run, an attempt, a compare -----------------------------------------------------------


async def _open_run(pilot, app: HistoryHost, run_id: str) -> RunScreen:  # type: ignore[no-untyped-def]
    await _runs_loaded(pilot, app)
    table = app.screen.query_one("#runs", RunsTable)
    table.cursor_row = _shown(app).index(run_id)
    await pilot.press("enter")
    return await wait_for_history(pilot, app, RunScreen, f"run {run_id}")


async def test_run_screen_shows_timeline_and_grid(project: DemoProject) -> None:
    app = HistoryHost(project.logs, project.state)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_run(pilot, app, project.success)
        attempts = screen.query_one("#attempts", DataTable)
        assert attempts.row_count == 2
        assert [str(attempts.get_row_at(i)[2]) for i in range(2)] == ["failed", "passed"]
        grid = screen.query_one("#grid", DataTable)
        first = grid.get_row_at(0)
        assert str(first[0]).endswith("test_counting_ignores_case")
        assert [str(cell) for cell in first[1:]] == ["✗", "✓"]
        assert grid.row_count == 5


async def test_attempt_screen_shows_proposal_decisions_report_and_text(
    project: DemoProject,
) -> None:
    app = HistoryHost(project.logs, project.state)
    async with app.run_test(size=SIZE) as pilot:
        await _open_run(pilot, app, project.success)
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, AttemptScreen) and screen.attempt.number == 0
        diff = screen.query_one("#diff", DiffView)
        assert diff.change is not None and diff.change.path == "tests/test_wordstats.py"
        assert screen.query_one("#files", OptionList).option_count == 2
        await pilot.press("right_curly_bracket")
        assert diff.change.path == "wordstats.py"
        await pilot.press("v")
        assert diff.diff_layout == "unified"
        decisions = str(screen.query_one("#attempt-decisions").render())
        assert decisions.startswith("2 hunks accepted (2 by default)\n")
        report = str(screen.query_one("#attempt-report").render())
        assert "4 passed, 1 failed" in report and "test_counting_ignores_case" in report
        tabs = screen.query_one("#attempt-tabs", TabbedContent)
        await pilot.press("t")
        assert tabs.active == "tab-tests"
        title = str(screen.query_one("#attempt-title").render())
        assert "10,642 tokens" in title and "$0.0207" in title
        await pilot.press("escape")
        assert isinstance(app.screen, RunScreen)


async def test_c_twice_compares_two_attempts(project: DemoProject) -> None:
    app = HistoryHost(project.logs, project.state)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_run(pilot, app, project.success)
        await pilot.press("c")
        assert screen.marked == 0
        await pilot.press("down", "c")
        await pilot.pause()
        compare = app.screen
        assert isinstance(compare, CompareScreen) and (compare.a, compare.b) == (0, 1)
        assert [change.path for change, _d in compare.files] == ["wordstats.py"]
        assert compare.query_one("#diff", DiffView).change.path == "wordstats.py"
        await pilot.press("escape")
        assert app.screen is screen and screen.marked is None


async def test_escape_clears_a_mark_before_leaving(project: DemoProject) -> None:
    app = HistoryHost(project.logs, project.state)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_run(pilot, app, project.success)
        await pilot.press("c", "escape")
        assert screen.marked is None and app.screen is screen
        await pilot.press("escape")
        assert isinstance(app.screen, RunsScreen)


# -- snapshots ----------------------------------------------------------------------------------


def _after(*keys: str, then: type[RunsScreen] | type[RunScreen] = RunsScreen):  # type: ignore[no-untyped-def]
    """A snapshot's ``run_before``: wait for the runs list, press ``keys``, and wait for the
    screen they lead to (``then``) to have read what it shows."""

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await wait_for_history(pilot, pilot.app, RunsScreen, "the runs list")
        await pilot.press(*keys)
        await wait_for_history(pilot, pilot.app, then, "the screen to snapshot")

    return run_before


def test_snapshot_runs_list(snap_compare, stable: DemoProject) -> None:  # type: ignore[no-untyped-def]
    app = HistoryHost(stable.logs, stable.state)
    assert snap_compare(app, terminal_size=SIZE, run_before=_after())


def test_snapshot_run(snap_compare, stable: DemoProject) -> None:  # type: ignore[no-untyped-def]
    app = HistoryHost(stable.logs, stable.state)
    run_before = _after("down", "down", "enter", then=RunScreen)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_attempt(snap_compare, stable: DemoProject) -> None:  # type: ignore[no-untyped-def]
    app = HistoryHost(stable.logs, stable.state)
    run_before = _after("down", "down", "enter", then=RunScreen)
    assert snap_compare(app, terminal_size=SIZE, press=["down", "enter"], run_before=run_before)


def test_snapshot_compare(snap_compare, stable: DemoProject) -> None:  # type: ignore[no-untyped-def]
    app = HistoryHost(stable.logs, stable.state)
    run_before = _after("down", "down", "enter", then=RunScreen)
    press = ["c", "down", "c"]
    assert snap_compare(app, terminal_size=SIZE, press=press, run_before=run_before)


def reword(project: DemoProject, stop_reason: str, test_id: str) -> None:
    """Give the successful run ``stop_reason`` (as JSON text) and its first test ``test_id``."""
    folder = project.logs / project.success
    events = (folder / runlog.EVENTS).read_text()
    events = events.replace(DEMO_SUCCESS, stop_reason)
    (folder / runlog.EVENTS).write_text(events)
    report_path = folder / "attempt-01" / runlog.REPORT
    report = json.loads(report_path.read_text())
    report["checks"][0]["tests"][0]["id"] = test_id
    report_path.write_text(json.dumps(report))


@pytest.mark.parametrize(
    ("stop_reason", "test_id", "shown_reason", "shown_id"),
    [
        pytest.param(
            "stopped [bold]early[/bold]",
            "tests/t.py::test_x[red-1]",
            "stopped [bold]early[/bold]",
            "tests/t.py::test_x[red-1]",
            id="brackets-shown-as-text",
        ),
        pytest.param(
            "stopped \\u001b[2J\\r",
            "tests/t.py::test_x\x1b]0;title\x07",
            "stopped \\x1b[2J\\r",  # as `history` prints it
            "tests/t.py::test_x\\x1b]0;title\\x07",
            id="control-characters-spelt-out",
        ),
        pytest.param(
            "stopped \u202eenod\u200b",
            "tests/t.py::test_\u2066x\ufeff\U000e0041",
            "stopped \\u202eenod\\u200b",
            "tests/t.py::test_\\u2066x\\ufeff\\U000e0041",
            id="bidi-and-invisible-characters-spelt-out",
        ),
    ],
)
async def test_reasons_and_test_ids_are_shown_as_written(
    project: DemoProject, stop_reason: str, test_id: str, shown_reason: str, shown_id: str
) -> None:
    reword(project, stop_reason, test_id)
    app = HistoryHost(project.logs, project.state)
    async with app.run_test(size=SIZE) as pilot:
        await _runs_loaded(pilot, app)
        table = app.screen.query_one("#runs", RunsTable)
        row = _shown(app).index(project.success)
        assert _painted_row(table, row)[7] == shown_reason
        screen = await _open_run(pilot, app, project.success)
        facts = str(screen.query_one("#run-facts").render())
        assert f"stop reason: {shown_reason}" in facts
        grid = screen.query_one("#grid", DataTable)
        ids = [str(grid.get_row_at(i)[0]) for i in range(grid.row_count)]
        assert shown_id in ids
        assert not any(is_unsafe(char) for text in [facts, *ids] for char in text if char != "\n")


async def test_a_run_shows_what_it_follows_and_what_follows_it(project: DemoProject) -> None:
    meta_path = project.logs / project.failed / runlog.RUN_META
    meta = json.loads(meta_path.read_text())
    meta["follows"] = project.success  # as a change run records it
    meta_path.write_text(json.dumps(meta))
    app = HistoryHost(project.logs, project.state)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_run(pilot, app, project.success)
        facts = str(screen.query_one("#run-facts").render())
        assert f"followed by {project.failed}" in facts and "follows " not in facts
        await pilot.press("escape")
        screen = await _open_run(pilot, app, project.failed)
        facts = str(screen.query_one("#run-facts").render())
        assert f"follows {project.success}" in facts and "followed by" not in facts
