"""The history browser: the runs list, one run, one attempt, and two attempts compared.

Screens only show what :mod:`core.history` reads from ``logs/``; they hold no loop logic.
``RunsScreen`` is the entry point (``orch-tui history`` and ``h``); escape dismisses it. ``r``
on an unfinished run whose spec still matches posts :class:`ResumeRun` for the app to handle.
The runs list and a run are read in thread workers that post what they read back to the
screen, which says "loading…" until then: the screen is on view at once, however many runs
there are. Colours come from the theme's variables, read again whenever the theme changes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from functools import lru_cache, partial
from pathlib import Path
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.color import Color, ColorParseError
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import (
    DataTable,
    Input,
    Markdown,
    OptionList,
    Static,
    TabbedContent,
    TabPane,
)
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState, get_current_worker

from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.proposal import ChangeKind, FileChange, HunkDecision
from orch_tui.core.domain.state import RunState, StateError
from orch_tui.core.history.detail import (
    AttemptDetail,
    HistoryError,
    RunDetail,
    compare,
    load_run,
    reviewed_changes,
)
from orch_tui.core.history.export import format_duration
from orch_tui.core.history.grid import ABSENT, FAILED, PASSED, SKIPPED, test_grid
from orch_tui.core.history.index import RunIndex, recorded_then_checked
from orch_tui.core.history.plan_history import PLANNING
from orch_tui.core.history.resume import mark_resumable, resume_blocker
from orch_tui.core.history.scan import RunSummary
from orch_tui.core.history.search import RunSearch, sort_runs
from orch_tui.core.loop.restore import RestoreError, restore_current_run
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.core.util.wording import plural
from orch_tui.tui.widgets.diff.view import DiffView
from orch_tui.tui.widgets.key_footer import KeyFooter
from orch_tui.tui.widgets.runs_table import RUN_COLUMNS, RunsTable, local_time

CSS_PATH = "history.tcss"

# Text columns sort A→Z first; numbers and times sort largest/newest first.
_ASCENDING_FIRST = {"spec", "state", "stop_reason"}

CELL_MARKS = {PASSED: "✓", FAILED: "✗", SKIPPED: "s", ABSENT: "·"}
_CELL_VARIABLES = {PASSED: "success", FAILED: "error", SKIPPED: "warning", ABSENT: "foreground"}
_OUTCOME_VARIABLES = {
    "passed": "success",
    RunState.SUCCESS: "success",
    "failed": "error",
    RunState.FAILED: "error",
    "stopped": "error",
    "DAMAGED": "error",
    "rejected": "warning",
    "no change": "warning",
}
_KIND_VARIABLES = {
    ChangeKind.ADDED: "diff-added-sign",
    ChangeKind.MODIFIED: "diff-modified-sign",
    ChangeKind.DELETED: "diff-removed-sign",
}


SUMMARY_WIDTH = 60
"""An attempt's summary is clipped to this in the attempts table."""


def _clipped(text: str, width: int) -> Text:
    """Plain text (never markup: ids and reasons may hold brackets; control characters spelt
    out), cut to ``width``."""
    text = escape_controls(text)
    return Text(text if len(text) <= width else text[: width - 1] + "…")


class ResumeRun(Message):
    """The person asked to resume ``run_id`` (an unfinished run whose spec still matches)."""

    def __init__(self, run_id: str, spec_path: str) -> None:
        super().__init__()
        self.run_id = run_id
        self.spec_path = spec_path


def _palette(screen: Screen[Any]) -> Callable[..., Style]:
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


class _ThemedScreen(Screen[None]):
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


# -- the runs list ------------------------------------------------------------------------------


