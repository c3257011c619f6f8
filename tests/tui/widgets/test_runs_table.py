"""RunsTable, the Line API runs list: only visible rows are drawn, cursor, header, colours.

The first tests drive the widget alone over 1,000 in-memory runs; the last ones drive the
history screen over 1,000 run folders on disk (ten written by the synthetic-runs generator,
the rest copies of them under new ids, their attempt folders linked rather than copied).
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from rich.style import Style as RichStyle
from textual.app import App, ComposeResult
from textual.color import Color
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widgets import Input

from bench.synthetic_runs import write_synthetic_runs
from orch_tui.core.history import run_query
from orch_tui.core.history.run_query import PAGE
from orch_tui.core.history.scan import RunSummary
from orch_tui.themes import DEFAULT_THEME, register_themes, theme_variable_defaults
from orch_tui.tui.screens.history.run import RunScreen
from orch_tui.tui.screens.history.runs_list import RunsScreen
from orch_tui.tui.widgets.runs_table import RunsTable
from tests.support.tui_support import count_layouts, wait_for, wait_for_history

pytestmark = pytest.mark.anyio

SIZE = (140, 30)
COUNT = 1000


def make_run(index: int, **changes: object) -> RunSummary:
    run = RunSummary(
        run_id=f"run-{index:04d}",
        started=f"2026-01-01T00:00:{index % 60:02d}.000Z",
        spec_path=f"specs/spec{index % 4}.md",
        spec_name=f"spec{index % 4}.md",
        state="SUCCESS",
        attempts=1 + index % 5,
        duration_s=float(index),
        tokens=1000 * index,
        cost_usd=index / 1000,
        stop_reason="all checks passed",
    )
    return run._replace(**changes)


class CountingTable(RunsTable):
    """Records which run rows ``render_line`` was asked for (-1 is the header)."""

    def __init__(self) -> None:
        super().__init__(id="runs")
        self.rendered: list[int] = []

    def render_line(self, y: int) -> Strip:
        self.rendered.append(round(self.scroll_y) + y - 1 if y else -1)
        return super().render_line(y)


class TableHost(App[None]):
    def __init__(self, runs: list[RunSummary]) -> None:
        super().__init__()
        self.runs = runs
        self.messages: list[object] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        yield CountingTable()

    def on_mount(self) -> None:
        register_themes(self)
        self.theme = DEFAULT_THEME
        table = self.query_one(CountingTable)
        table.set_runs(self.runs)
        table.focus()

    def on_runs_table_cursor_moved(self, message: RunsTable.CursorMoved) -> None:
        self.messages.append(message)

    def on_runs_table_run_opened(self, message: RunsTable.RunOpened) -> None:
        self.messages.append(message)

    def on_runs_table_header_clicked(self, message: RunsTable.HeaderClicked) -> None:
        self.messages.append(message)


def _runs() -> list[RunSummary]:
    return [make_run(index) for index in range(COUNT)]


def _visible(table: RunsTable) -> int:
    return table.scrollable_content_region.height - 1


def _painted_rows(table: RunsTable, runs: list[RunSummary]) -> list[Strip]:
    """Each of ``runs`` as the table paints its row, without the cursor and with it."""
    width, last = table.content_region.width, table.column_widths[-1]
    return [
        table._row(run, row, cursor, width, last)
        for row, run in enumerate(runs)
        for cursor in (False, True)
    ]


def _cells(table: RunsTable, y: int) -> list[str]:
    """The text of each column painted on line ``y`` (0 is the header)."""
    text = table.render_line(y).text
    cells, left = [], 0
    for width in table.column_widths:
        cells.append(text[left + 1 : left + 1 + width].strip())
        left += width + 2
    return cells


def _style_of(table: RunsTable, y: int, text: str) -> RichStyle:
    """The style of the first segment on line ``y`` whose text is ``text`` (stripped)."""
    for segment in table.render_line(y):
        if segment.text.strip() == text:
            assert segment.style is not None
            return segment.style
    raise AssertionError(f"{text!r} is not painted on line {y}")


def _theme_colour(app: App[None], variable: str) -> object:
    return Color.parse(app.get_css_variables()[variable]).rich_color


async def test_only_the_visible_rows_of_1000_runs_are_rendered_and_repainted() -> None:
    app = TableHost(_runs())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        visible = _visible(table)
        assert table.virtual_size.height == COUNT + 1
        rows = set(table.rendered)
        assert rows == {-1, *range(visible)}
        table.rendered.clear()
        await pilot.press("down")
        await pilot.pause()
        assert set(table.rendered) == {0, 1}  # a cursor move repaints the two rows it touched
        table.rendered.clear()
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == COUNT - 1
        assert set(table.rendered) <= {-1, *range(COUNT - visible, COUNT)}
        assert set(range(COUNT - visible, COUNT)) <= set(table.rendered)
        assert len(table.rendered) < 10 * (visible + 1)


async def test_cursor_keys_move_the_row_and_scroll_it_into_view() -> None:
    app = TableHost(_runs())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        visible = _visible(table)
        await pilot.press("down", "down")
        assert table.cursor_row == 2 and table.cursor_run == app.runs[2]
        await pilot.press("up")
        assert table.cursor_row == 1
        await pilot.press("pagedown")
        await pilot.pause()
        assert table.cursor_row == 1 + visible
        assert round(table.scroll_y) <= table.cursor_row < round(table.scroll_y) + visible
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == COUNT - 1
        assert _cells(table, visible)[5] == f"{1000 * (COUNT - 1):,}"  # the last run's tokens
        assert _cells(table, 0)[:2] == ["When ↓", "Spec"]  # the header stays on top
        await pilot.press("pageup")
        assert table.cursor_row == COUNT - 1 - visible
        await pilot.press("home", "up")
        await pilot.pause()
        assert table.cursor_row == 0 and table.scroll_y == 0
        moved = [m for m in app.messages if isinstance(m, RunsTable.CursorMoved)]
        assert moved[-1].run == app.runs[0]
        assert [m.row for m in moved[:3]] == [1, 2, 1]


async def test_clicking_a_row_moves_the_cursor_and_opens_it() -> None:
    app = TableHost(_runs())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        await pilot.press("pagedown")
        await pilot.pause()
        top = round(table.scroll_y)
        await pilot.click(table, offset=(20, 3))  # the third row on screen
        assert table.cursor_row == top + 2
        opened = [m for m in app.messages if isinstance(m, RunsTable.RunOpened)]
        assert [m.run.run_id for m in opened] == [app.runs[top + 2].run_id]


async def test_clicking_a_heading_names_its_column_and_the_header_shows_the_sort() -> None:
    app = TableHost(_runs())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        assert _cells(table, 0)[0] == "When ↓"
        cost_x = sum(width + 2 for width in table.column_widths[:6]) + 1
        await pilot.click(table, offset=(cost_x, 0))
        clicked = [m for m in app.messages if isinstance(m, RunsTable.HeaderClicked)]
        assert [m.column for m in clicked] == ["cost"]
        assert table.cursor_row == 0  # a header click moves no cursor
        table.set_sort("cost", False)
        await pilot.pause()
        assert _cells(table, 0)[0] == "When" and _cells(table, 0)[6] == "Cost ↑"
        colour = _theme_colour(app, "accent")
        assert _style_of(table, 0, "Cost ↑").color == colour


async def test_set_runs_swaps_the_list_and_keeps_column_widths() -> None:
    app = TableHost(_runs())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        await pilot.press("end")
        widths = table.column_widths
        table.set_runs(app.runs[:3])
        await pilot.pause()
        assert table.virtual_size.height == 4 and table.cursor_row == 2
        assert [_cells(table, y)[5] for y in (1, 2, 3)] == ["0", "1,000", "2,000"]
        assert table.render_line(4).text.strip() == ""
        # The filter narrowed the list, not the columns (the last one fills what is left).
        assert table.column_widths[:-1] == widths[:-1]


async def test_a_list_narrowed_under_its_scrollbar_lays_nothing_out_and_ends_at_its_end(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = TableHost(_runs())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        visible = _visible(table)
        layouts = count_layouts(app.screen, monkeypatch)
        table.set_runs(app.runs[:500])  # still more than a screen: the scrollbar stays
        await pilot.pause()
        assert True not in layouts  # a full layout repaints every widget on the screen
        assert table.virtual_size.height == 501 and table.show_vertical_scrollbar
        assert table.max_scroll_y == 501 - visible - 1
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == 499 and round(table.scroll_y) == 500 - visible
        assert _cells(table, visible)[5] == f"{1000 * 499:,}"  # the last run on the last line
        table.set_runs(app.runs[:3])  # the scrollbar goes: that is laid out
        await pilot.pause()
        assert True in layouts and not table.show_vertical_scrollbar
        assert [_cells(table, y)[5] for y in (1, 2, 3)] == ["0", "1,000", "2,000"]


async def test_a_damaged_run_shows_damaged_and_its_reason_in_the_error_colour() -> None:
    runs = _runs()[:5]
    runs[3] = runs[3]._replace(damaged="events.jsonl line 1: not JSON", state="TESTING")
    app = TableHost(runs)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        cells = _cells(table, 4)
        assert cells[2] == "DAMAGED" and cells[7] == "events.jsonl line 1: not JSON"
        assert _style_of(table, 4, "DAMAGED").color == _theme_colour(app, "error")
        assert _style_of(table, 2, "SUCCESS").color == _theme_colour(app, "success")


async def test_state_colours_follow_the_theme() -> None:
    app = TableHost(_runs()[:5])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        before = _style_of(table, 2, "SUCCESS").color
        app.theme = next(name for name in app.available_themes if name != app.theme)
        await pilot.pause()
        after = _style_of(table, 2, "SUCCESS").color
        assert after == _theme_colour(app, "success") and after != before


async def test_brackets_and_control_characters_are_shown_as_text() -> None:
    runs = [make_run(0, stop_reason="[bold]early[/bold]\nsecond line", spec_name="[red]x")]
    app = TableHost(runs)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        cells = _cells(app.query_one(CountingTable), 1)
        assert cells[1] == "[red]x"
        assert cells[7] == "[bold]early[/bold] second line"


async def test_a_resumable_run_is_marked() -> None:
    app = TableHost([make_run(0), make_run(1, state="REVIEWING", resumable=True)])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        assert _cells(table, 2)[2] == "REVIEWING ↻"
        assert _style_of(table, 2, "↻").color == _theme_colour(app, "accent")


# -- the history screen over 1,000 runs on disk --------------------------------------------


@pytest.fixture(scope="module")
def thousand_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    logs = tmp_path_factory.mktemp("thousand") / "logs"
    ids = write_synthetic_runs(logs, 10)
    for index in range(10, COUNT):
        source = logs / ids[index % 10]
        run_id = f"20270101-000000-{index:04x}"
        folder = logs / run_id
        folder.mkdir()
        for path in source.iterdir():
            if path.is_dir():
                (folder / path.name).symlink_to(path)
            else:
                text = path.read_text().replace(source.name, run_id)
                (folder / path.name).write_text(text)
        ids.append(run_id)
    return logs, ids


class HistoryHost(App[None]):
    def __init__(self, logs: Path) -> None:
        super().__init__()
        self.logs = logs

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def on_mount(self) -> None:
        register_themes(self)
        self.theme = DEFAULT_THEME
        self.push_screen(RunsScreen(self.logs, self.logs.parent / "state.json"))


async def test_the_screen_lists_1000_runs_filters_them_and_opens_one(
    thousand_runs: tuple[Path, list[str]],
) -> None:
    logs, ids = thousand_runs
    app = HistoryHost(logs)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_history(pilot, app, RunsScreen, "1,000 runs")
        table = screen.query_one("#runs", RunsTable)
        assert len(table.runs) == COUNT
        assert "1,000 runs" in str(screen.query_one("#runs-title").render())
        await pilot.press("slash", *ids[700])
        await pilot.pause()
        assert [run.run_id for run in table.runs] == [ids[700]]
        assert "1 of 1,000 runs" in str(screen.query_one("#runs-title").render())
        assert ids[700] in str(screen.query_one("#runs-status").render())
        await pilot.press("escape")
        assert len(table.runs) == COUNT and not screen.query_one("#runs-filter", Input).value
        await pilot.press("end")
        last = table.cursor_run
        assert last is not None and last.run_id == screen.shown[-1].run_id
        await pilot.press("enter")
        opened = await wait_for_history(pilot, app, RunScreen, "the last run")
        assert opened.run_id == last.run_id


async def test_typing_in_the_filter_of_1000_runs_lays_out_nothing(
    thousand_runs: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each key repaints the input and the rows, never the whole screen's layout: Textual's
    Input and a list whose length changed did that on every key."""
    logs, ids = thousand_runs
    app = HistoryHost(logs)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_history(pilot, app, RunsScreen, "1,000 runs")
        table = screen.query_one("#runs", RunsTable)
        await pilot.press("slash")
        await pilot.pause()
        layouts = count_layouts(screen, monkeypatch)
        await pilot.press(*"2027")  # every run
        await pilot.press(*"0101-000000-00")  # 246 of them: the scrollbar stays
        await _counted(pilot, screen)
        assert len(table.runs) == 246 and "246 of 1,000 runs" in str(
            screen.query_one("#runs-title").render()
        )
        assert screen.query_one("#runs-filter", Input).value == "20270101-000000-00"
        assert True not in layouts
        await pilot.press(*ids[188][-2:])
        await pilot.pause()
        assert [run.run_id for run in table.runs] == [ids[188]]


