"""A Log that keeps its last line in view when its size changes, and batches what it is given."""

from __future__ import annotations

from typing import Any, Self

from textual import events
from textual.geometry import Size
from textual.timer import Timer
from textual.widgets import Log

from orch_tui.tui.widgets.sized_by_layout import SizedByLayout

BATCH_S = 0.1
"""How long text given to :meth:`FollowingLog.write_soon` may wait to be written."""


class FollowingLog(Log, SizedByLayout):
    """Textual's ``Log``, pinned to its end when it is laid out or resized, and written in
    batches.

    ``Log`` scrolls to the end as it is written, but lines written before it has a size (the
    engine streams as the screen mounts, or while its tab is hidden) leave it at the top once
    it is laid out. The model's last words and the checks' last lines are what matter.

    Every ``Log.write`` that adds a line changes the log's virtual size, and with it lays the
    whole screen out again on the next frame. The engine posts an event per edit: a 200-file
    proposal's edits arrive within a second, and writing each one made the screen lay itself
    out on almost every frame meanwhile, on the interpreter lock the engine needs to finish
    the proposal. :meth:`write_soon` holds the text and writes all that came within
    :data:`BATCH_S` in one write; :meth:`flush` writes it now. A line written repaints the log
    alone (:class:`SizedByLayout`: its height comes from the layout); :meth:`watch_virtual_size`
    updates the scrollbars and the scroll limits. ``Log.write`` repaints each line it adds on
    its own (a region worked out and marked dirty per line: 200 edits' lines, ~7 ms of the UI
    thread before a big proposal's first diff); here one write repaints its lines once.
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._pending: list[str] = []
        self._flush_timer: Timer | None = None
        self._written: tuple[int, int] | None = None
        """While :meth:`write` runs: the first and the end of the lines it changed."""

    def write(self, data: str, scroll_end: bool | None = None) -> Self:
        """``Log.write``, its lines repainted together (one by one when the write may drop
        the oldest lines: those move every line up)."""
        if self.max_lines is not None and self.line_count + data.count("\n") >= self.max_lines:
            return super().write(data, scroll_end)
        self._written = (self.line_count, 0)
        try:
            super().write(data, scroll_end)
        finally:
            first, end = self._written
            self._written = None
        if end > first:
            super().refresh_lines(first, end - first)
        return self

    def refresh_lines(self, y_start: int, line_count: int = 1) -> None:
        if self._written is None:
            super().refresh_lines(y_start, line_count)
            return
        first, end = self._written
        self._written = (min(first, y_start), max(end, y_start + line_count))

    def write_soon(self, text: str) -> None:
        """Write ``text`` with whatever else comes within :data:`BATCH_S`."""
        if not text:
            return
        self._pending.append(text)
        if self._flush_timer is None:
            self._flush_timer = self.set_timer(BATCH_S, self.flush)

    def flush(self) -> None:
        """Write the text held by :meth:`write_soon`, in one write."""
        text = self._take_pending()
        if text:
            self.write(text)

    def _take_pending(self) -> str:
        """The text held, no longer held (and no flush due)."""
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        text = "".join(self._pending)
        self._pending.clear()
        return text

    @property
    def at_line_start(self) -> bool:
        """True when the next text written (held text included) starts a line of its own."""
        if self._pending:
            return self._pending[-1].endswith("\n")
        return not (self.lines and self.lines[-1])

    def clear(self) -> FollowingLog:
        """Clear the log, and the text not written yet."""
        self._take_pending()
        super().clear()
        return self

    def watch_virtual_size(self, size: Size) -> None:
        self._scroll_update(size)

    def on_resize(self, _event: events.Resize) -> None:
        if self.auto_scroll:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