class RunsScreen(_ThemedScreen):
    """Every past run, newest first: sort by column, filter as you type, open, resume.

    The rows are drawn by :class:`RunsTable`, which renders only what is on screen.
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

    class Loaded(Message):
        """The worker read the runs: ``index`` to filter with, ``runs`` newest first, and
        ``search`` over them in the ``order`` (column, descending) asked for when it began.
        First, where there is an index file, the runs it recorded, then the runs as every
        folder says."""

        def __init__(
            self,
            index: RunIndex,
            runs: list[RunSummary],
            search: RunSearch,
            order: tuple[str, bool],
        ) -> None:
            super().__init__()
            self.index = index
            self.runs = runs
            self.search = search
            self.order = order

    QUIET_S: ClassVar[float] = 0.25
    """The folder check starts once the recorded list is drawn and the filter has had no key
    for this long: a person typing as the list appears gets the interpreter to themselves."""
    CHECK_WAIT_MAX_S: ClassVar[float] = 5.0
    """The longest the folder check waits for that (a busy UI, a long burst of typing)."""
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
        self.index: RunIndex | None = None
        """What filters search; None until the worker has read the runs (and not checked
        while it shows the index file's record of them)."""
        self.runs: list[RunSummary] = []
        self.search: RunSearch | None = None
        """Every run in the sort order: a filter keeps a part of it, so it sorts nothing."""
        self.shown: Sequence[RunSummary] = ()
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
        """Read, sort and lay out the runs for searching, all off the UI thread: the index
        file's record of them first, to show at once, then every folder checked, once that
        record is drawn and the filter quiet."""
        order = (self.sort_column, self.descending)
        read: list[RunSummary] | None = None
        runs: list[RunSummary] = []
        search: RunSearch | None = None
        for index in recorded_then_checked(self.logs, pace=partial(time.sleep, self.CHECK_PAUSE_S)):
            if search is None or index.runs is not read:  # else the check found the record
                read = index.runs
                runs = mark_resumable(read, self.state_path)
                search = RunSearch(sort_runs(runs, *order), index)
            self.post_message(self.Loaded(index, runs, search, order))
            if index.checked:
                search.prepare()
                continue
            self._list_drawn.wait(self.CHECK_WAIT_MAX_S)
            search.prepare()  # for the first keystroke: the list did not wait for it
            self._may_check.wait(self.CHECK_WAIT_MAX_S)
            if get_current_worker().is_cancelled:  # the app is closing: check nothing
                return

    def on_unmount(self) -> None:
        self._list_drawn.set()  # a worker waiting to go on stops waiting
        self._may_check.set()

    @on(Loaded)
    def _runs_read(self, message: Loaded) -> None:
        if message.search is self.search:  # the check found the runs as shown: nothing to draw
            self.index = message.index
            return
        self.index, self.runs, self.search = message.index, message.runs, message.search
        self.query_one("#runs", RunsTable).fit_columns(self.runs)
        if message.order != (self.sort_column, self.descending):  # a sort key while loading
            self._sort()
        self.refill()
        if not message.index.checked:
            self.call_after_refresh(self._recorded_list_drawn)

    def _recorded_list_drawn(self) -> None:
        """The worker may lay out the search now, and check the folders after :attr:`QUIET_S`
        without a key in the filter."""
        self._list_drawn.set()
        self._quiet = self.set_timer(self.QUIET_S, self._may_check.set)

    def _sort(self) -> None:
        if self.index is not None:
            ordered = sort_runs(self.runs, self.sort_column, self.descending)
            self.search = RunSearch(ordered, self.index)

    def load_failed(self, error: str) -> None:
        self.error = error
        self._update_status()

    def compose(self) -> ComposeResult:
        yield Static(id="runs-title", classes="title")
        yield Input(placeholder="filter: spec name, run id, text in the spec", id="runs-filter")
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

    def refill(self, *, keep_highlight: bool = True) -> None:
        """The list again after a filter or sort change; the highlighted run stays so unless
        ``keep_highlight`` is False (a filter puts the cursor on its first match)."""
        table = self.query_one("#runs", RunsTable)
        keep = self.highlighted.run_id if self.highlighted and keep_highlight else None
        if self.search is not None:
            self.shown = self.search.matching(self.query_text)
        table.set_sort(self.sort_column, self.descending)
        table.set_runs(self.shown, measure=False)  # fitted to every run when they were read
        if keep is not None:
            table.cursor_row = next(
                (i for i, run in enumerate(self.shown) if run.run_id == keep), 0
            )
        self._update_title()
        self._update_status()

    def _update_title(self) -> None:
        if self.index is None:
            self.query_one("#runs-title", Static).update("[b]Run history[/b] · loading…")
            return
        label = next(c.heading for c in RUN_COLUMNS if c.key == self.sort_column)
        count = plural(len(self.runs), "run")
        if len(self.shown) != len(self.runs):
            count = f"{len(self.shown):,} of {count}"
        direction = "↓" if self.descending else "↑"
        # One line high (history.tcss), so no layout pass: that would repaint every widget.
        self.query_one("#runs-title", Static).update(
            f"[b]Run history[/b] · {count} · sorted by {label} {direction}", layout=False
        )

    def _update_status(self) -> None:
        """The highlighted run in the status line (one line high, so no layout is needed:
        a layout pass would repaint the whole list on every cursor move)."""
        run = self.highlighted
        if self.error is not None:
            text = Text(f"could not read the runs: {self.error}")
        elif self.index is None:
            text = Text(f"reading the runs in {self.logs}…")
        elif run is None:
            text = Text("no runs match" if self.runs else f"no runs in {self.logs} yet")
        elif run.damaged:
            text = Text(escape_controls(f"{run.run_id} · damaged: {run.damaged}"))
        elif run.resumable:
            text = Text(escape_controls(f"{run.run_id} · unfinished ({run.state}) · r resumes it"))
        else:
            text = Text(
                escape_controls(f"{run.run_id} · {run.spec_path} · {run.stop_reason or run.state}")
            )
        self.query_one("#runs-status", Static).update(text, layout=False)

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
    def _filter_changed(self) -> None:
        if self._quiet is not None:
            self._quiet.reset()
        self.refill(keep_highlight=False)
        self.query_one("#runs", RunsTable).cursor_row = 0

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
        self._sort()
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


# -- one run ------------------------------------------------------------------------------------


def _attempt_files(attempt: AttemptDetail) -> str:
    if attempt.patch_counts:
        added = sum(a for a, _r in attempt.patch_counts.values())
        removed = sum(r for _a, r in attempt.patch_counts.values())
        return f"{len(attempt.patch_counts)} · +{added} -{removed}"
    if attempt.proposal is not None:
        return f"{attempt.proposal.file_count} proposed"
    return "–"


def task_cells(detail: RunDetail) -> dict[int, str]:
    """Plan mode: the first attempt of each task -> the task and its outcome; {} without a plan."""
    if detail.tasks is None:
        return {}
    cells = {n: "plan" for n in (a.number for a in detail.attempts if a.task == PLANNING)}
    for number, task in enumerate(detail.tasks, start=1):
        if task.attempts:
            cells[task.attempts[0]] = f"{number}. {task.id}: {task.title} ({task.status})"
    return cells


class RunScreen(_ThemedScreen):
    """One run: its attempts as a timeline and its tests × attempts grid."""

    FIRST_FOCUS = "#attempts"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open attempt", id="run.open"),
        Binding("c", "compare", "Compare", id="run.compare"),
        Binding("tab", "app.focus_next", "Grid / attempts", show=False, id="run.focus_next"),
        Binding("escape", "back", "Back", id="run.back"),
    ]

    class Loaded(Message):
        """The worker read the run: its ``detail``, or why it could not (``error``)."""

        def __init__(self, detail: RunDetail | None, error: str | None) -> None:
            super().__init__()
            self.detail = detail
            self.error = error

    def __init__(self, logs: Path, run_id: str) -> None:
        super().__init__()
        self.logs = logs
        self.run_id = run_id
        self.detail: RunDetail | None = None
        self.marked: int | None = None
        self.load_error: str | None = None

    @property
    def loaded(self) -> bool:
        return self.detail is not None or self.load_error is not None

    def load(self) -> None:
        self._read_run()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _read_run(self) -> None:
        try:
            self.post_message(self.Loaded(load_run(self.logs, self.run_id), None))
        except HistoryError as exc:
            self.post_message(self.Loaded(None, str(exc)))

    @on(Loaded)
    def _run_read(self, message: Loaded) -> None:
        self.detail, self.load_error = message.detail, message.error
        self.repaint()

    def load_failed(self, error: str) -> None:
        self.load_error = error
        self.repaint()

    def compose(self) -> ComposeResult:
        yield Static(id="run-title", classes="title")
        yield Static(id="run-facts", classes="facts")
        with Vertical(id="run-body"):
            yield Static("Attempts", classes="section")
            yield DataTable(id="attempts", cursor_type="row")
            yield Static("Tests × attempts", classes="section")
            yield DataTable(id="grid", cursor_type="row", cursor_foreground_priority="renderable")
        yield Static(id="run-status", classes="status")
        yield KeyFooter()

    @property
    def highlighted(self) -> AttemptDetail | None:
        table = self.query_one("#attempts", DataTable)
        if self.detail is None or not 0 <= table.cursor_row < len(self.detail.attempts):
            return None
        return self.detail.attempts[table.cursor_row]

    def repaint(self) -> None:
        title = self.query_one("#run-title", Static)
        self.query_one("#run-body").display = self.detail is not None
        if self.detail is None:
            title.update(Text(self.load_error or f"Run {self.run_id} · loading…"))
            return
        run, style = self.detail.summary, _palette(self)
        state = "DAMAGED" if run.damaged else run.state
        heading = Text.assemble(
            ("Run ", style("foreground", bold=True)),
            (escape_controls(run.run_id), style("foreground", bold=True)),
            " · ",
            (state, style(_OUTCOME_VARIABLES.get(state, "warning"), bold=True)),
            f" · {escape_controls(run.spec_path)}",
        )
        title.update(heading)
        facts = Text(
            f"started {local_time(run.started)} · {plural(run.attempts, 'attempt')} · "
            f"{format_duration(run.duration_s)} · {run.tokens:,} tokens · ${run.cost_usd:.4f}"
            f" · {self.detail.meta.get('model', '?')}\n"
            f"stop reason: {escape_controls(run.stop_reason or '–')}"
        )
        if run.damaged:
            facts.append(f"\ndamaged: {run.damaged}", style=style("error"))
        self.query_one("#run-facts", Static).update(facts)
        self._fill_attempts(style)
        self._fill_grid(style)
        self._update_status()

    def _fill_attempts(self, style: Callable[..., Style]) -> None:
        assert self.detail is not None
        table = self.query_one("#attempts", DataTable)
        row = table.cursor_row
        table.clear(columns=True)
        tasks = task_cells(self.detail)
        labels = ("", *(("Task",) if tasks else ()), "#", "Outcome", "Summary", "Files")
        for label in (*labels, "Tokens", "Cost", "Time"):
            table.add_column(label)
        for attempt in self.detail.attempts:
            mark = "●" if attempt.number == self.marked else ""
            first = attempt.number == 0 or attempt.number in tasks
            kind = "generate" if first else "patch"
            outcome = _OUTCOME_VARIABLES.get(attempt.outcome, "warning")
            task = (Text(escape_controls(tasks.get(attempt.number, ""))),) if tasks else ()
            table.add_row(
                Text(mark, style=style("accent", bold=True)),
                *task,
                f"{attempt.number} {kind}",
                Text(attempt.outcome, style=style(outcome, bold=True)),
                # questions, answers, escalations, judge and verifier decisions follow the outcome
                _clipped(
                    " · ".join(filter(None, [attempt.summary, *attempt.notes])) or "–",
                    SUMMARY_WIDTH,
                ),
                _attempt_files(attempt),
                Text(f"{attempt.tokens:,}", justify="right"),
                Text(f"${attempt.cost_usd:.4f}", justify="right"),
                Text(format_duration(attempt.duration_s), justify="right"),
            )
        table.move_cursor(row=row, animate=False)

    def _fill_grid(self, style: Callable[..., Style]) -> None:
        assert self.detail is not None
        table = self.query_one("#grid", DataTable)
        grid = test_grid(self.detail)
        table.clear(columns=True)
        table.add_column("Test")
        for number in grid.attempts:
            table.add_column(Text(str(number), justify="center"), width=3)
        for test, cells in zip(grid.tests, grid.cells, strict=True):
            table.add_row(
                Text(escape_controls(test)),
                *(
                    Text(CELL_MARKS[cell], style=style(_CELL_VARIABLES[cell]), justify="center")
                    for cell in cells
                ),
            )
        table.display = bool(grid.tests)

    def _update_status(self) -> None:
        status = self.query_one("#run-status", Static)
        if self.marked is not None:
            status.update(f"attempt {self.marked} marked · c on another attempt compares them")
        else:
            status.update("enter opens an attempt · c marks two attempts to compare")

    @on(DataTable.RowSelected, "#attempts")
    def _attempt_selected(self) -> None:
        self.action_open()

    def action_open(self) -> None:
        attempt = self.highlighted
        if self.detail is not None and attempt is not None:
            project = ProjectPaths(self.logs.parent)
            self.app.push_screen(AttemptScreen(self.detail, attempt.number, project))

    def action_compare(self) -> None:
        attempt = self.highlighted
        if self.detail is None or attempt is None:
            return
        if self.marked is None or self.marked == attempt.number:
            self.marked = None if self.marked == attempt.number else attempt.number
            self.repaint()
            return
        first, second = sorted((self.marked, attempt.number))
        self.marked = None
        self.repaint()
        self.app.push_screen(CompareScreen(self.detail, first, second))

    def action_back(self) -> None:
        if self.marked is not None:
            self.marked = None
            self.repaint()
            return
        self.dismiss(None)


