"""RunsTable: the runs list of the history browser, fast at thousands of runs.

Built on Textual's Line API: ``render_line`` draws only the rows on screen, so a list of
1,000 runs paints like a list of ten. Column widths come from the headings, a cap and the
largest numbers (a max over plain values, never a measure of rendered cells), and they only
widen, so they hold still while a filter narrows the list. ``set_runs`` swaps the list; no
per-row widget or cell object exists. The columns and their cells' text are :mod:`run_columns`,
the painting of the header and rows :mod:`runs_paint`.

Row 0 of the view is the header (it stays put while the rows scroll beneath it); clicking a
heading posts :class:`RunsTable.HeaderClicked`. The cursor row moves with the arrow keys,
page keys, home/end and the mouse. Every colour comes from a component class whose CSS reads
a theme variable; nothing is hard-coded here.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import ceil
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scrollbar import ScrollBar
from textual.strip import Strip

from orch_tui.core.history.scan import RunSummary
from orch_tui.tui.widgets.run_columns import RUN_COLUMNS
from orch_tui.tui.widgets.runs_paint import ARROWS, PAD, RunsPaint

__all__ = ["RunsTable"]


class RunsTable(RunsPaint, can_focus=True):
    """Runs as rows under a fixed header, with a cursor row."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "runs-table--header",
        "runs-table--header-sorted",
        "runs-table--stripe",
        "runs-table--cursor",
        "runs-table--success",
        "runs-table--failed",
        "runs-table--unfinished",
        "runs-table--resumable",
    }

    DEFAULT_CSS = """
    RunsTable {
        background: $surface;
        color: $foreground;
    }
    RunsTable:focus { background-tint: $foreground 5%; }
    RunsTable > .runs-table--header { background: $panel; color: $foreground; text-style: bold; }
    RunsTable > .runs-table--header-sorted { color: $accent; text-style: bold; }
    RunsTable > .runs-table--stripe { background: $surface-lighten-1 50%; }
    RunsTable:dark > .runs-table--stripe { background: $surface-darken-1 40%; }
    RunsTable > .runs-table--cursor {
        background: $block-cursor-blurred-background;
        color: $block-cursor-blurred-foreground;
        text-style: $block-cursor-blurred-text-style;
    }
    RunsTable:focus > .runs-table--cursor {
        background: $block-cursor-background;
        color: $block-cursor-foreground;
        text-style: $block-cursor-text-style;
    }
    RunsTable > .runs-table--success { color: $success; text-style: bold; }
    RunsTable > .runs-table--failed { color: $error; text-style: bold; }
    RunsTable > .runs-table--unfinished { color: $warning; text-style: bold; }
    RunsTable > .runs-table--resumable { color: $accent; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False, id="runs_table.up"),
        Binding("down", "cursor(1)", "Down", show=False, id="runs_table.down"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="runs_table.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="runs_table.page_down"),
        Binding("home", "first", "First", show=False, id="runs_table.first"),
        Binding("end", "last", "Last", show=False, id="runs_table.last"),
    ]

    class CursorMoved(Message):
        """The cursor is on another row; ``run`` is None when the list is empty."""

        def __init__(self, table: RunsTable, row: int, run: RunSummary | None) -> None:
            super().__init__()
            self.table = table
            self.row = row
            self.run = run

        @property
        def control(self) -> RunsTable:
            return self.table

    class RunOpened(Message):
        """A row was clicked: the person wants to open ``run``."""

        def __init__(self, table: RunsTable, run: RunSummary) -> None:
            super().__init__()
            self.table = table
            self.run = run

        @property
        def control(self) -> RunsTable:
            return self.table

    class HeaderClicked(Message):
        """A column heading was clicked; ``column`` is its sort key."""

        def __init__(self, table: RunsTable, column: str) -> None:
            super().__init__()
            self.table = table
            self.column = column

        @property
        def control(self) -> RunsTable:
            return self.table

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._runs: Sequence[RunSummary] = ()
        self._widths = [cell_len(column.heading) + len(ARROWS[True]) for column in RUN_COLUMNS]
        self._sort: tuple[str, bool] = ("started", True)
        self._strips: LRUCache[tuple[RunSummary, bool, bool, int], Strip] = LRUCache(512)
        """A row's Strip by (run, striped, under the cursor, last column's width): by run, not row
        number, so a filter that leaves the runs on screen where they were draws nothing."""
        self._styles: dict[tuple[str | None, str | None], RichStyle] = {}

    # ----------------------------------------------------------------- public API

    @property
    def runs(self) -> Sequence[RunSummary]:
        return self._runs

    @property
    def cursor_run(self) -> RunSummary | None:
        """The run under the cursor, if any."""
        return self._run_at(self.cursor_row)

    def set_runs(self, runs: Sequence[RunSummary], *, measure: bool = True) -> None:
        """Show ``runs`` in this order. The cursor stays on its row number (clamped, and in
        view); no :class:`CursorMoved` is posted, the caller knows the list changed.

        ``measure=False`` skips fitting the columns to ``runs``: for a part of a list they
        were fitted to before (a filter's result), where measuring ten thousand runs would
        be most of a keystroke's work and change nothing.

        The rows are repainted only when what they show changes: a filter's first page
        replaced by the whole list once counted, or a word that keeps the newest runs, leaves
        them as they were (the scrollbar and scroll limits follow the new length)."""
        shown = self._on_screen()
        self._runs = runs
        if measure:
            self.fit_columns(runs)
        self._update_virtual_size()
        self.set_reactive(RunsTable.cursor_row, self.validate_cursor_row(self.cursor_row))
        self.scroll_to_row(self.cursor_row)
        if shown is None or self._on_screen() != shown:
            self.refresh()

    def _on_screen(self) -> tuple[object, ...] | None:
        """What the rows on view show: the scroll position, the cursor's row and each row's
        run (None: not laid out yet)."""
        visible = self._visible_rows()
        if visible <= 0:
            return None
        top = round(self.scroll_y)
        return (top, self.cursor_row, *map(self._run_at, range(top, top + visible)))

    def fit_columns(self, runs: Sequence[RunSummary]) -> None:
        """Widen the columns to fit ``runs`` (they never narrow)."""
        widths = list(self._widths)
        if runs:
            for index, column in enumerate(RUN_COLUMNS):
                self._widths[index] = max(self._widths[index], column.width(runs))
        if widths != self._widths:
            self._strips.clear()
        self._update_virtual_size()
        self.refresh()

    def set_sort(self, column: str, descending: bool) -> None:
        """Mark ``column`` in the header as the sort column, with its direction."""
        self._sort = (column, descending)
        self.refresh()

    def column_at(self, x: int) -> str | None:
        """The sort key of the column at content offset ``x`` (scrolling included)."""
        left = 0
        for column, width in zip(RUN_COLUMNS, self.column_widths, strict=True):
            left += width + 2 * PAD
            if x < left:
                return column.key
        return None

    # -------------------------------------------------------------- reactives

    def validate_cursor_row(self, row: int) -> int:
        return max(0, min(row, len(self._runs) - 1))

    def watch_cursor_row(self, old: int, row: int) -> None:
        top = round(self.scroll_y)
        self.refresh(*(Region(0, line - top + 1, self.size.width, 1) for line in (old, row)))
        self.scroll_to_row(row)  # a scroll repaints the whole view
        self.post_message(self.CursorMoved(self, row, self.cursor_run))

    def scroll_to_row(self, row: int, *, retry: bool = True) -> None:
        """Scroll just enough for ``row`` to be on screen below the header."""
        visible = self._visible_rows()
        if visible <= 0:
            if retry:  # not laid out yet: try once more after the next refresh
                self.call_after_refresh(self.scroll_to_row, row, retry=False)
            return
        top = round(self.scroll_y)
        if row < top:
            self.scroll_to(y=row, animate=False)
        elif row >= top + visible:
            self.scroll_to(y=row - visible + 1, animate=False)

    # ---------------------------------------------------------------- actions

    def action_cursor(self, step: int) -> None:
        self.cursor_row += step

    def action_page(self, direction: int) -> None:
        self.cursor_row += direction * max(1, self._visible_rows())

    def action_first(self) -> None:
        self.cursor_row = 0

    def action_last(self) -> None:
        self.cursor_row = len(self._runs) - 1

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:
            column = self.column_at(offset.x + round(self.scroll_x))
            if column is not None:
                self.post_message(self.HeaderClicked(self, column))
            return
        row = round(self.scroll_y) + offset.y - 1
        run = self._run_at(row)
        if run is not None:
            self.cursor_row = row
            self.post_message(self.RunOpened(self, run))

    # ---------------------------------------------------------------- layout

    def _visible_rows(self) -> int:
        """Rows that fit under the header."""
        return self.scrollable_content_region.height - 1

    def _update_virtual_size(self) -> None:
        """As wide as the columns at their narrowest: the last column grows to fill the view
        when it is drawn, so a scrollbar coming or going never makes the rows scroll sideways."""
        width = self._fixed_width() + self._widths[-1] + 2 * PAD
        size = Size(width, len(self._runs) + 1)
        if size == self.virtual_size:
            return
        if self._scrollbars_hold(size):
            # A new height that keeps the scrollbars as they are (a filter narrowing 100,000
            # runs to 40,000): the scrollbar and scroll limits change, not the layout. Setting
            # ``virtual_size`` lays out the whole screen, which was most of a keystroke.
            # The rows are repainted by the caller if what they show changed.
            self.set_reactive(RunsTable.virtual_size, size)
            self._rescale_scrollbar(size)
        else:
            self.virtual_size = size

    def _rescale_scrollbar(self, size: Size) -> None:
        """The scrollbars set for the list's new height (as Textual's ``_scroll_update``
        does), the vertical one repainted only when its thumb is drawn elsewhere: over
        100,000 runs and over the 10,000 a word keeps, it is one cell at the top, and its
        40-odd lines were a tenth of the key."""
        bar = self.vertical_scrollbar
        if not self.show_vertical_scrollbar or _bar_cells(bar, size.height) != _bar_cells(
            bar, bar.window_virtual_size
        ):
            self._scroll_update(size)
            return
        bar.set_reactive(ScrollBar.window_virtual_size, size.height)
        self.scroll_y = self.validate_scroll_y(self.scroll_y)

    def _scrollbars_hold(self, size: Size) -> bool:
        """True when ``size`` differs from the virtual size only in height, on the same side
        of the view's height (a vertical scrollbar neither comes nor goes)."""
        old = self.virtual_size
        if size.width != old.width or not self.is_mounted or not self.container_size:
            return False
        height = self.container_size.height
        return (size.height > height) == (old.height > height)


def _bar_cells(bar: ScrollBar, height: int) -> list[Segment]:
    """The cells of vertical scrollbar ``bar`` for a list ``height`` rows high, as Textual's
    renderer draws them (:meth:`ScrollBar._render_bar`; its colours left out)."""
    window = bar.window_size if bar.window_size < height else 0
    drawn = bar.renderer.render_bar(
        size=bar.size.height,
        virtual_size=ceil(height),
        window_size=ceil(window),
        position=bar.position,
        thickness=bar.thickness,
        vertical=True,
    )
    return drawn.segments
