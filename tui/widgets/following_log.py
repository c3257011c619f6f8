"""A Log that keeps its last line in view when its size changes."""

from __future__ import annotations

from textual import events
from textual.widgets import Log


class FollowingLog(Log):
    """Textual's ``Log``, pinned to its end when it is laid out or resized.

    ``Log`` scrolls to the end as it is written, but lines written before it has a size (the
    engine streams as the screen mounts, or while its tab is hidden) leave it at the top once
    it is laid out. The model's last words and the checks' last lines are what matter.
    """

    def on_resize(self, _event: events.Resize) -> None:
        if self.auto_scroll:
            self.scroll_end(animate=False, immediate=True, x_axis=False)