# -- files and diffs ----------------------------------------------------------------------------


def _decision_marks(decisions: Sequence[HunkDecision]) -> str:
    accepted = sum(d is not HunkDecision.REJECTED for d in decisions)
    rejected = len(decisions) - accepted
    return f"✓{accepted}" + (f" ✗{rejected}" if rejected else "")


class _FilesAndDiff(_ThemedScreen):
    """A file list beside a read-only DiffView; ``{``/``}`` and the list pick the file."""

    FIRST_FOCUS = "#files"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right_curly_bracket", "file(1)", "Next file", id="history.next_file"),
        Binding("left_curly_bracket", "file(-1)", "Prev file", id="history.prev_file"),
        Binding("v", "layout", "Split/unified", id="history.layout"),
        Binding("escape", "back", "Back", id="history.diff_back"),
    ]

    files: list[tuple[FileChange, list[HunkDecision]]]

    def compose_files(self) -> ComposeResult:
        with Horizontal(classes="files-and-diff"):
            yield OptionList(id="files")
            yield DiffView(id="diff")

    def repaint_files(self, empty: str) -> None:
        style = _palette(self)
        files = self.query_one("#files", OptionList)
        highlighted = files.highlighted
        files.clear_options()
        for change, decisions in self.files:
            prompt = Text.assemble(
                (change.kind.value, style(_KIND_VARIABLES[change.kind], bold=True)),
                f" {escape_controls(change.path)} ",
                (f"+{change.added}", style("diff-added-sign")),
                " ",
                (f"-{change.removed}", style("diff-removed-sign")),
                f"  {_decision_marks(decisions)}" if decisions else "",
            )
            files.add_option(Option(prompt))
        if not self.files:
            files.add_option(Option(Text(empty), disabled=True))
            self.query_one("#diff", DiffView).show(None, [])
            return
        files.highlighted = highlighted if highlighted is not None else 0

    @on(OptionList.OptionHighlighted, "#files")
    def _file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if 0 <= event.option_index < len(self.files):
            change, decisions = self.files[event.option_index]
            self.query_one("#diff", DiffView).show(change, decisions)

    def action_file(self, step: int) -> None:
        files = self.query_one("#files", OptionList)
        if self.files:
            current = files.highlighted or 0
            files.highlighted = (current + step) % len(self.files)

    def action_layout(self) -> None:
        diff = self.query_one("#diff", DiffView)
        diff.diff_layout = "unified" if diff.diff_layout == "split" else "split"

    def action_back(self) -> None:
        self.dismiss(None)


