"""One attempt: its diff and decisions, test report and model text; ``R`` restores it."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static, TabbedContent, TabPane

from orch_tui.core.checks.coverage_map import CoverageMap
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.describe import hunk_decisions
from orch_tui.core.domain.proposal import FileChange
from orch_tui.core.domain.state import StateError
from orch_tui.core.history.detail import AttemptDetail, RunDetail, reviewed_changes
from orch_tui.core.history.export import format_duration
from orch_tui.core.loop.restore import RestoreError, plan_restore, restore_current_run
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.core.util.wording import plural
from orch_tui.tui.screens.dialogs import ConfirmScreen
from orch_tui.tui.screens.history.files_and_diff import FilesAndDiff
from orch_tui.tui.screens.history.themed import OUTCOME_VARIABLES, palette
from orch_tui.tui.widgets.diff.coverage_marks import CoverageMarks, coverage_marks
from orch_tui.tui.widgets.diff.view import DiffView
from orch_tui.tui.widgets.key_footer import KeyFooter


def _decisions_text(attempt: AttemptDetail) -> str:
    if attempt.proposal is None:
        return "No proposal was recorded for this attempt."
    if attempt.decisions is None:
        return "No decisions were recorded (the proposal was never reviewed)."
    accepted, rejected, undecided = attempt.decisions.counts(attempt.proposal)
    lines = [hunk_decisions(accepted, rejected, undecided)]
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


class AttemptScreen(FilesAndDiff):
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

    def load(self) -> None:
        """The attempt's coverage in the diff: its checks measured what it landed."""
        if isinstance(self.attempt.coverage, CoverageMap):
            self.query_one("#diff", DiffView).set_coverage(self._coverage_of)

    def _coverage_of(self, change: FileChange) -> CoverageMarks | None:
        assert isinstance(self.attempt.coverage, CoverageMap)
        landed = (self.attempt.applied or {}).get(change.path)
        return coverage_marks(change, self.attempt.coverage, landed)

    def repaint(self) -> None:
        attempt, style = self.attempt, palette(self)
        title = Text.assemble(
            (
                f"Run {self.detail.summary.run_id} · attempt {attempt.number} · ",
                style("foreground"),
            ),
            (attempt.outcome, style(OUTCOME_VARIABLES.get(attempt.outcome, "warning"), bold=True)),
            f" · {attempt.tokens:,} tokens · ${attempt.cost_usd:.4f} · {plural(attempt.turns, 'model turn')}"
            f" · {format_duration(attempt.duration_s)}",
        )
        if attempt.summary:
            title.append(f"\n{attempt.summary}")
        for note in [*attempt.notes, attempt.evidence]:
            if note:
                title.append(f"\n{note}", style=style("accent"))
        for problem in attempt.problems:
            title.append(f"\ndamaged: {problem}", style=style("error"))
        self.query_one("#attempt-title", Static).update(title)
        self.repaint_files("(no proposal)")
        decisions = escape_controls(_decisions_text(attempt), newlines=True)
        self.query_one("#attempt-decisions", Static).update(Text(decisions))
        self.query_one("#attempt-report", Static).update(_report_text(attempt, style))

    def action_restore(self) -> None:
        """Put the workspace back to this attempt's result (``orch-tui restore K``), once the
        person said yes to what it undoes."""
        if self.project is None:
            return
        if getattr(self.app, "engine_running", False):
            self.notify(
                "the run is working: restore once it waits or has ended", severity="warning"
            )
            return
        project, number, run_id = self.project, self.attempt.number, self.detail.summary.run_id
        try:
            plan = plan_restore(project, number, run_id)
        except (RestoreError, StateError) as exc:
            self.notify(str(exc), severity="error", markup=False)
            return

        def answered(yes: bool | None) -> None:
            if not yes:
                self.notify("nothing restored", markup=False)
                return
            try:
                said = restore_current_run(project, number, run_id)
            except (RestoreError, StateError) as exc:
                self.notify(str(exc), severity="error", markup=False)
                return
            self.notify(said, markup=False, timeout=10)

        self.app.push_screen(ConfirmScreen("Restore", plan.question()), answered)

    def action_next_tab(self) -> None:
        tabs = self.query_one("#attempt-tabs", TabbedContent)
        panes = ["tab-decisions", "tab-tests", "tab-model", "tab-output"]
        tabs.active = panes[(panes.index(tabs.active) + 1) % len(panes)]
