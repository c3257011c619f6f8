"""The review screen's frame while the run opens: its header, panes and footer, nothing more.

It is what ``orch-tui SPEC`` paints first (tui/launch.py), before the config, the spec, the
state and the engine are loaded, so it imports Textual's basic widgets and nothing of ``core``
that needs more than the standard library. The panes are laid out by the review screen's own
rules (their ids in app.tcss), so the review screen replaces it without the panes moving.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Static

from orch_tui.tui.widgets.key_footer import KeyFooter

SIDEBAR_MIN_WIDTH = 120
"""Columns from which the spec and the timeline are shown beside the proposal by default;
on a narrower terminal the diff takes the whole width (``s`` shows them)."""
HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (SIDEBAR_MIN_WIDTH, "-wide")]
VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-medium"), (42, "-tall")]
"""The size classes of the review screen and of this frame (app.tcss)."""
OPENING = "Opening the run…"


def size_classes(size: Size) -> list[str]:
    """The size classes Textual gives a screen of these breakpoints at ``size`` once it has
    resized: given to a screen as it is made, its first layout is already the one it keeps,
    instead of a layout at its first refresh and another when its size classes arrive."""
    found = (
        _size_class(size.width, HORIZONTAL_BREAKPOINTS),
        _size_class(size.height, VERTICAL_BREAKPOINTS),
    )
    return [name for name in found if name]


def _size_class(extent: int, breakpoints: list[tuple[int, str]]) -> str | None:
    """The class of the highest breakpoint ``extent`` reaches, as Textual picks it."""
    return next(
        (name for least, name in sorted(breakpoints, reverse=True) if extent >= least), None
    )


class LoadingScreen(Screen[None]):
    """The frame of the review screen, "opening the run…" in place of the proposal."""

    HORIZONTAL_BREAKPOINTS = HORIZONTAL_BREAKPOINTS
    VERTICAL_BREAKPOINTS = VERTICAL_BREAKPOINTS
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "app.leave", "Quit")]

    def __init__(self, spec_name: str) -> None:
        super().__init__()
        self.spec_name = spec_name

    def compose(self) -> ComposeResult:
        yield Static(f" orch-tui · {self.spec_name} · opening…", id="run-header")
        with Horizontal(id="body"):
            with Vertical(id="sidebar"):
                yield Static(OPENING, id="spec-pane", markup=False)
                yield Static("", id="timeline")
            with Vertical(id="main"):
                yield Static("", id="files")
                yield Static(OPENING, id="diff", markup=False)
                yield Static("Waiting for the model…", id="review-status")
                yield Static(" Model  Tests", id="activity")
        yield KeyFooter(compact=True, at_once=True)  # its keys in the first frame

    def on_mount(self) -> None:
        self.query_one("#spec-pane").border_title = "Spec"
        self.query_one("#timeline").border_title = "Attempts"
        self.query_one("#files").border_title = "Proposal"
