"""The runs list: every past run, newest first; sort, filter as you type, open, resume.

``RunsScreen`` is the entry point of the history browser (``orch-tui history`` and ``h``);
escape dismisses it. ``r`` on an unfinished run whose spec still matches posts
:class:`ResumeRun` for the app to handle. The runs are read in a thread worker that posts what
it read back to the screen, which says "loading…" until then: the screen is on view at once,
however many runs there are.
"""

from __future__ import annotations

import asyncio
import threading
import time
from functools import partial
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from orch_tui.core.history.index import RunIndex, recorded_then_checked
from orch_tui.core.history.resume import resumable_id, resume_blocker
from orch_tui.core.history.run_query import RunView
from orch_tui.core.history.scan import RunSummary
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.core.util.wording import plural
from orch_tui.tui import full_collections
from orch_tui.tui.messages import ResumeRun
from orch_tui.tui.screens.history.run import RunScreen
from orch_tui.tui.screens.history.themed import ThemedScreen
from orch_tui.tui.widgets.filter_input import FilterInput
from orch_tui.tui.widgets.key_footer import KeyFooter
from orch_tui.tui.widgets.run_columns import RUN_COLUMNS
from orch_tui.tui.widgets.runs_table import RunsTable

# Text columns sort A→Z first; numbers and times sort largest/newest first.
_ASCENDING_FIRST = {"spec", "state", "stop_reason"}


class RunsLoaded(Message):
    """The worker opened the index: ``index`` to ask for rows, ``widest`` the runs the
    columns fit, and ``resumable`` the run ``r`` resumes. First, where there is an index
    file, the runs it recorded, then the runs as every folder says."""

    def __init__(self, index: RunIndex, widest: list[RunSummary], resumable: str | None) -> None:
        super().__init__()
        self.index = index
        self.widest = widest
        self.resumable = resumable


class RunsSettled(Message):
    """The runs are read, checked and laid out for searching: they live as long as the
    screen."""


class RunsCounted(Message):
    """``view`` has ``count`` runs (None: the count was cut short)."""

    def __init__(self, view: RunView, count: int | None) -> None:
        super().__init__()
        self.view = view
        self.count = count


def status_line(run: RunSummary | None, total: int, logs: Path) -> str:
    """The status line's text for the highlighted ``run`` of the ``total`` in ``logs``."""
    if run is None:
        return "no runs match" if total else f"no runs in {logs} yet"
    if run.damaged:
        return escape_controls(f"{run.run_id} · damaged: {run.damaged}")
    if run.resumable:
        return escape_controls(f"{run.run_id} · unfinished ({run.state}) · r resumes it")
    return escape_controls(f"{run.run_id} · {run.spec_path} · {run.stop_reason or run.state}")


