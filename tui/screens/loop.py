"""The review screen: spec, attempt timeline, proposal diff, model text and test output.

It holds no loop logic: engine events arrive as messages and update widgets;
the person's keys become calls on the :class:`ReviewSession` the engine handed
over, and ``enter`` / ``f`` / ``q`` release the waiting engine thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Log, Markdown, Static, TabbedContent, TabPane

from core import events as ev
from core.history import HistoryError, load_run
from core.proposal import FileChange, HunkDecision, Proposal
from core.review import ReviewSession
from core.verify import run_trial
from tui.messages import EngineEvent, EngineStopped, ReviewRequested, TrialFinished
from tui.review_cursor import ReviewCursor
from tui.screens.dialogs import EditScreen, FeedbackScreen, HelpScreen, StoppedScreen
from tui.widgets.diff_view import DiffView
from tui.widgets.file_list import FileList
from tui.widgets.run_header import Clock, RunHeader
from tui.widgets.timeline import Timeline

if TYPE_CHECKING:
    from tui.app import OrchApp

TRIAL_RUNNING = "tests: running the checks on a scratch copy with the whole proposal…"


def log_line(log: Log, text: str) -> None:
    """Write ``text`` as a line of its own, even after streamed text that ended mid-line."""
    prefix = "\n" if log.lines and log.lines[-1] else ""
    log.write(f"{prefix}{text}\n")


class LoopScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "decide('accepted')", "Accept", id="review.accept_hunk"),
        Binding("n", "decide('rejected')", "Reject", id="review.reject_hunk"),
        Binding("Y", "decide_file('accepted')", "Accept file", show=False, id="review.accept_file"),
        Binding("N", "decide_file('rejected')", "Reject file", show=False, id="review.reject_file"),
        Binding("right_square_bracket", "move('next_hunk')", "Next hunk", id="review.next_hunk"),
        Binding(
            "left_square_bracket",
            "move('previous_hunk')",
            "Prev hunk",
            show=False,
            id="review.previous_hunk",
        ),
        Binding(
            "right_curly_bracket",
            "move('next_file')",
            "Next file",
            show=False,
            id="review.next_file",
        ),
        Binding(
            "left_curly_bracket",
            "move('previous_file')",
            "Prev file",
            show=False,
            id="review.previous_file",
        ),
        Binding("e", "edit", "Edit", id="review.edit"),
        Binding("f", "feedback", "Reject all", id="review.reject_all"),
        # Not a priority binding: enter must wait behind the decision keys typed before it.
        Binding("enter", "apply", "Apply", id="review.apply"),
        Binding("v", "toggle_layout", "Layout", id="review.toggle_layout"),
        Binding("h", "history", "History", id="app.history"),
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("q", "quit_run", "Quit", id="app.quit"),
    ]

    def __init__(self, spec_text: str, diff_layout: str, clock: Clock = time.monotonic) -> None:
        super().__init__()
        self.spec_text = spec_text
        self.diff_layout = diff_layout
        self.clock = clock
        self.session: ReviewSession | None = None
        self.effective: Proposal | None = None
        """The session's proposal with the person's edits; recomputed only after an edit."""
        self.cursor: ReviewCursor | None = None
        self.trial_text = ""
        """What the trial run says about the proposal under review (see :data:`TRIAL_RUNNING`)."""
        self.finished: ev.RunFinished | None = None
        self.failing: list[str] = []

    @property
    def orch(self) -> OrchApp:
        return self.app  # type: ignore[return-value]

    # -- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield RunHeader(self.clock, id="run-header")
        with Horizontal(id="body"):
            with Vertical(id="sidebar"):
                with VerticalScroll(id="spec-pane"):
                    yield Markdown(self.spec_text, id="spec")
                yield Timeline(id="timeline")
            with Vertical(id="main"):
                yield FileList(id="files")
                yield DiffView(id="diff")
                yield Static("Waiting for the model…", id="review-status")
                with TabbedContent(id="activity"):
                    with TabPane("Model", id="model-tab"):
                        yield Log(id="model-log", highlight=False)
                    with TabPane("Tests", id="tests-tab"):
                        yield Static("", id="failing")
                        yield Log(id="test-log", highlight=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#spec-pane").border_title = "Spec"
        self.query_one(Timeline).border_title = "Attempts"
        self.query_one(FileList).border_title = "Proposal"
        diff = self.query_one(DiffView)
        diff.layout = self.diff_layout
        diff.focus()

    @property
    def model_log(self) -> Log:
        return self.query_one("#model-log", Log)

    # -- engine events --------------------------------------------------------------------

    @on(EngineEvent)
    def _engine_event(self, message: EngineEvent) -> None:
        event = message.event
        header = self.query_one(RunHeader)
        timeline = self.query_one(Timeline)
        if isinstance(event, ev.RunStarted):
            header.run_id, header.state = event.run_id, event.state
            header.attempt, header.max_retries = event.attempt, event.max_retries
            if event.resumed:
                self._show_past_attempts(event.run_id, event.attempt)
        elif isinstance(event, ev.Notice):
            self.notify(event.message, timeout=8)
            log_line(self.model_log, f"note: {event.message}")
        elif isinstance(event, ev.StateChanged):
            header.state, header.attempt = event.state, event.attempt
            header.max_retries = event.max_retries
            if event.state in ("GENERATING", "PATCHING"):
                log_line(self.model_log, f"── attempt {event.attempt} ──")
                self.query_one(TabbedContent).active = "model-tab"
            if event.state == "TESTING":
                self.query_one("#test-log", Log).clear()
                self.query_one(TabbedContent).active = "tests-tab"
            timeline.note(event.attempt, event.state.lower())
        elif isinstance(event, ev.ModelText):
            self.model_log.write(event.text)
        elif isinstance(event, ev.ToolEdit):
            mark = "" if event.ok else " (refused)"
            log_line(self.model_log, f"  ✎ {event.command} {event.path or ''}{mark}")
        elif isinstance(event, ev.ModelTurn):
            header.tokens, header.cost = event.run_tokens, event.run_cost_usd
        elif isinstance(event, ev.ProposalReady):
            timeline.note(
                event.attempt, f"{len(event.files)} files +{event.added} -{event.removed}"
            )
        elif isinstance(event, ev.CheckOutput):
            self.query_one("#test-log", Log).write(event.text)
        elif isinstance(event, ev.TestsFinished):
            self._tests_finished(event)
        elif isinstance(event, ev.RunFinished):
            self.finished = event
            header.state = event.state
            self._set_status(f"{event.state}: {event.stop_reason or ''} · q quits")

    def _show_past_attempts(self, run_id: str, current: int) -> None:
        """A resumed run: its earlier attempts in the timeline, the current one's model text."""
        try:
            detail = load_run(self.orch.paths.logs, run_id)
        except (HistoryError, OSError, ValueError):
            return
        self.query_one(Timeline).load(detail.attempts)
        for attempt in detail.attempts:
            if attempt.number == current and attempt.model_text:
                log_line(self.model_log, f"── attempt {current} (saved) ──")
                log_line(self.model_log, attempt.model_text)

    def _tests_finished(self, event: ev.TestsFinished) -> None:
        self.failing = event.failing
        self.query_one(Timeline).note(
            event.attempt, ("✓ " if event.passed else "✗ ") + event.summary
        )
        listing = "\n".join(f"✗ {test}" for test in event.failing[:20])
        errors = "\n".join(event.errors)
        self.query_one("#failing", Static).update("\n".join(filter(None, [errors, listing])))
        for error in event.errors:
            self.notify(
                f"{error}\nCheck [checks] in orchestrator.toml; q quits and the run resumes.",
                title="A check could not run",
                severity="error",
                timeout=15,
            )

    @on(EngineStopped)
    def _engine_stopped(self, message: EngineStopped) -> None:
        self.orch.exit_code = message.exit_code
        finished = self.finished
        if message.error:
            self.app.push_screen(
                StoppedScreen(
                    "orch-tui stopped",
                    message.error + "\nThe last saved step resumes when you run the same command.",
                    can_retry=False,
                ),
                self._after_stopped,
            )
        elif finished and finished.state == "FAILED":
            reason = finished.stop_reason or "the run failed"
            can_retry = reason.startswith("model error")
            hint = "" if can_retry else "\nStart again with --fresh, or change the spec."
            if reason.startswith("safety"):
                hint = "\nNothing the model proposed was written."
            self.app.push_screen(
                StoppedScreen("The run stopped", reason + hint, can_retry), self._after_stopped
            )
        elif finished and finished.state == "SUCCESS":
            self.notify("All checks passed. q quits; h shows the history.", timeout=10)

    def _after_stopped(self, choice: str | None) -> None:
        if choice == "retry":
            self.finished = None
            self._set_status("asking the model again…")
            self.orch.retry_run()
        elif choice == "quit":
            self.app.exit(self.orch.exit_code)

    # -- review ---------------------------------------------------------------------------

    @on(ReviewRequested)
    def _review_requested(self, message: ReviewRequested) -> None:
        self.session = message.session
        self.effective = self.session.effective
        self.cursor = ReviewCursor(self.effective)
        self.cursor.first_undecided(self.session.decisions)
        self.trial_text = TRIAL_RUNNING
        self._refresh_review()
        self.query_one(DiffView).focus()
        self._run_trial(message.session)

    @work(thread=True, exclusive=True, group="trial")
    def _run_trial(self, session: ReviewSession) -> None:
        """Post-only thread worker: runs the checks on a scratch copy."""
        state = self.orch.engine.state
        before = (state.last_test or {}).get("failing") if state.last_test else None
        try:
            outcome = run_trial(
                self.orch.config, self.orch.paths.workspace, session.proposal, before
            )
        except Exception as exc:  # noqa: BLE001 - the evidence is advisory; say why it is missing
            self.post_message(TrialFinished(session.attempt, None, str(exc)))
        else:
            self.post_message(TrialFinished(session.attempt, outcome, None))

    @on(TrialFinished)
    def _trial_finished(self, message: TrialFinished) -> None:
        if self.session is None or self.session.attempt != message.attempt:
            return
        if message.outcome is None:
            self.trial_text = f"tests: the trial run could not start: {message.error}"
        else:
            outcome = message.outcome
            self.trial_text = (
                "tests " if outcome.before is None else "tests: "
            ) + outcome.summary()
        self._refresh_status()

    def _current_change(self) -> FileChange | None:
        if self.effective is None or self.cursor is None or not self.cursor.positions:
            return None
        return self.effective.changes[self.cursor.file]

    def _refresh_review(self, *, decided: bool = True) -> None:
        """Show the cursor's file and hunk; ``decided``: decisions changed, redo the file list.

        A move alone leaves the file list's lines as they are: rebuilding them would lay the
        whole screen out again on every key.
        """
        session, cursor, effective = self.session, self.cursor, self.effective
        files = self.query_one(FileList)
        diff = self.query_one(DiffView)
        if session is None or cursor is None or effective is None:
            diff.show(None, [])
            files.clear_options()
            return
        if decided or files.option_count != effective.file_count:
            files.show(effective, session.decisions)
        change = self._current_change()
        if change is not None:
            files.current = cursor.file
            decisions = session.decisions.for_file(change)
            if diff.change is not change:
                diff.show(change, decisions)
            else:
                diff.set_decisions(decisions)
            diff.cursor_hunk = cursor.hunk
        self._refresh_status()

    def counts(self) -> tuple[int, int, int]:
        """(accepted, rejected, undecided) hunks of the proposal under review."""
        tally = dict.fromkeys(HunkDecision, 0)
        if self.session is not None and self.effective is not None:
            for change in self.effective.changes:
                for decision in self.session.decisions.for_file(change):
                    tally[decision] += 1
        return (
            tally[HunkDecision.ACCEPTED],
            tally[HunkDecision.REJECTED],
            tally[HunkDecision.UNDECIDED],
        )

    def _refresh_status(self) -> None:
        if self.session is None or self.cursor is None or self.effective is None:
            return
        accepted, rejected, undecided = self.counts()
        where = ""
        change = self._current_change()
        if change is not None:
            where = (
                f"file {self.cursor.file + 1}/{self.effective.file_count} · "
                f"hunk {self.cursor.hunk + 1}/{max(len(change.hunks), 1)} · "
            )
        self._set_status(
            f"attempt {self.session.attempt} · {where}{accepted} accepted · {rejected} rejected · "
            f"{undecided} undecided — enter applies (undecided = accepted)\n{self.trial_text}"
        )

    def _set_status(self, text: str) -> None:
        # The status line has a fixed height: no layout pass for the whole screen.
        self.query_one("#review-status", Static).update(text, layout=False)

    def _need_session(self) -> bool:
        if self.session is None or self.cursor is None:
            self.notify("Nothing to review right now.", severity="warning")
            return False
        return True

    def _record(self, decide: Callable[[], None]) -> None:
        """Make a decision; if saving it fails, it is still held and saved again on apply."""
        try:
            decide()
        except OSError as exc:
            self.notify(
                f"Could not save to the run log: {exc}. The decision is kept and saved again "
                "when you apply; free the disk before quitting.",
                title="Decision not saved",
                severity="error",
                timeout=15,
            )

    def action_decide(self, decision: str) -> None:
        self._decide(HunkDecision(decision), whole_file=False)

    def action_decide_file(self, decision: str) -> None:
        self._decide(HunkDecision(decision), whole_file=True)

    def _decide(self, decision: HunkDecision, *, whole_file: bool) -> None:
        """Record a decision on the hunk (or file) under the cursor, then go to the next undecided."""
        if not self._need_session():
            return
        assert self.session and self.cursor
        change = self._current_change()
        if change is None:
            return
        session, hunk = self.session, self.cursor.hunk
        if change.hunks and not whole_file:
            self._record(lambda: session.decide(change.path, hunk, decision))
        else:  # a whole file, or one whose only hunk is an empty file's
            self._record(lambda: session.decide_file(change.path, decision))
        self.cursor.next_undecided(session.decisions)
        self._refresh_review()

    def action_move(self, where: str) -> None:
        if not self._need_session():
            return
        assert self.cursor
        getattr(self.cursor, where)()
        self._refresh_review(decided=False)

    @on(FileList.Selected)
    def _file_selected(self, message: FileList.Selected) -> None:
        if self.cursor is not None:
            self.cursor.select_file(message.index)
            self._refresh_review(decided=False)
            self.query_one(DiffView).focus()

    def action_edit(self) -> None:
        if not self._need_session():
            return
        change = self._current_change()
        if change is None:
            return
        if change.new_text is None:
            self.notify("This file is deleted by the proposal; reject it with n to keep it.")
            return
        path = change.path

        def edited(text: str | None) -> None:
            session = self.session
            if text is None or session is None or self.cursor is None:
                return
            self._record(lambda: session.edit(path, text))
            self.effective = session.effective
            self.cursor.proposal = self.effective
            self.cursor.hunk = 0
            self._refresh_review()
            self.notify(f"Edited {path}: your text is what lands.")

        self.app.push_screen(EditScreen(path, change.new_text), edited)

    def action_feedback(self) -> None:
        if not self._need_session():
            return

        def rejected(reason: str | None) -> None:
            session = self.session
            if reason is None or session is None:
                return
            self._record(lambda: session.reject_all(reason))
            self._release("the whole proposal was rejected; the model gets your reason")

        self.app.push_screen(FeedbackScreen(), rejected)

    def action_apply(self) -> None:
        if not self._need_session():
            return
        self._release("applying the decisions and running the checks…")

    def _release(self, status: str) -> None:
        self.session = None
        self.effective = None
        self.cursor = None
        self.trial_text = ""
        self._refresh_review()
        self._set_status(status)
        self.orch.reviewer.finish()

    def action_toggle_layout(self) -> None:
        diff = self.query_one(DiffView)
        diff.layout = "unified" if diff.layout == "split" else "split"
        self.orch.config.ui.diff_layout = diff.layout
        self.orch.save_setting("diff_layout", diff.layout)

    def action_history(self) -> None:
        self.orch.open_history()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_quit_run(self) -> None:
        self.orch.quit_run()
