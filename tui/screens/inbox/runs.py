"""The inbox's list: the waiting runs, newest first, filtered as the person types.

The filter line has the focus: typing narrows the list (every word must match the run's
batch, name, state or tests), up and down move, enter opens the highlighted run, escape
leaves. A run whose review is done leaves the list.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from orch_tui.core.batch.inbox import InboxEntry, waiting_runs
from orch_tui.core.batch.inbox_review import describe_review, open_run
from orch_tui.core.batch.landing import Target
from orch_tui.core.config.models import Config
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.core.util.wording import plural
from orch_tui.tui.screens.inbox.review import InboxReviewScreen
from orch_tui.tui.widgets.key_footer import KeyFooter

KEYS = "↑↓ choose · enter opens the run"
"""The list's keys: the filter line holds the focus, so the footer cannot show them."""
EMPTY = "No batch run is waiting for review. `orch-tui batch SPEC...` runs some."


def entry_line(entry: InboxEntry) -> str:
    state = entry.state
    tests = state.last_test.summary if state.last_test else "no tests ran"
    return escape_controls(
        f"{entry.key:<32} {state.state:<10} {plural(state.attempts_made, 'attempt'):<11} {tests}"
        f" · ${state.cost_usd:.4f}"
    )


class InboxScreen(Screen[None]):
    """Every waiting run; enter opens one in :class:`InboxReviewScreen`."""

    DEFAULT_CSS = """
    InboxScreen #inbox-filter { margin: 0 1; }
    InboxScreen #inbox-runs { height: 1fr; margin: 0 1; }
    InboxScreen #inbox-note { height: auto; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "move(1)", "Next", show=False, id="inbox.next"),
        Binding("up", "move(-1)", "Previous", show=False, id="inbox.previous"),
        Binding("enter", "open", "Open", id="inbox.open"),
        Binding("escape", "leave", "Quit", id="inbox.leave"),
    ]

    def __init__(
        self, root: Path, config: Config, target_for: Callable[[InboxEntry], Target]
    ) -> None:
        super().__init__()
        self.root = root
        self.config = config
        self.target_for = target_for
        self.entries: list[InboxEntry] = []
        self.shown: list[InboxEntry] = []

    def compose(self) -> ComposeResult:
        yield Input(
            placeholder="filter: type words of a run's name, batch, state or tests",
            id="inbox-filter",
        )
        yield OptionList(id="inbox-runs")
        yield Static("", id="inbox-note")
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one(OptionList).can_focus = False  # the filter keeps the keys
        self.reload()
        self.query_one(Input).focus()

    def reload(self) -> None:
        self.entries, problems = waiting_runs(self.root)
        for problem in problems:
            self.notify(problem, title="A batch was left out", severity="warning", markup=False)
        self._show()

    def _show(self) -> None:
        text = self.query_one(Input).value
        self.shown = [entry for entry in self.entries if entry.matches(text)]
        runs = self.query_one(OptionList)
        runs.clear_options()
        runs.add_options(Option(Content(entry_line(entry))) for entry in self.shown)
        if self.shown:
            runs.highlighted = 0
        count = f"{len(self.shown)} of {len(self.entries)} runs waiting · {KEYS}"
        self.query_one("#inbox-note", Static).update(count if self.entries else EMPTY)

    @on(Input.Changed, "#inbox-filter")
    def _filtered(self) -> None:
        self._show()

    @on(Input.Submitted, "#inbox-filter")
    def _submitted(self) -> None:
        self.action_open()

    def action_move(self, step: int) -> None:
        runs = self.query_one(OptionList)
        if self.shown:
            current = runs.highlighted or 0
            runs.highlighted = max(0, min(current + step, len(self.shown) - 1))

    def action_open(self) -> None:
        index = self.query_one(OptionList).highlighted
        if not self.shown or index is None:
            self.notify("No run to open.", severity="warning")
            return
        entry = self.shown[index]
        try:
            opened = open_run(entry)
        except (OSError, ValueError) as exc:
            self.notify(f"{entry.key}: {exc}", title="Cannot open", severity="error", markup=False)
            return
        screen = InboxReviewScreen(opened, self.target_for(entry), self.config)
        self.app.push_screen(screen, lambda _: self._review_closed(screen))

    def _review_closed(self, screen: InboxReviewScreen) -> None:
        if screen.review is not None:
            said = f"{screen.opened.entry.key}: {describe_review(screen.review)}"
            self.notify(said, title="Reviewed", timeout=12, markup=False)
        self.reload()

    def action_leave(self) -> None:
        self.app.exit()
