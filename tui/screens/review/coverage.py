"""Coverage in the review: which tests run each hunk; ``u`` finds the next hunk no test runs.

Two records can say it. Until the trial run reports, the last checks' coverage record before
the proposal's attempt (``core.history.coverage``) marks the old side: the proposal is made
against the workspace they measured, so it says which tests run the lines each hunk replaces
(the first review of a run, before any checks, shows nothing). Once the trial run (the checks
on a scratch copy with the proposal as decided) has measured the proposal itself, its coverage
marks the new side: the lines the hunk adds, and which tests run them. A later decision keeps
those marks on the lines the trial measured until the next trial reports. The record is read
off the UI thread and shown when it arrives, if the same proposal is still up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.binding import Binding, BindingType
from textual.message import Message

from orch_tui.core.checks.coverage_map import CoverageMap
from orch_tui.core.checks.trial import TrialOutcome
from orch_tui.core.domain.proposal import FileChange
from orch_tui.core.history.coverage import last_coverage
from orch_tui.tui.screens.review.trial import TrialRunScreen
from orch_tui.tui.widgets.diff.coverage_marks import CoverageMarks, coverage_marks, next_uncovered
from orch_tui.tui.widgets.diff.view import DiffView
from orch_tui.tui.widgets.run_header import RunHeader


class CoverageRead(Message):
    """The last coverage record before ``attempt`` (None: there is none)."""

    def __init__(self, attempt: int, measured: tuple[int, CoverageMap] | None) -> None:
        super().__init__()
        self.attempt = attempt
        self.measured = measured


class ReviewCoverage(TrialRunScreen):
    """The coverage marks of the proposal under review, and the key to its untested hunks."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("u", "next_uncovered", "Next untested", show=False, id="review.next_uncovered"),
    ]

    coverage: tuple[int, CoverageMap] | None = None
    """The attempt whose checks measured the workspace under review, and its map."""
    trial_coverage: tuple[TrialOutcome, CoverageMap] | None = None
    """The last trial run of the proposal under review that measured coverage."""

    def _read_coverage(self, attempt: int) -> None:
        """Clear the marks of the last proposal and read the record for this one."""
        self.coverage = None
        self.trial_coverage = None
        self.query_one(DiffView).set_coverage(None)
        run_id = self.query_one(RunHeader).run_id
        if run_id and attempt > 0:
            self._read_coverage_worker(run_id, attempt)

    @work(thread=True, exclusive=True, group="coverage", exit_on_error=False)
    def _read_coverage_worker(self, run_id: str, attempt: int) -> None:
        self.post_message(CoverageRead(attempt, last_coverage(self.paths.logs / run_id, attempt)))

    @on(CoverageRead)
    def _coverage_read(self, message: CoverageRead) -> None:
        if self.session is None or self.session.attempt != message.attempt:
            return  # another proposal is up
        self.coverage = message.measured
        if message.measured is not None:
            self.query_one(DiffView).set_coverage(self._marks_of)

    def _trial_measured(self, outcome: TrialOutcome) -> None:
        if isinstance(outcome.coverage, CoverageMap):
            self.trial_coverage = (outcome, outcome.coverage)
            self.query_one(DiffView).set_coverage(self._marks_of)

    def _marks_of(self, change: FileChange) -> CoverageMarks | None:
        if self.trial_coverage is not None:
            outcome, measured = self.trial_coverage
            return coverage_marks(change, measured, outcome.measured_text(change))
        if self.coverage is None:
            return None
        return coverage_marks(change, self.coverage[1], change.old_text)

    def action_next_uncovered(self) -> None:
        """Go to the next hunk no test runs (wrapping round): by the trial's coverage of its
        new lines, or before the trial by the last checks' of the lines it replaces."""
        if not self._need_session():
            return
        assert self.session is not None and self.cursor is not None
        if self.coverage is None and self.trial_coverage is None:
            self.notify("No coverage yet: the checks have not measured this workspace.")
            return
        found = next_uncovered(
            self.session.effective.changes, self._marks_of, self.cursor.file, self.cursor.hunk
        )
        if found is None:
            self.notify(
                "Every hunk with measured lines is run by some test."
                if self.trial_coverage is not None
                else "Every hunk with measured lines replaces lines some test runs."
            )
            return
        self.cursor.file, self.cursor.hunk = found
        self._refresh_review(decided=False)

    if TYPE_CHECKING:  # the decisions screen's, above this class

        def _refresh_review(self, *, decided: bool = True) -> None: ...
