"""RunsTable: the runs list of the history browser, fast at thousands of runs.

Built on Textual's Line API: ``render_line`` draws only the rows on screen, so a list of
1,000 runs paints like a list of ten. Column widths come from the headings, a cap and the
largest numbers (a max over plain values, never a measure of rendered cells), and they only
widen, so they hold still while a filter narrows the list. ``set_runs`` swaps the list; no
per-row widget or cell object exists.

Row 0 of the view is the header (it stays put while the rows scroll beneath it); clicking a
heading posts :class:`RunsTable.HeaderClicked`. The cursor row moves with the arrow keys,
page keys, home/end and the mouse. Every colour comes from a component class whose CSS reads
a theme variable; nothing is hard-coded here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style

from orch_tui.core.domain.state import RunState
from orch_tui.core.history.export import format_duration
from orch_tui.core.history.scan import RunSummary, parse_time
from orch_tui.core.util.terminal_text import escape_controls

__all__ = ["RUN_COLUMNS", "RunsTable", "cell_texts", "local_time"]


def local_time(iso: str) -> str:
    """``2026-11-21 19:51`` in the local time zone, from a UTC ISO-8601 stamp."""
    when = parse_time(iso)
    return when.astimezone().strftime("%Y-%m-%d %H:%M") if when else "–"


def state_label(run: RunSummary) -> str:
    """``DAMAGED`` for a run whose logs could not be read, else the last state it reached."""
    return "DAMAGED" if run.damaged else run.state


@dataclass(frozen=True)
class Column:
    """One column: its sort key (see ``core.history.SORT_KEYS``), heading and cell text."""

    key: str
    heading: str
    text: Callable[[RunSummary], str]
    width: Callable[[Sequence[RunSummary]], int]
    """The widest cell among these runs, from plain values (no cell is rendered to know)."""
    right: bool = False


def _widest_number(
    value: Callable[[RunSummary], float], show: Callable[[float], str]
) -> Callable[[Sequence[RunSummary]], int]:
    """Width of the largest value, shown: numbers never get shorter as they grow."""

    def width(runs: Sequence[RunSummary]) -> int:
        return len(show(max((value(run) for run in runs), default=0)))

    return width


SPEC_WIDTH_CAP = 32
"""A longer spec name is cut with an ellipsis; the status line shows the run's spec path."""
_STATE_WIDTH = len("GENERATING ↻")
_RESUMABLE_MARK = " ↻"

RUN_COLUMNS: tuple[Column, ...] = (
    Column("started", "When", lambda run: local_time(run.started), lambda _runs: 16),
    Column(
        "spec",
        "Spec",
        lambda run: run.spec_name or "–",
        lambda runs: min(SPEC_WIDTH_CAP, max((cell_len(r.spec_name) for r in runs), default=0)),
    ),
    Column("state", "State", state_label, lambda _runs: _STATE_WIDTH),
    Column(
        "attempts",
        "Attempts",
        lambda run: str(run.attempts),
        _widest_number(lambda run: run.attempts, lambda n: str(int(n))),
        right=True,
    ),
    Column(
        "duration",
        "Duration",
        lambda run: format_duration(run.duration_s),
        _widest_number(lambda run: run.duration_s or 0, format_duration),
        right=True,
    ),
    Column(
        "tokens",
        "Tokens",
        lambda run: f"{run.tokens:,}",
        _widest_number(lambda run: run.tokens, lambda n: f"{int(n):,}"),
        right=True,
    ),
    Column(
        "cost",
        "Cost",
        lambda run: f"${run.cost_usd:.4f}",
        _widest_number(lambda run: run.cost_usd, lambda n: f"${n:.4f}"),
        right=True,
    ),
    Column(
        "stop_reason",
        "Stop reason",
        lambda run: run.damaged or run.stop_reason or "–",
        lambda _runs: 0,  # at least its heading; it grows to fill the view as it is drawn
    ),
)
"""The runs list's columns, in order; keys ``1``..``8`` sort by them. The last one takes
whatever width is left."""