def _decisions_text(attempt: AttemptDetail) -> str:
    if attempt.proposal is None:
        return "No proposal was recorded for this attempt."
    if attempt.decisions is None:
        return "No decisions were recorded (the proposal was never reviewed)."
    accepted, rejected, undecided = attempt.decisions.counts(attempt.proposal)
    lines = [f"{plural(accepted + undecided, 'hunk')} accepted, {rejected} rejected"]
    if undecided:
        lines[0] += f" ({undecided} left undecided, which land as accepted)"
    for path in sorted(attempt.decisions.edits):
        lines.append(f"edited by hand: {path}")
    if attempt.decisions.reject_reason:
        lines.append(f"proposal rejected: {attempt.decisions.reject_reason}")
    landed = sorted(attempt.applied or {})
    lines.append("landed: " + (", ".join(landed) if landed else "nothing"))
    return "\n".join(lines)


def _report_text(attempt: AttemptDetail, style: Callable[..., Style]) -> Text:
    report = attempt.report
    if report is None:
        return Text("The tests did not run in this attempt.")
    text = Text(report.summary() + "\n", style=style("success" if report.passed else "error"))
    for check in report.checks:
        for test in check.tests:
            if test.outcome in ("failed", "error"):
                text.append(f"\n✗ {escape_controls(test.id)}\n", style=style("error", bold=True))
                if test.message:
                    text.append(f"  {escape_controls(test.message, newlines=True)}\n")
        if check.error:
            error = escape_controls(check.error, newlines=True)
            text.append(f"\n{check.name}: {error}\n", style=style("error"))
    return text


