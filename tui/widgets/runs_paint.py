"""The painting half of the runs list: its header and rows as Strips, from plain cell texts.

``render_line`` draws only the rows on screen; a row's Strip is cached by run, so a filter that
leaves the runs on screen where they were draws nothing. Every colour comes from a component
class of :class:`~orch_tui.tui.widgets.runs_table.RunsTable`, whose CSS reads a theme variable.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from operator import itemgetter

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.cache import LRUCache
from textual.geometry import Region
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style

from orch_tui.core.domain.state import RunState
from orch_tui.core.history.scan import RunSummary
from orch_tui.tui.widgets.run_columns import (
    RESUMABLE_MARK,
    RUN_COLUMNS,
    cell_texts,
    fit,
    one_line,
    state_label,
)

ARROWS = {True: " ↓", False: " ↑"}
"""After the sort column's heading: descending, ascending."""
PAD = 1
"""Blank cells either side of each column's text."""
_STATE_CLASSES = {
    RunState.SUCCESS: "runs-table--success",
    RunState.FAILED: "runs-table--failed",
    "DAMAGED": "runs-table--failed",
}
"""Any other state is unfinished: ``runs-table--unfinished``."""


class RunsPaint(ScrollView):
    """Paints the runs list: the header with the sort column marked, and striped rows with
    the cursor row and each state in its colour. The table sets what is shown."""

    cursor_row: reactive[int] = reactive(0, init=False, repaint=False)
    """Index into :attr:`runs` of the highlighted row; moving it scrolls it into view."""

    _runs: Sequence[RunSummary]
    _widths: list[int]
    """Each column's text width at its narrowest (the last one grows to fill the view)."""
    _sort: tuple[str, bool]
    _strips: LRUCache[tuple[RunSummary, bool, bool, int], Strip]
    _styles: dict[tuple[str | None, str | None], RichStyle]
    _geometry: tuple[int, int] | None = None
    """While lines are drawn: the content region's width and the last column's."""

    @property
    def column_widths(self) -> list[int]:
        """Text width of each column (the last one as laid out now), padding excluded."""
        return self._widths_ending(self._last_width())

    def _widths_ending(self, last: int) -> list[int]:
        """Each column's text width, the last one's ``last``."""
        return [*self._widths[:-1], last]

    def _fixed_width(self) -> int:
        return sum(self._widths[:-1]) + 2 * PAD * (len(RUN_COLUMNS) - 1)

    def _last_width(self) -> int:
        """The last column fills the rest of the view, never narrower than its heading."""
        room = self.scrollable_content_region.width - self._fixed_width() - 2 * PAD
        return max(self._widths[-1], room)

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

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines in ``crop``, the view's width and the last column's worked out once for
        them all: asked of Textual for every line, the geometry cost as much as the rows."""
        self._geometry = self._measure()
        try:
            return super().render_lines(crop)
        finally:
            self._geometry = None

    def _measure(self) -> tuple[int, int]:
        """The content region's width and the last column's, as laid out now."""
        return self.content_region.width, self._last_width()

    def render_line(self, y: int) -> Strip:
        """Line ``y`` as wide as the content region, the scrollbar's cells included (the
        scrollbar is drawn over them): the width Textual's styles cache asks for, which would
        otherwise copy every line into a Strip of that width."""
        scroll_x, scroll_y = self.scroll_offset
        width, last = self._geometry or self._measure()
        if y == 0:
            strip = self._header(last)
        else:
            row = scroll_y + y - 1
            run = self._run_at(row)
            if run is None:
                return Strip.blank(width, self._rich(None))
            key = (run, row % 2 == 1, row == self.cursor_row, last)
            cached = self._strips.get(key)
            if cached is None:
                cached = self._strips[key] = self._row(run, row, key[2], width, last)
            strip = cached
        return strip.crop_extend(scroll_x, scroll_x + width, self._rich(None))

    def _header(self, last: int) -> Strip:
        """The headings, the sort column's marked; ``last``: the last column's width."""
        sorted_key, descending = self._sort
        header = self._rich("runs-table--header")
        segments = []
        for column, width in zip(RUN_COLUMNS, self._widths_ending(last), strict=True):
            if column.key == sorted_key:
                label = column.heading + ARROWS[descending]
                style = self._rich("runs-table--header", "runs-table--header-sorted")
            else:
                label, style = column.heading, header
            text = fit(label, width, right=column.right)
            segments.append(Segment(" " * PAD + text + " " * PAD, style))
        return Strip(segments)

    def _run_at(self, row: int) -> RunSummary | None:
        """The run on ``row``; None past the end, or when the runs changed under the count
        (a view of the index read while the folder check writes to it)."""
        try:
            return self._runs[row] if 0 <= row < len(self._runs) else None
        except IndexError:
            return None

    def _row(self, run: RunSummary, row: int, cursor: bool, width: int, last: int) -> Strip:
        """One segment per run of cells in one style (the plain cells either side of the
        state's): Textual filters, crops and divides a Strip segment by segment. ``width``:
        the content region's; ``last``: the last column's."""
        base = "runs-table--cursor" if cursor else "runs-table--stripe" if row % 2 else None
        plain = self._rich(base)
        pad = " " * PAD
        cells: list[tuple[str, RichStyle]] = []
        widths = self._widths_ending(last)
        for index, (column, text) in enumerate(zip(RUN_COLUMNS, cell_texts(run), strict=True)):
            if column.key == "state":
                cells += self._state(run, widths[index], base, cursor, pad, plain)
            else:
                cells.append((pad + fit(text, widths[index], right=column.right) + pad, plain))
        length = sum(widths) + 2 * PAD * len(widths)
        under_scrollbar = width - length  # blank: painted over
        if under_scrollbar > 0:
            cells.append((" " * under_scrollbar, plain))
            length += under_scrollbar
        segments = [
            Segment("".join(text for text, _style in same), style)
            for style, same in groupby(filter(itemgetter(0), cells), key=itemgetter(1))
        ]
        # Every cell is fitted to its column: the row's width is known, not measured again
        # segment by segment (by the Strip, then by each crop of it).
        return Strip(segments, length)

    def _state(
        self,
        run: RunSummary,
        width: int,
        base: str | None,
        cursor: bool,
        pad: str,
        plain: RichStyle,
    ) -> list[tuple[str, RichStyle]]:
        """The state in its colour (the cursor's colours win on the cursor row), and ``↻``
        in the accent colour when the run can be resumed."""
        label = state_label(run)
        state_class = None if cursor else _STATE_CLASSES.get(label, "runs-table--unfinished")
        mark_class = None if cursor else "runs-table--resumable"
        mark = RESUMABLE_MARK if run.resumable else ""
        fitted = fit(one_line(label) + mark, width)
        return [
            (pad, plain),
            (fitted[: len(label)], self._rich(base, state_class)),
            (fitted[len(label) :], self._rich(base, mark_class)),
            (pad, plain),
        ]