_ARROWS = {True: " ↓", False: " ↑"}
_PAD = 1
"""Blank cells either side of each column's text."""
_STATE_CLASSES = {
    RunState.SUCCESS: "runs-table--success",
    RunState.FAILED: "runs-table--failed",
    "DAMAGED": "runs-table--failed",
}
"""Any other state is unfinished: ``runs-table--unfinished``."""


def _one_line(text: str) -> str:
    return escape_controls(text, newlines=True).replace("\n", " ").replace("\t", " ")


def cell_texts(run: RunSummary) -> list[str]:
    """The plain text of each column for ``run`` (uncut; the state shows ``↻`` if resumable).

    Control characters are spelt out (``\\x1b``), as ``orch-tui history`` prints them: they
    would drive the terminal. A line break or tab (a multi-line stop reason) reads as a space.
    """
    texts = [_one_line(column.text(run)) for column in RUN_COLUMNS]
    if run.resumable:
        texts[2] += _RESUMABLE_MARK
    return texts


def _fit(text: str, width: int, *, right: bool = False) -> str:
    """``text`` padded or cut (with ``…``) to exactly ``width`` cells."""
    size = cell_len(text)
    if size > width:
        return set_cell_size(text, width - 1) + "…" if width > 0 else ""
    return " " * (width - size) + text if right else text + " " * (width - size)


