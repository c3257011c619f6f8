"""What every history screen shares: the stylesheet, theme colours, reading off the UI thread.

Screens only show what :mod:`core.history` reads from ``logs/``; they hold no loop logic.
Colours come from the theme's variables, read again whenever the theme changes.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, ClassVar

from rich.style import Style
from textual import on
from textual.color import Color, ColorParseError
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from orch_tui.core.domain.state import RunState

CSS_PATH = "history.tcss"

OUTCOME_VARIABLES = {
    "passed": "success",
    RunState.SUCCESS: "success",
    "failed": "error",
    RunState.FAILED: "error",
    "stopped": "error",
    "DAMAGED": "error",
    "rejected": "warning",
    "no change": "warning",
}


def palette(screen: Screen[Any]) -> Callable[..., Style]:
    """Style from a theme variable's colour; foreground when the theme lacks it."""
    variables = screen.app.get_css_variables()

    @lru_cache(maxsize=64)
    def style(name: str, *, bold: bool = False, dim: bool = False) -> Style:
        for value in (variables.get(name), variables.get("foreground")):
            if not value:
                continue
            try:
                colour = Color.parse(value)
            except ColorParseError:
                continue
            return Style(color=colour.rich_color, bold=bold, dim=dim)
        return Style(bold=bold, dim=dim)

    return style


class ThemedScreen(Screen[None]):
    """Re-renders its coloured cells when the app's theme changes.

    Subclasses start reading what they show in :meth:`load` (a thread worker), fill their
    widgets in :meth:`repaint` and name the widget to focus first; they define no
    ``on_mount`` of their own (Textual would run both handlers).
    """

    CSS_PATH = CSS_PATH
    FIRST_FOCUS: ClassVar[str] = ""

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.repaint())
        self.load()
        self.repaint()
        if self.FIRST_FOCUS:
            self.query_one(self.FIRST_FOCUS).focus()

    def load(self) -> None:
        """Start reading what the screen shows, off the UI thread; nothing by default."""

    def repaint(self) -> None:
        """Fill the widgets, with the current theme's colours."""

    def load_failed(self, error: str) -> None:
        """A loading worker raised ``error`` (a bug, or logs/ vanished under it)."""
        self.notify(error, title="Could not read the logs", severity="error", markup=False)

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.load_failed(str(event.worker.error))