class RunsScreen(ThemedScreen):
    """Every past run, newest first: sort by column, filter as you type, open, resume.

    The rows are drawn by :class:`RunsTable`, which renders only what is on screen and
    asks the index (:class:`RunView`) for those rows alone.
    """

    FIRST_FOCUS = "#runs"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", id="history.open"),
        Binding("slash", "filter", "Filter", id="history.filter"),
        Binding("r", "resume", "Resume", id="history.resume"),
        Binding("escape", "back", "Back", id="history.back"),
        Binding("down", "focus_table", "Runs", show=False, id="history.focus_table"),
        *(
            Binding(
                str(number),
                f"sort('{column.key}')",
                "Sort 1–8" if number == 1 else f"Sort by {column.heading}",
                show=number == 1,
                id=f"history.sort_{column.key}",
            )
            for number, column in enumerate(RUN_COLUMNS, start=1)
        ),
    ]

    QUIET_S: ClassVar[float] = 0.25
    """The folder check starts once the recorded list is drawn and the filter has had no key
    for this long: a person typing as the list appears gets the interpreter to themselves."""
    CHECK_WAIT_MAX_S: ClassVar[float] = 5.0
    """The longest the folder check waits for that (a busy UI, a long burst of typing)."""
    COUNT_AFTER_S: ClassVar[float] = 0.15
    """A filter's first page is shown at its key, its matches counted once no key has come
    for this long (a common word's count is most of a key's time at 100,000 runs)."""
    CHECK_PAUSE_S: ClassVar[float] = 0.001
    """The folder check's sleep every few hundred runs: keys pressed while it runs get the
    interpreter."""

    def __init__(self, logs: Path, state_path: Path) -> None:
        super().__init__()
        self.logs = logs
        self.state_path = state_path
        self._list_drawn = threading.Event()
        """Set once the index file's record of the runs is on screen: the worker then lays out
        what filters search, before the first key needs it."""
        self._may_check = threading.Event()
        """Set once the recorded list is on screen and the filter has been quiet for
        :attr:`QUIET_S`: the check of every folder (about 50 ms of CPU at 10,000 runs) waits
        for it instead of taking turns with the UI thread at drawing the list or a filter."""
        self._quiet: Timer | None = None
        self._counting: Timer | None = None
        self.index: RunIndex | None = None
        """What the list asks for its rows; None until the worker has opened the index (and
        not checked while it shows the index's record of the runs)."""
        self.total = 0
        """How many runs there are."""
        self.resumable: str | None = None
        self.shown: RunView | tuple[()] = ()
        self.sort_column = "started"
        self.descending = True
        self.error: str | None = None

    @property
    def loaded(self) -> bool:
        """Every run folder checked: the list and what filters search are final."""
        return self.index is not None and self.index.checked

    def load(self) -> None:
        self._list_drawn.clear()
        self._may_check.clear()
        self._read_runs()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _read_runs(self) -> None:
        """Open the index off the UI thread: its record of the runs first, to show at once,
        then every folder checked, once that record is drawn and the filter quiet."""
        for index in recorded_then_checked(self.logs, pace=partial(time.sleep, self.CHECK_PAUSE_S)):
            if index.changed:
                widest = RunView(index).widest()
                self.post_message(RunsLoaded(index, widest, resumable_id(index, self.state_path)))
            else:  # the check found the runs as shown: nothing to draw
                self.post_message(RunsLoaded(index, [], self.resumable))
            if index.checked:
                continue
            self._list_drawn.wait(self.CHECK_WAIT_MAX_S)
            self._may_check.wait(self.CHECK_WAIT_MAX_S)
            if get_current_worker().is_cancelled:  # the app is closing: check nothing
                return
        self.post_message(RunsSettled())

    @on(RunsSettled)
    def _settled(self) -> None:
        """Keep the collector's full collections off while the runs are listed: one in the
        middle of a filter keystroke walks every object the app holds. (Let go when the
        screen goes; the review screen holds them off the same way. The runs themselves stay
        in the index, not in memory: a screenful of them is.)"""
        full_collections.hold(self)

    def on_unmount(self) -> None:
        self._list_drawn.set()  # a worker waiting to go on stops waiting
        self._may_check.set()
        full_collections.let_go(self)

    @on(RunsLoaded)
    def _runs_read(self, message: RunsLoaded) -> None:
        first = self.index is None
        self.index = message.index
        if message.index.note is not None and (first or not message.index.changed):
            self.notify(message.index.note, title="History", severity="warning", markup=False)
        if not message.index.changed:
            return
        self.resumable = message.resumable
        self.total = len(RunView(message.index))
        self.query_one("#runs", RunsTable).fit_columns(message.widest)
        self.refill()
        if not message.index.checked:
            self.call_after_refresh(self._recorded_list_drawn)

    def _recorded_list_drawn(self) -> None:
        """The worker may lay out the search now, and check the folders after :attr:`QUIET_S`
        without a key in the filter."""
        self._list_drawn.set()
        self._quiet = self.set_timer(self.QUIET_S, self._may_check.set)

    def load_failed(self, error: str) -> None:
        self.error = error
        self._update_status()

    def compose(self) -> ComposeResult:
        yield Static(id="runs-title", classes="title")
        yield FilterInput(
            placeholder="filter: spec name, run id, text in the spec", id="runs-filter"
        )
        yield RunsTable(id="runs")
        yield Static(id="runs-status", classes="status")
        yield KeyFooter()

    @property
    def query_text(self) -> str:
        return self.query_one("#runs-filter", Input).value

    @property
    def highlighted(self) -> RunSummary | None:
        return self.query_one("#runs", RunsTable).cursor_run

    def repaint(self) -> None:
        """The list again (the table reads the theme's colours itself)."""
        self.refill()

    def refill(
        self, *, keep_highlight: bool = True, if_changed: bool = False, first_page: bool = False
    ) -> None:
        """The list again after a filter or sort change; the highlighted run stays so unless
        ``keep_highlight`` is False (a filter puts the cursor on its first match).
        ``if_changed``: nothing is repainted when the runs listed stay as they are.
        ``first_page``: the first page alone when it can be found so, counted later."""
        table = self.query_one("#runs", RunsTable)
        keep = self.highlighted.run_id if self.highlighted and keep_highlight else None
        if self.index is not None:
            view = RunView(
                self.index, self.sort_column, self.descending, self.query_text, self.resumable
            )
            if if_changed and isinstance(self.shown, RunView) and view.same_rows(self.shown):
                return  # a word every run holds: the list, its title and status stay
            self.shown = view
        if self._counting is not None:
            self._counting.stop()
        head = self.shown.head() if first_page and isinstance(self.shown, RunView) else None
        table.set_sort(self.sort_column, self.descending)
        table.set_runs(head or self.shown, measure=False)  # fitted when the runs were read
        if keep is not None and isinstance(self.shown, RunView):
            table.cursor_row = self.shown.position(keep) or 0
        if head is not None:
            self._counting = self.set_timer(self.COUNT_AFTER_S, self.count_shown)
        self._update_title(counted=head is None)
        self._update_status()

    def count_shown(self) -> None:
        """Count the list shown by its first page, off the UI thread (a key cuts it short)."""
        if isinstance(self.shown, RunView):
            self._count(self.shown)

    @work(thread=True, exclusive=True, group="count", exit_on_error=False)
    def _count(self, view: RunView) -> None:
        self.post_message(RunsCounted(view, view.count_giving_way()))

    @on(RunsCounted)
    def _counted(self, message: RunsCounted) -> None:
        if message.view is not self.shown:
            return  # a later key's list
        if message.count is None:  # cut short by something other than a key: again
            self._counting = self.set_timer(self.COUNT_AFTER_S, self.count_shown)
            return
        self.query_one("#runs", RunsTable).set_runs(self.shown, measure=False)
        self._update_title()
        self._update_status()

    def _update_title(self, counted: bool = True) -> None:
        if self.index is None:
            self.query_one("#runs-title", Static).update("[b]Run history[/b] · loading…")
            return
        label = next(c.heading for c in RUN_COLUMNS if c.key == self.sort_column)
        count = plural(self.total, "run")
        if not counted:
            count = f"counting… of {count}"
        elif len(self.shown) != self.total:
            count = f"{len(self.shown):,} of {count}"
        direction = "↓" if self.descending else "↑"
        # One line high (history.tcss), so no layout pass: that would repaint every widget.
        self.query_one("#runs-title", Static).update(
            f"[b]Run history[/b] · {count} · sorted by {label} {direction}", layout=False
        )

    def _update_status(self) -> None:
        """The highlighted run in the status line (one line high, so no layout is needed:
        a layout pass would repaint the whole list on every cursor move)."""
        if self.error is not None:
            text = f"could not read the runs: {self.error}"
        elif self.index is None:
            text = f"reading the runs in {self.logs}…"
        else:
            text = status_line(self.highlighted, self.total, self.logs)
        self.query_one("#runs-status", Static).update(Text(text), layout=False)

    # -- events and actions

    @on(RunsTable.CursorMoved, "#runs")
    def _cursor_moved(self) -> None:
        self._update_status()

    @on(RunsTable.RunOpened, "#runs")
    def _run_opened(self) -> None:
        self.action_open()

    @on(RunsTable.HeaderClicked, "#runs")
    def _header_clicked(self, event: RunsTable.HeaderClicked) -> None:
        self.action_sort(event.column)

    @on(Input.Changed, "#runs-filter")
    async def _filter_changed(self) -> None:
        if self._quiet is not None:
            self._quiet.reset()
        self.refill(keep_highlight=False, if_changed=True, first_page=True)
        self.query_one("#runs", RunsTable).cursor_row = 0
        # The rows, title and status line ask this screen for a repaint from their own
        # message queues; let them before this screen goes idle, so that the key is painted
        # in one pass of the compositor, not the filter first and the rows a frame later.
        await asyncio.sleep(0)

    @on(Input.Submitted, "#runs-filter")
    def _filter_submitted(self) -> None:
        self.action_focus_table()

    def action_filter(self) -> None:
        filter_input = self.query_one("#runs-filter", Input)
        filter_input.add_class("-shown")
        filter_input.focus()

    def action_focus_table(self) -> None:
        self.query_one("#runs", RunsTable).focus()

    def action_sort(self, column: str) -> None:
        if column == self.sort_column:
            self.descending = not self.descending
        else:
            self.sort_column = column
            self.descending = column not in _ASCENDING_FIRST
        self.refill()

    def action_open(self) -> None:
        run = self.highlighted
        if run is not None:
            self.app.push_screen(RunScreen(self.logs, run.run_id))

    def action_resume(self) -> None:
        run = self.highlighted
        if run is None:
            return
        blocker = resume_blocker(run, self.state_path)
        if blocker is not None:
            self.notify(blocker, title="Cannot resume", severity="warning", markup=False)
            return
        self.post_message(ResumeRun(run.run_id, run.spec_path))

    def action_back(self) -> None:
        filter_input = self.query_one("#runs-filter", Input)
        if filter_input.has_class("-shown"):
            filter_input.remove_class("-shown")
            filter_input.value = ""
            self.action_focus_table()
            return
        self.dismiss(None)
