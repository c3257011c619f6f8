"""One inbox run's whole change under the review screen's keys; enter lands it, rejects go back.

The screen is the review screen's decision and trial logic (:class:`DecisionsScreen`) around
a session made from the run's change (:mod:`core.batch.inbox_review`) instead of an engine's
proposal. Enter lands the accepted and undecided hunks in the person's project; when hunks were
rejected it first asks why, and a reason sends them back to the model as a new attempt (escape
drops them). ``f`` rejects the whole change with a reason. Escape goes back to the list with
the decisions kept.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

from orch_tui.core.batch.inbox_review import OpenedRun, finish_review
from orch_tui.core.batch.landing import Target
from orch_tui.core.batch.reviewed import ReviewRecord
from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.proposal import FileChange
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.core.util.wording import plural
from orch_tui.core.workspace.boundary import SafetyViolation
from orch_tui.core.workspace.git import GitError
from orch_tui.tui.messages import ReviewRequested
from orch_tui.tui.screens.dialogs import FeedbackScreen, HelpScreen
from orch_tui.tui.screens.review.decisions import DecisionsScreen
from orch_tui.tui.screens.review.screen import ReviewScreen
from orch_tui.tui.widgets.diff.coverage_marks import CoverageMarks, coverage_marks
from orch_tui.tui.widgets.diff.view import DiffView
from orch_tui.tui.widgets.file_list import FileList
from orch_tui.tui.widgets.key_footer import KeyFooter

NOT_HERE = {"review.toggle_sidebar", "app.history", "app.quit"}
"""Review keys that have no meaning for a finished run."""
WHOLE_PROMPT = "Reject the whole change and send it back to the model. Why? (escape cancels)"


def rejected_prompt(count: int) -> str:
    return (
        f"{plural(count, 'hunk')} rejected. Tell the model why to send them back as a new attempt "
        "(enter sends; escape lands the accepted hunks and drops the rejected ones):"
    )


class InboxReviewScreen(DecisionsScreen):
    """The run's change, its evidence above it; :attr:`review` is set when it is done."""

    DEFAULT_CSS = """
    InboxReviewScreen #inbox-header { height: auto; max-height: 8; padding: 0 1; }
    InboxReviewScreen #files { height: auto; max-height: 8; }
    InboxReviewScreen #diff { height: 1fr; }
    InboxReviewScreen #review-status { height: 2; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *(b for b in ReviewScreen.BINDINGS if isinstance(b, Binding) and b.id not in NOT_HERE),
        Binding("escape,q", "back", "Back", id="inbox.back"),
    ]

    def __init__(self, opened: OpenedRun, target: Target, config: Config) -> None:
        paths = ProjectPaths(opened.entry.folder)
        record = opened.entry.state.workspace
        # The trial copies the run's own workspace (``worktree`` for a batch given --workspace).
        super().__init__(config, paths.with_workspace(record.path) if record else paths)
        self.opened = opened
        self.target = target
        self.review: ReviewRecord | None = None
        """Set once the review is done (landed, sent back): the list reads it on dismissal."""

    def compose(self) -> ComposeResult:
        yield Static(self._header(), id="inbox-header")
        yield FileList(id="files")
        yield DiffView(id="diff")
        yield Static("", id="review-status")
        yield KeyFooter(compact=True)

    def _header(self) -> Content:
        entry, change = self.opened.entry, self.opened.change
        state = entry.state
        lines = [
            f"{entry.key} · {state.state} · {plural(state.attempts_made, 'attempt')} · ${state.cost_usd:.4f}"
            f" · {state.stop_reason or ''}",
            *change.evidence,
            f"accepted hunks land in {self.target}",
        ]
        return Content("\n".join(escape_controls(line) for line in lines))

    def on_mount(self) -> None:
        self.query_one(FileList).border_title = "Change since the run's start"
        diff = self.query_one(DiffView)
        diff.diff_layout = self.config.ui.diff_layout
        if self.opened.change.proposal.is_empty:
            self._set_status("The run changed nothing: enter marks it reviewed, escape goes back.")
            return
        self.post_message(ReviewRequested(self.opened.session))

    def _read_coverage(self, attempt: int) -> None:
        """The run's last checks measured its final workspace: the change's new side."""
        measured = self.opened.change.coverage
        self.coverage = (attempt, measured) if measured is not None else None
        self.query_one(DiffView).set_coverage(self._marks_of if measured is not None else None)

    def _marks_of(self, change: FileChange) -> CoverageMarks | None:
        if self.coverage is None:
            return None
        return coverage_marks(change, self.coverage[1], change.new_text)

    def action_apply(self) -> None:
        rejected = self.opened.session.counts()[1]
        if rejected:
            self.app.push_screen(FeedbackScreen(rejected_prompt(rejected)), self._finish)
        else:
            self._finish(None)

    def action_feedback(self) -> None:
        def rejected(reason: str | None) -> None:
            if reason is not None:
                self.opened.session.reject_all(reason)
                self._finish(None)

        self.app.push_screen(FeedbackScreen(WHOLE_PROMPT), rejected)

    def _finish(self, reason: str | None) -> None:
        self._stop_trial()
        try:
            review = finish_review(self.opened, self.target, reason)
        except (OSError, GitError, SafetyViolation) as exc:
            self.opened.session.decisions.reject_reason = None
            self.notify(
                f"Nothing was recorded: {exc}", title="Could not land", severity="error",
                markup=False, timeout=15,
            )  # fmt: skip
            return
        self.review = review
        self.dismiss(None)

    def action_back(self) -> None:
        self._stop_trial()
        self.dismiss(None)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())