class RunsTable(ScrollView, can_focus=True):
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

    cursor_row: reactive[int] = reactive(0, init=False, repaint=False)
    """Index into :attr:`runs` of the highlighted row; moving it scrolls it into view."""

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self._runs: Sequence[RunSummary] = ()
        self._widths = [cell_len(column.heading) + len(_ARROWS[True]) for column in RUN_COLUMNS]
        self._sort: tuple[str, bool] = ("started", True)
        self._strips: LRUCache[tuple[RunSummary, bool, bool, int], Strip] = LRUCache(512)
        """A row's Strip by (run, striped, under the cursor, view width): by run, not row
        number, so a filter that leaves the runs on screen where they were draws nothing."""
        self._styles: dict[tuple[str | None, str | None], RichStyle] = {}

    # ----------------------------------------------------------------- public API

    @property
    def runs(self) -> Sequence[RunSummary]:
        return self._runs

    @property
    def cursor_run(self) -> RunSummary | None:
        """The run under the cursor, if any."""
        row = self.cursor_row
        return self._runs[row] if 0 <= row < len(self._runs) else None

    @property
    def column_widths(self) -> list[int]:
        """Text width of each column (the last one as laid out now), padding excluded."""
        return [*self._widths[:-1], self._last_width()]

    def set_runs(self, runs: Sequence[RunSummary], *, measure: bool = True) -> None:
        """Show ``runs`` in this order. The cursor stays on its row number (clamped, and in
        view); no :class:`CursorMoved` is posted, the caller knows the list changed.

        ``measure=False`` skips fitting the columns to ``runs``: for a part of a list they
        were fitted to before (a filter's result), where measuring ten thousand runs would
        be most of a keystroke's work and change nothing."""
        self._runs = runs
        if measure:
            self.fit_columns(runs)
        self._update_virtual_size()
        self.set_reactive(RunsTable.cursor_row, self.validate_cursor_row(self.cursor_row))
        self.scroll_to_row(self.cursor_row)
        self.refresh()

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
            left += width + 2 * _PAD
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
        if 0 <= row < len(self._runs):
            self.cursor_row = row
            self.post_message(self.RunOpened(self, self._runs[row]))

    # ---------------------------------------------------------------- layout

    def _visible_rows(self) -> int:
        """Rows that fit under the header."""
        return self.scrollable_content_region.height - 1

    def _fixed_width(self) -> int:
        return sum(self._widths[:-1]) + 2 * _PAD * (len(RUN_COLUMNS) - 1)

    def _last_width(self) -> int:
        """The last column fills the rest of the view, never narrower than its heading."""
        room = self.scrollable_content_region.width - self._fixed_width() - 2 * _PAD
        return max(self._widths[-1], room)

    def _update_virtual_size(self) -> None:
        """As wide as the columns at their narrowest: the last column grows to fill the view
        when it is drawn, so a scrollbar coming or going never makes the rows scroll sideways."""
        width = self._fixed_width() + self._widths[-1] + 2 * _PAD
        self.virtual_size = Size(width, len(self._runs) + 1)

    def on_focus(self) -> None:
        self._forget_styles()

    def on_blur(self) -> None:
        self._forget_styles()

    def notify_style_update(self) -> None:
        """The theme or CSS changed: every cached style and Strip is stale."""
        super().notify_style_update()
        self._forget_styles()

    def _forget_styles(self) -> None:
        self._styles.clear()
        self._strips.clear()
        self.refresh()

    def _rich(self, base: str | None, overlay: str | None = None) -> RichStyle:
        """The style of component class ``base`` (over the widget's), with only what
        ``overlay`` sets itself laid on top (so a row's background shows through)."""
        key = (base, overlay)
        style = self._styles.get(key)
        if style is None:
            visual = self.get_visual_style(base) if base else self.get_visual_style()
            if overlay:
                styles = self.get_component_styles(overlay)
                text = styles.text_style
                visual += Style(
                    foreground=styles.color if styles.has_rule("color") else None,
                    bold=text.bold,
                )
            style = self._styles[key] = visual.rich_style
        return style

    # -------------------------------------------------------------- rendering

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        if y == 0:
            strip = self._header()
        else:
            row = scroll_y + y - 1
            if not 0 <= row < len(self._runs):
                return Strip.blank(width, self._rich(None))
            key = (self._runs[row], row % 2 == 1, row == self.cursor_row, width)
            cached = self._strips.get(key)
            if cached is None:
                cached = self._strips[key] = self._row(row, key[2])
            strip = cached
        return strip.crop_extend(scroll_x, scroll_x + width, self._rich(None))

    def _header(self) -> Strip:
        sorted_key, descending = self._sort
        header = self._rich("runs-table--header")
        segments = []
        for column, width in zip(RUN_COLUMNS, self.column_widths, strict=True):
            if column.key == sorted_key:
                label = column.heading + _ARROWS[descending]
                style = self._rich("runs-table--header", "runs-table--header-sorted")
            else:
                label, style = column.heading, header
            text = _fit(label, width, right=column.right)
            segments.append(Segment(" " * _PAD + text + " " * _PAD, style))
        return Strip(segments)

    def _row(self, row: int, cursor: bool) -> Strip:
        run = self._runs[row]
        base = "runs-table--cursor" if cursor else "runs-table--stripe" if row % 2 else None
        plain = self._rich(base)
        segments = []
        widths = self.column_widths
        for index, (column, text) in enumerate(zip(RUN_COLUMNS, cell_texts(run), strict=True)):
            pad = Segment(" " * _PAD, plain)
            if column.key == "state":
                segments.extend(self._state(run, widths[index], base, cursor, pad))
                continue
            fitted = _fit(text, widths[index], right=column.right)
            segments.extend((pad, Segment(fitted, plain), pad))
        return Strip(segments)

    def _state(
        self, run: RunSummary, width: int, base: str | None, cursor: bool, pad: Segment
    ) -> list[Segment]:
        """The state in its colour (the cursor's colours win on the cursor row), and ``↻``
        in the accent colour when the run can be resumed."""
        label = state_label(run)
        state_class = None if cursor else _STATE_CLASSES.get(label, "runs-table--unfinished")
        mark_class = None if cursor else "runs-table--resumable"
        mark = _RESUMABLE_MARK if run.resumable else ""
        fitted = _fit(_one_line(label) + mark, width)
        return [
            pad,
            Segment(fitted[: len(label)], self._rich(base, state_class)),
            Segment(fitted[len(label) :], self._rich(base, mark_class)),
            pad,
        ]