class AttemptScreen(_FilesAndDiff):
    """One attempt: its proposal (read-only diff with the decisions in the gutter), the
    decisions, the test report, the model's text, and its tokens and cost."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "next_tab", "Next tab", id="attempt.next_tab"),
        Binding("R", "restore", "Restore", id="attempt.restore"),
    ]

    def __init__(self, detail: RunDetail, number: int, project: ProjectPaths | None = None) -> None:
        super().__init__()
        self.project = project
        """The project whose current run ``R`` restores; None: restore is not offered."""
        self.detail = detail
        self.attempt = detail.attempt(number)
        self.files = reviewed_changes(self.attempt)

    def compose(self) -> ComposeResult:
        yield Static(id="attempt-title", classes="title")
        yield from self.compose_files()
        with TabbedContent(id="attempt-tabs"):
            with TabPane("Decisions", id="tab-decisions"):
                yield Static(id="attempt-decisions")
            with TabPane("Tests", id="tab-tests"), VerticalScroll():
                yield Static(id="attempt-report")
            with TabPane("Model", id="tab-model"), VerticalScroll():
                text = escape_controls(self.attempt.model_text, newlines=True)
                yield Markdown(text or "*No model text was recorded.*")
            with TabPane("Output", id="tab-output"), VerticalScroll():
                output = escape_controls(self.attempt.test_output, newlines=True)
                yield Static(Text(output or "(no test output)"))
        yield KeyFooter()

    def repaint(self) -> None:
        attempt, style = self.attempt, _palette(self)
        title = Text.assemble(
            (
                f"Run {self.detail.summary.run_id} · attempt {attempt.number} · ",
                style("foreground"),
            ),
            (attempt.outcome, style(_OUTCOME_VARIABLES.get(attempt.outcome, "warning"), bold=True)),
            f" · {attempt.tokens:,} tokens · ${attempt.cost_usd:.4f} · {plural(attempt.turns, 'model turn')}"
            f" · {format_duration(attempt.duration_s)}",
        )
        if attempt.summary:
            title.append(f"\n{attempt.summary}")
        for note in attempt.notes:
            title.append(f"\n{note}", style=style("accent"))
        for problem in attempt.problems:
            title.append(f"\ndamaged: {problem}", style=style("error"))
        self.query_one("#attempt-title", Static).update(title)
        self.repaint_files("(no proposal)")
        decisions = escape_controls(_decisions_text(attempt), newlines=True)
        self.query_one("#attempt-decisions", Static).update(Text(decisions))
        self.query_one("#attempt-report", Static).update(_report_text(attempt, style))

    def action_restore(self) -> None:
        """Put the workspace back to this attempt's result (``orch-tui restore K``)."""
        if self.project is None:
            return
        if getattr(self.app, "engine_running", False):
            self.notify(
                "the run is working: restore once it waits or has ended", severity="warning"
            )
            return
        try:
            said = restore_current_run(
                self.project, self.attempt.number, self.detail.summary.run_id
            )
        except (RestoreError, StateError) as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.notify(said, markup=False)

    def action_next_tab(self) -> None:
        tabs = self.query_one("#attempt-tabs", TabbedContent)
        panes = ["tab-decisions", "tab-tests", "tab-model", "tab-output"]
        tabs.active = panes[(panes.index(tabs.active) + 1) % len(panes)]


class CompareScreen(_FilesAndDiff):
    """The workspace after attempt ``a`` against after attempt ``b``, file by file."""

    def __init__(self, detail: RunDetail, a: int, b: int) -> None:
        super().__init__()
        self.detail = detail
        self.a, self.b = a, b
        self.files = [
            (change, [HunkDecision.ACCEPTED] * len(change.hunks))
            for change in compare(detail, a, b)
        ]

    def compose(self) -> ComposeResult:
        yield Static(id="compare-title", classes="title")
        yield from self.compose_files()
        yield KeyFooter()

    def repaint(self) -> None:
        count = len(self.files)
        noun = "file differs" if count == 1 else "files differ"
        self.query_one("#compare-title", Static).update(
            Text(
                f"Run {self.detail.summary.run_id} · workspace after attempt {self.a} → after "
                f"attempt {self.b} · {count} {noun}"
            )
        )
        self.repaint_files("(the workspace is the same after both attempts)")


__all__ = [
    "AttemptScreen",
    "CompareScreen",
    "ResumeRun",
    "RunScreen",
    "RunsScreen",
]