async def _counted(pilot: object, screen: RunsScreen) -> None:
    """Wait for the filter's matches to be counted (the first page comes at the key)."""
    title = screen.query_one("#runs-title")
    await wait_for(pilot, lambda: "counting" not in str(title.render()), "the count")


def count_paints(screen: object, monkeypatch: pytest.MonkeyPatch) -> list[set[str]]:
    """The widgets each compositor pass of ``screen`` paints from now on (a pass with
    nothing to paint is not counted)."""
    paints: list[set[str]] = []
    original = screen._compositor_refresh  # type: ignore[attr-defined]

    def compositor_refresh() -> None:
        if screen._compositor._dirty_regions:  # type: ignore[attr-defined]
            paints.append({widget.id or "" for widget in screen._dirty_widgets})  # type: ignore[attr-defined]
        original()

    monkeypatch.setattr(screen, "_compositor_refresh", compositor_refresh)
    return paints


async def test_a_filter_key_is_painted_in_one_pass_and_not_at_all_when_the_list_stays(
    thousand_runs: tuple[Path, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``t``, ``ta``, ``tag`` (every spec says "Run tag: tag0…") leave the list as it was:
    its rows, title and status line are not painted again, only the filter. The first key
    that narrows the list paints the filter, rows, title and status line in one pass of the
    compositor: the filter used to be painted alone as the key landed, the rows in a second
    pass a frame later (each pass renders every line of every widget it touches). Its count
    comes later, off the UI thread, and a key cuts it short (:func:`_key_while_counting`)."""
    logs, _ids = thousand_runs
    # tag0003's 100 runs are one in ten: their first page is among the newest 1,000 runs.
    monkeypatch.setattr(run_query, "HEAD_FROM", 1_000)
    monkeypatch.setattr(RunsScreen, "COUNT_AFTER_S", 3600.0)  # counted when the test says
    app = HistoryHost(logs)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_history(pilot, app, RunsScreen, "1,000 runs")
        await pilot.press("slash")
        await pilot.pause()
        screen.query_one("#runs-filter", Input).cursor_blink = False
        await pilot.pause()
        paints = count_paints(screen, monkeypatch)
        table = screen.query_one("#runs", RunsTable)
        for key in "tag000":
            paints.clear()
            await pilot.press(key)
            await pilot.pause()
            assert len(table.runs) == COUNT
            assert paints == [{"runs-filter"}]
        paints.clear()
        await pilot.press("3")  # 100 runs: the scrollbar stays, nothing is laid out
        await pilot.pause()
        # Their first page at the key, in one pass; not every match collected to count them.
        assert len(table.runs) == PAGE
        assert len(paints) == 1, paints
        assert {"runs-filter", "runs", "runs-title", "runs-status"} <= paints[0]
        assert "counting… of 1,000 runs" in str(screen.query_one("#runs-title").render())
        await _key_while_counting(pilot, screen)
        await pilot.press("3")
        await pilot.pause()
        screen.count_shown()  # what the screen does once no key has come for a moment
        await _counted(pilot, screen)
        assert len(table.runs) == COUNT // 10
        assert "100 of 1,000 runs" in str(screen.query_one("#runs-title").render())


async def _key_while_counting(pilot: object, screen: RunsScreen) -> None:
    """The count (made once typing pauses; 25-65 ms of SQLite at 100,000 runs) runs off the
    UI thread and gives the index up to the next key: here its table's writing is held at a
    standstill (SQLite's progress handler, in the count's thread only) and a key is answered
    while it stands; the count cut short keeps nothing (the test's next count is right)."""
    standing, let_go = threading.Event(), threading.Event()
    counting = [""]  # the statement the count's thread runs

    def trace(statement: str) -> None:
        if threading.current_thread() is not threading.main_thread():
            if not statement.startswith("--"):  # not one the trigram tables run within
                counting[0] = statement

    def stand() -> int:
        if threading.current_thread() is not threading.main_thread() and counting[0].startswith(
            "INSERT"
        ):
            standing.set()
            let_go.wait(0.02)  # its ~1,500 steps: half a minute
        return 0

    assert screen.index is not None
    connection = screen.index.db.connection
    connection.set_trace_callback(trace)
    connection.set_progress_handler(stand, 1)
    safety = threading.Timer(10.0, let_go.set)  # without the fix: the key waits for it
    safety.start()
    try:
        screen.count_shown()
        await wait_for(pilot, standing.is_set, "the count to start")
        await pilot.press("backspace")  # type: ignore[attr-defined]  # tag000: every run
        await pilot.pause()  # type: ignore[attr-defined]
        assert not let_go.is_set(), "the key waited for the count"
        assert "· 1,000 runs ·" in str(screen.query_one("#runs-title").render())
        assert len(screen.query_one("#runs", RunsTable).runs) == COUNT
        assert screen.index.db.note is None  # cut short, not damaged: the file is kept
    finally:
        let_go.set()
        safety.cancel()
        connection.set_progress_handler(None, 1)
        connection.set_trace_callback(None)


async def test_the_screen_sorts_1000_runs_by_a_clicked_heading(
    thousand_runs: tuple[Path, list[str]],
) -> None:
    logs, _ids = thousand_runs
    app = HistoryHost(logs)
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_history(pilot, app, RunsScreen, "1,000 runs")
        table = screen.query_one("#runs", RunsTable)
        tokens_x = sum(width + 2 for width in table.column_widths[:5]) + 2
        await pilot.click(table, offset=(tokens_x, 0))
        await pilot.pause()
        tokens = [run.tokens for run in table.runs]
        assert screen.sort_column == "tokens" and tokens == sorted(tokens, reverse=True)
        assert _cells(table, 0)[5] == "Tokens ↓"
        assert _cells(table, 1)[5] == f"{tokens[0]:,}"
        await pilot.click(table, offset=(tokens_x, 0))
        await pilot.pause()
        assert [run.tokens for run in table.runs] == sorted(tokens)


async def test_a_row_states_its_width_as_its_cells_measure_it() -> None:
    """A row's Strip is given its width (every cell fitted to its column) instead of
    measuring its segments; the width stated is the width painted, with wide characters,
    a resumable mark and a cut spec name among the cells."""
    runs = [
        make_run(0, spec_name="表" * 40, stop_reason="ok ✓"),
        make_run(1, state="REVIEWING", resumable=True),
        make_run(2, damaged="unreadable"),
    ]
    app = TableHost(runs)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        for strip in _painted_rows(table, runs):
            assert strip.cell_length == Strip(list(strip)).cell_length
            assert strip.cell_length == table.content_region.width


async def test_a_rows_strip_is_painted_as_made_not_copied_to_the_width_under_the_scrollbar(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Textual's styles cache makes every line as wide as the content region, scrollbar
    included: a row made as wide as the view beside the scrollbar was copied into a new Strip
    two cells wider, each new row of a filter key. A row is made that wide itself (blank
    under the scrollbar), and its cells are where they were."""
    app = TableHost(_runs())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        assert table.content_region.width > table.scrollable_content_region.width  # a scrollbar
        copied: list[int] = []
        adjust = Strip.adjust_cell_length

        def adjusted(strip: Strip, length: int, style: object = None) -> Strip:
            made = adjust(strip, length, style)  # type: ignore[arg-type]
            if made is not strip:
                copied.append(length)
            return made

        monkeypatch.setattr(Strip, "adjust_cell_length", adjusted)
        table.rendered.clear()
        table.set_runs(_runs()[500:])  # new rows on every line
        await pilot.pause()
        assert len(table.rendered) > _visible(table) and copied == []
        assert _cells(table, 1)[1] == app.runs[500].spec_name
        assert table.render_line(1).text[table.scrollable_content_region.width :].strip() == ""


async def test_a_row_is_one_segment_per_style_not_one_per_cell() -> None:
    """Textual filters, crops and divides a Strip segment by segment, so a row is painted as
    few segments as it has styles: the plain cells either side of the state's run together
    (three segments a cell made about 26 a row, most of a repaint of new rows)."""
    runs = [make_run(0), make_run(1, state="REVIEWING", resumable=True)]
    app = TableHost(runs)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        for strip in _painted_rows(table, runs):
            segments = [segment for segment in strip if segment.text]
            assert len(segments) <= 4
            styles = [segment.style for segment in segments]
            assert all(left != right for left, right in zip(styles, styles[1:], strict=False))
        assert _cells(table, 2)[2] == "REVIEWING ↻" and _cells(table, 1)[7] == "all checks passed"


async def test_the_views_geometry_is_worked_out_once_a_paint_not_once_a_row(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each row needs the content region's width and the last column's (the view's width
    less the others): asked of Textual line by line, those regions cost as much as making
    the rows. A filter key that puts new runs on every line asks for them once a paint."""
    app = TableHost(_runs())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        asked: list[str] = []
        for name in ("content_region", "scrollable_content_region"):
            region = getattr(RunsTable, name)

            def counted(widget: RunsTable, region: property = region, name: str = name) -> object:
                if widget is table:
                    asked.append(name)
                return region.fget(widget)  # type: ignore[misc]

            monkeypatch.setattr(RunsTable, name, property(counted))
        table.rendered.clear()
        table.set_runs(_runs()[500:])  # new rows on every line
        await pilot.pause()
        assert len(table.rendered) > _visible(table)
        assert len(asked) <= 10, asked  # Textual's own asks, and one pass of the rows'
        assert _cells(table, 1)[1] == app.runs[500].spec_name


async def test_the_scrollbar_is_repainted_only_when_its_thumb_moves_or_changes_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Over 1,000 runs and over 960, 30 lines high, the thumb is one cell at the top: a
    filter narrowing one to the other repaints no line of the scrollbar (its lines were a
    tenth of a key at 100,000 runs), though the scrollbar scales its drag to the 960.
    Narrowed to 100 runs, the thumb grows and is drawn so."""
    app = TableHost(_runs())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        bar = table.vertical_scrollbar
        drawn: list[int] = []
        render = type(bar).render

        def counted(scrollbar: ScrollBar) -> object:
            if scrollbar is bar:
                drawn.append(scrollbar.window_virtual_size)
            return render(scrollbar)

        monkeypatch.setattr(type(bar), "render", counted)
        assert bar.size.height == SIZE[1]
        table.set_runs(app.runs[:960])
        await pilot.pause()
        assert drawn == [] and bar.window_virtual_size == 961
        assert table.max_scroll_y == 961 - _visible(table) - 1
        table.set_runs(app.runs[:100])
        await pilot.pause()
        assert drawn == [101]
        grab = [bar.get_style_at(0, y).meta.get("@mouse.down") for y in range(SIZE[1])]
        assert 1 < grab.count("grab") < SIZE[1] // 2  # the thumb: 30 of 101 rows in view


async def test_new_runs_that_show_the_same_rows_repaint_no_row() -> None:
    """A filter's first page replaced by its whole list once counted, or a word that keeps
    the newest runs, shows the same runs on every line: no row is painted again (44 lines
    of Textual's per-line work at 160×50), though the list's length is the new one."""
    app = TableHost(_runs())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        visible = _visible(table)
        table.rendered.clear()
        table.set_runs(app.runs[:PAGE], measure=False)  # a first page, as a key shows it
        await pilot.pause()
        assert table.rendered == [] and table.virtual_size.height == PAGE + 1
        table.set_runs(list(app.runs), measure=False)  # the same runs counted: the whole list
        await pilot.pause()
        assert table.rendered == [] and table.max_scroll_y == COUNT + 1 - visible - 1
        table.set_runs(app.runs[1:], measure=False)  # a run fewer at the top: every row moves
        await pilot.pause()
        assert set(range(visible)) <= set(table.rendered)
        assert _cells(table, 1)[5] == f"{1000 * 1:,}"
