"""One run: its attempts as a timeline and its tests × attempts grid; ``c`` compares two.

The run is read in a thread worker; the screen says "loading…" until it has it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable, Static

from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.history.blame import Blame, blame
from orch_tui.core.history.detail import (
    AttemptDetail,
    HistoryError,
    RunDetail,
    kinds_of,
    load_run,
    planning_attempt,
)
from orch_tui.core.history.export import format_duration
from orch_tui.core.history.grid import ABSENT, FAILED, PASSED, SKIPPED, test_grid
from orch_tui.core.history.plan_history import PLANNING
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.core.util.wording import planning_cost, plural
from orch_tui.tui.messages import ResumeRun
from orch_tui.tui.screens.history.attempt import AttemptScreen
from orch_tui.tui.screens.history.compare import CompareScreen
from orch_tui.tui.screens.history.revert import propose_revert
from orch_tui.tui.screens.history.themed import OUTCOME_VARIABLES, ThemedScreen, palette
from orch_tui.tui.widgets.key_footer import KeyFooter
from orch_tui.tui.widgets.run_columns import local_time

CELL_MARKS = {PASSED: "✓", FAILED: "✗", SKIPPED: "s", ABSENT: "·"}
_CELL_VARIABLES = {PASSED: "success", FAILED: "error", SKIPPED: "warning", ABSENT: "foreground"}

SUMMARY_WIDTH = 60
"""An attempt's summary is clipped to this in the attempts table."""


def _clipped(text: str, width: int) -> Text:
    """Plain text (never markup: ids and reasons may hold brackets; control characters spelt
    out), cut to ``width``."""
    text = escape_controls(text)
    return Text(text if len(text) <= width else text[: width - 1] + "…")


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


def planning_note(detail: RunDetail) -> str:
    """`` (planning 3,940 tokens, $0.0108)``: plan mode's planning turn, which is no attempt."""
    planning = planning_attempt(detail)
    if planning is None:
        return ""
    return f" (planning {planning_cost(planning.tokens, planning.cost_usd)})"


class RunScreen(ThemedScreen):
    """One run: its attempts as a timeline and its tests × attempts grid."""

    FIRST_FOCUS = "#attempts"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open attempt", id="run.open"),
        Binding("c", "compare", "Compare", id="run.compare"),
        Binding("X", "revert_blamed", "Revert blamed", id="run.revert_blamed"),
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
        self.blames: list[Blame] = []
        """Each test that went from passing to failing: the attempt and hunks that broke it."""

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
        self.blames = blame(message.detail) if message.detail is not None else []
        self.repaint()
        self.refresh_bindings()  # X is offered only when there are hunks to blame

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
            yield Static(id="blame")
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
        run, style = self.detail.summary, palette(self)
        state = "DAMAGED" if run.damaged else run.state
        heading = Text.assemble(
            ("Run ", style("foreground", bold=True)),
            (escape_controls(run.run_id), style("foreground", bold=True)),
            " · ",
            (state, style(OUTCOME_VARIABLES.get(state, "warning"), bold=True)),
            f" · {escape_controls(run.spec_path)}",
        )
        title.update(heading)
        facts = Text(
            f"started {local_time(run.started)} · {plural(run.attempts, 'attempt')}"
            f"{planning_note(self.detail)} · "
            f"{format_duration(run.duration_s)} · {run.tokens:,} tokens · ${run.cost_usd:.4f}"
            f" · {self.detail.meta.get('model', '?')}\n"
            f"stop reason: {escape_controls(run.stop_reason or '–')}"
        )
        chain = self.detail.chain.line()
        if chain:
            facts.append(f"\n{escape_controls(chain)}")
        if run.damaged:
            facts.append(f"\ndamaged: {run.damaged}", style=style("error"))
        self.query_one("#run-facts", Static).update(facts)
        self._fill_attempts(style)
        self._fill_grid(style)
        self._fill_blame(style)
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
        kinds = kinds_of(self.detail.attempts, tasks)
        for attempt in self.detail.attempts:
            mark = "●" if attempt.number == self.marked else ""
            kind = kinds[attempt.number]
            outcome = OUTCOME_VARIABLES.get(attempt.outcome, "warning")
            task = (Text(escape_controls(tasks.get(attempt.number, ""))),) if tasks else ()
            table.add_row(
                Text(mark, style=style("accent", bold=True)),
                *task,
                f"{attempt.number} {kind}",
                Text(attempt.outcome, style=style(outcome, bold=True)),
                # questions, answers, escalations, judge and verifier decisions follow the outcome
                _clipped(
                    " · ".join(filter(None, [attempt.summary, *attempt.notes, attempt.evidence]))
                    or "–",
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

    def _fill_blame(self, style: Callable[..., Style]) -> None:
        """Under the grid: each pass-to-fail flip, the attempt and the hunks that broke it."""
        shown = self.query_one("#blame", Static)
        shown.display = bool(self.blames)
        text = Text()
        for found in self.blames:
            text.append("✗ ", style=style("error", bold=True))
            text.append(escape_controls(found.describe()) + "\n")
        if any(found.hunks for found in self.blames):
            text.append("X puts their revert up for review as the run's next attempt")
        shown.update(text)

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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "revert_blamed":
            return any(found.hunks for found in self.blames)
        return True

    def action_revert_blamed(self) -> None:
        """Put the blamed hunks' revert up for review as the run's next attempt, and resume it."""
        if self.detail is None:
            return
        if getattr(self.app, "engine_running", False):
            self.notify("the run is working: revert once it waits or has ended", severity="warning")
            return
        run = self.detail.summary
        said, opened = propose_revert(ProjectPaths(self.logs.parent), run.run_id, self.blames)
        self.notify(said, severity="information" if opened else "warning", markup=False)
        if opened:
            self.post_message(ResumeRun(run.run_id, run.spec_path))

    def action_back(self) -> None:
        if self.marked is not None:
            self.marked = None
            self.repaint()
            return
        self.dismiss(None)
