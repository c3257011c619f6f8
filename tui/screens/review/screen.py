"""The review screen: spec, attempt timeline, proposal diff, model text and test output.

It holds no loop logic: engine events arrive as messages and update widgets;
the person's keys become calls on the :class:`ReviewSession` the engine handed
over. What only the app may do (release the waiting engine thread, retry, quit)
the screen asks for with a message (``tui/messages.py``); it never imports the app.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Log, Markdown, Static, TabbedContent, TabPane

from orch_tui.core.checks.leftovers import RUNNING_DIR
from orch_tui.core.checks.runner import kill_running_checks
from orch_tui.core.checks.sandbox import resolve_sandbox
from orch_tui.core.checks.trial import configured_checks, run_trial
from orch_tui.core.checks.venv import check_python
from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain import events as ev
from orch_tui.core.domain.asking import Question
from orch_tui.core.domain.describe import describe
from orch_tui.core.domain.plan import Plan
from orch_tui.core.domain.proposal import Decisions, FileChange, HunkDecision
from orch_tui.core.domain.state import RunState, StateStore
from orch_tui.core.history.detail import HistoryError, load_run
from orch_tui.core.loop.engine import EXIT_SAFETY
from orch_tui.core.loop.review import ReviewCursor, ReviewSession
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.core.util.wording import plural
from orch_tui.tui.messages import (
    ContinueRun,
    DecisionsFinal,
    EngineEvent,
    EngineStopped,
    OpenHistory,
    PlanApproved,
    PlanRequested,
    QuitRun,
    RetryRun,
    ReviewRequested,
    SettingChanged,
    TrialFinished,
)
from orch_tui.tui.screens.dialogs import EditScreen, FeedbackScreen, HelpScreen, StoppedScreen
from orch_tui.tui.screens.needs_help import NeedsHelpScreen
from orch_tui.tui.screens.plan import PlanScreen
from orch_tui.tui.widgets.diff.view import DiffView
from orch_tui.tui.widgets.file_list import FileList
from orch_tui.tui.widgets.following_log import FollowingLog
from orch_tui.tui.widgets.key_footer import KeyFooter
from orch_tui.tui.widgets.run_header import Clock, RunHeader
from orch_tui.tui.widgets.timeline import Timeline

TRIAL_RUNNING = "tests: running the checks on a scratch copy with the proposal as decided…"
TRIAL_OUTDATED = "tests: the decisions changed; running the trial again…"
TRIAL_STALE = "tests: the decisions changed since the trial run; t runs it again"
TRIAL_RERUN_DELAY_S = 0.4
"""After a decision, how long the screen waits for the next one before the trial runs again."""
MODEL_LOG_MAX_LINES = 5_000
"""Lines the model pane keeps: the oldest go first, so a long run's streamed text (every
attempt's) cannot grow without bound; each attempt's full text is in its conversation.json."""
TEST_LOG_MAX_LINES = 10_000
"""Lines the test pane keeps; each run's captured output is in its test-output.txt."""
SIDEBAR_MIN_WIDTH = 120
"""Columns from which the spec and the timeline are shown beside the proposal by default;
on a narrower terminal the diff takes the whole width (``s`` shows them)."""


def log_write(log: Log, text: str) -> None:
    """Write ``text`` from the model or a check: Textual's Log passes ``\\x1b`` and C1 codes to
    the terminal, so control characters other than newline and tab are spelt out first."""
    log.write(escape_controls(text, newlines=True))


def log_line(log: Log, text: str) -> None:
    """Write ``text`` as a line of its own, even after streamed text that ended mid-line."""
    prefix = "\n" if log.lines and log.lines[-1] else ""
    log_write(log, f"{prefix}{text}\n")


class ReviewScreen(Screen[None]):
    # Size classes for app.tcss: on a small terminal the panes around the diff give way.
    HORIZONTAL_BREAKPOINTS = [
        (0, "-narrow"),
        (SIDEBAR_MIN_WIDTH, "-wide"),
    ]
    VERTICAL_BREAKPOINTS = [
        (0, "-short"),
        (32, "-medium"),
        (42, "-tall"),
    ]
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
        # Not a priority binding: enter must wait behind the decision keys typed before it.
        Binding("enter", "apply", "Apply", id="review.apply"),
        # Early in the list: the footer is cut on a narrow terminal, and ? must stay in it.
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("e", "edit", "Edit", id="review.edit"),
        Binding("f", "feedback", "Reject all", id="review.reject_all"),
        Binding("v", "toggle_layout", "Layout", id="review.toggle_layout"),
        Binding("t", "trial", "Trial run", id="review.trial"),
        Binding("s", "toggle_sidebar", "Spec", show=False, id="review.toggle_sidebar"),
        Binding("h", "history", "History", id="app.history"),
        Binding("q", "quit_run", "Quit", id="app.quit"),
    ]

    def __init__(
        self, spec_text: str, config: Config, paths: ProjectPaths, clock: Clock = time.monotonic
    ) -> None:
        super().__init__()
        self.spec_text = spec_text
        self.config = config
        self.paths = paths
        self.clock = clock
        self.session: ReviewSession | None = None
        self.cursor: ReviewCursor | None = None
        self.trial_text = ""
        """What the trial run says about the proposal under review (see :data:`TRIAL_RUNNING`)."""
        self.trial_round = 0
        """Counts trial runs started; a result of an earlier round is out of date and dropped."""
        self.trial_started = False
        """A trial run was started for the proposal under review (so decisions outdate it)."""
        self.trial_timer: Timer | None = None
        sandbox = resolve_sandbox(config.checks.sandbox)
        self.trial_auto = sandbox.confined
        """The trial starts by itself only in the sandbox: it runs the model's code unreviewed."""
        self.finished: ev.RunFinished | None = None
        self.leaving = False
        """q was pressed: the app is leaving, so a stop arriving now opens no dialog."""

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
                        yield FollowingLog(
                            id="model-log", highlight=False, max_lines=MODEL_LOG_MAX_LINES
                        )
                    with TabPane("Tests", id="tests-tab"):
                        yield Static("", id="failing")
                        yield FollowingLog(
                            id="test-log", highlight=False, max_lines=TEST_LOG_MAX_LINES
                        )
        yield KeyFooter(compact=True)

    def on_mount(self) -> None:
        self.query_one("#spec-pane").border_title = "Spec"
        self.query_one(Timeline).border_title = "Attempts"
        self.query_one(FileList).border_title = "Proposal"
        diff = self.query_one(DiffView)
        diff.diff_layout = self.config.ui.diff_layout
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
            header.sandbox = event.sandbox
            header.tokens, header.cost = event.tokens, event.cost_usd
            if event.model_in_use and event.model_in_use != event.model:
                header.model = event.model_in_use  # resumed after an escalation
            if event.resumed:
                self._show_past_attempts(event.run_id, event.attempt)
        elif isinstance(event, ev.Notice):
            self.notify(escape_controls(event.message, newlines=True), timeout=8, markup=False)
            log_line(self.model_log, f"note: {escape_controls(event.message)}")
        elif isinstance(event, ev.StateChanged):
            header.state, header.attempt = event.state, event.attempt
            header.max_retries = event.max_retries
            if event.state in (RunState.GENERATING, RunState.PATCHING):
                log_line(self.model_log, f"── attempt {event.attempt} ──")
                self.query_one(TabbedContent).active = "model-tab"
            if event.state is RunState.TESTING:
                self.query_one("#test-log", Log).clear()
                self.query_one(TabbedContent).active = "tests-tab"
            timeline.note(event.attempt, event.state.lower())
        elif isinstance(event, ev.TaskStarted):
            header.current_task = event
            timeline.start_task(event)
        elif isinstance(event, ev.ModelText):
            log_write(self.model_log, event.text)
        elif isinstance(event, ev.ToolEdit):
            mark = "" if event.ok else " (refused)"
            path = escape_controls(event.path or "")
            log_line(self.model_log, f"  ✎ {event.command} {path}{mark}")
        elif isinstance(event, ev.ModelTurn):
            header.tokens, header.cost = event.run_tokens, event.run_cost_usd
        elif isinstance(event, ev.ProposalReady):
            timeline.note(
                event.attempt, f"{plural(len(event.files), 'file')} +{event.added} -{event.removed}"
            )
        elif isinstance(event, ev.CheckOutput):
            log_write(self.query_one("#test-log", Log), event.text)
        elif isinstance(event, ev.TestsFinished):
            self._tests_finished(event)
        elif isinstance(event, ev.NOTE_EVENTS):
            if isinstance(event, ev.Escalated):
                header.model = event.to_model
            note = describe(event)
            log_line(self.model_log, f"── {note}")
            timeline.note(event.attempt, note)
        elif isinstance(event, ev.RunFinished):
            self.finished = event
            header.state = event.state
            self._set_status(f"{event.state}: {event.stop_reason or ''} · q quits")

    def _show_past_attempts(self, run_id: str, current: int) -> None:
        """A resumed run: its earlier attempts in the timeline, the current one's model text."""
        try:
            detail = load_run(self.paths.logs, run_id)
        except (HistoryError, OSError, ValueError):
            return
        self.query_one(Timeline).load(detail.attempts)
        for attempt in detail.attempts:
            if attempt.number == current and attempt.model_text:
                log_line(self.model_log, f"── attempt {current} (saved) ──")
                log_line(self.model_log, attempt.model_text)

    def _tests_finished(self, event: ev.TestsFinished) -> None:
        self.query_one(Timeline).note(
            event.attempt, ("✓ " if event.passed else "✗ ") + event.summary
        )
        # Test names and errors come from the tests the model wrote: control characters spelt out.
        errors = [escape_controls(error) for error in event.errors]
        listing = [f"✗ {escape_controls(test)}" for test in event.failing[:20]]
        self.query_one("#failing", Static).update(Content("\n".join([*errors, *listing])))
        for error in errors:
            self.notify(
                f"{error}\nCheck [checks] in orchestrator.toml; q quits and the run resumes.",
                title="A check could not run",
                severity="error",
                timeout=15,
                markup=False,
            )

    @on(EngineStopped)
    def _engine_stopped(self, message: EngineStopped) -> None:
        """Say why the run stopped; the message bubbles on to the app, which keeps the exit code."""
        if self.leaving:  # q raced the stop: the app is leaving, no dialog to answer
            return
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
        elif finished and finished.state is RunState.FAILED:
            reason = finished.stop_reason or "the run failed"
            can_retry = finished.retryable
            safety = finished.exit_code == EXIT_SAFETY
            hint = "" if can_retry else "\nStart again with --fresh, or change the spec."
            if safety:
                hint = "\nNothing the model proposed was written."
            can_continue = not (can_retry or safety)
            self.app.push_screen(
                StoppedScreen("The run stopped", reason + hint, can_retry, can_continue),
                self._after_stopped,
            )
        elif finished and finished.state is RunState.NEEDS_HELP:
            self._ask_person()
        elif finished and finished.state is RunState.SUCCESS:
            self.notify("All checks passed. q quits; h shows the history.", timeout=10)

    def _after_stopped(self, choice: str | None) -> None:
        if choice == "retry":
            self.finished = None
            self._set_status("asking the model again…")
            self.post_message(RetryRun())
        elif choice == "continue":
            self._continue(None)
        elif choice == "guidance":
            self.app.push_screen(NeedsHelpScreen(None), self._answered)
        elif choice == "quit":
            self._leave()

    def _ask_person(self) -> None:
        """The run waits on a question (the model's, or a stuck loop's): show it."""
        state = StateStore(self.paths.state).load()  # as saved: never the engine's own copy
        saved = state.question if state else None
        question = Question.from_json(saved) if saved else None
        self.app.push_screen(NeedsHelpScreen(question), self._answered)

    def _answered(self, answer: str | None) -> None:
        if answer is None:
            self._set_status("NEEDS_HELP: the run waits for an answer · q quits (it asks again)")
            return
        self._continue(answer)

    def _continue(self, guidance: str | None) -> None:
        self.finished = None
        self._set_status("continuing the run…")
        self.post_message(ContinueRun(guidance))

    # -- review ---------------------------------------------------------------------------

    @on(PlanRequested)
    def _plan_requested(self, message: PlanRequested) -> None:
        def decided(plan: Plan | None) -> None:
            if plan is None:
                self._leave()
            else:
                self._set_status("plan approved")
                self.post_message(PlanApproved(plan))

        self.app.push_screen(PlanScreen(message.plan), decided)

    @on(ReviewRequested)
    def _review_requested(self, message: ReviewRequested) -> None:
        self.session = message.session
        self.cursor = ReviewCursor(self.session.effective)
        self.cursor.first_undecided(self.session.decisions)
        self.trial_started = False
        self.trial_text = self._trial_offer()
        self._refresh_review()
        self.query_one(DiffView).focus()
        if self.trial_auto:
            self._start_trial()

    def _trial_offer(self) -> str:
        """Without a sandbox: the one line that says what the t key would run."""
        python = check_python(self.config, self.paths.workspace)
        checks = configured_checks(self.config, python)
        commands = "; ".join(" ".join(check.command) for check in checks)
        return (
            "tests: no trial run without a sandbox (it would run the model's code unreviewed); "
            f"t runs `{commands}` on a scratch copy"
        )

    def action_trial(self) -> None:
        if self._need_session():
            self._start_trial()

    def _start_trial(self) -> None:
        """Run the trial for the decisions as they are now; a trial still running is stopped."""
        session = self.session
        if session is None:
            return
        self._stop_trial()
        self.trial_started = True
        self.trial_text = TRIAL_RUNNING
        self._refresh_status()
        snapshot = Decisions.from_json(session.decisions.to_json())
        self._run_trial(session, snapshot, self.trial_round)

    def _stop_trial(self) -> None:
        """Outdate the trial under way (its result will be dropped) and kill its checks."""
        if self.trial_timer is not None:
            self.trial_timer.stop()
            self.trial_timer = None
        self.trial_round += 1
        # Only a trial can be running while the review is open: the engine waits on it.
        kill_running_checks()

    def _trial_outdated(self) -> None:
        """A decision or an edit changed what would land: the trial's line must follow."""
        if not self.trial_started:
            return
        self._stop_trial()
        if self.trial_auto:
            self.trial_text = TRIAL_OUTDATED
            self.trial_timer = self.set_timer(TRIAL_RERUN_DELAY_S, self._start_trial)
        else:
            self.trial_text = TRIAL_STALE

    @work(thread=True, group="trial")
    def _run_trial(self, session: ReviewSession, decisions: Decisions, round_: int) -> None:
        """Post-only thread worker: runs the checks on a scratch copy."""
        try:
            outcome = run_trial(
                self.config,
                self.paths.workspace,
                session.proposal,
                session.failing_before,
                decisions,
                running=self.paths.root / RUNNING_DIR,
            )
        except Exception as exc:  # noqa: BLE001 - the evidence is advisory; say why it is missing
            self.post_message(TrialFinished(session.attempt, None, str(exc), round_))
        else:
            self.post_message(TrialFinished(session.attempt, outcome, None, round_))

    @on(TrialFinished)
    def _trial_finished(self, message: TrialFinished) -> None:
        if self.session is None or self.session.attempt != message.attempt:
            return
        if message.round != self.trial_round:
            return  # a decision came after it started: its result is out of date
        if message.outcome is None:
            self.trial_text = f"tests: the trial run could not start: {message.error}"
        else:
            outcome = message.outcome
            self.trial_text = (
                "tests " if outcome.before is None else "tests: "
            ) + outcome.summary()
        self._refresh_status()

    def _current_change(self) -> FileChange | None:
        if self.session is None or self.cursor is None or not self.cursor.positions:
            return None
        return self.session.effective.changes[self.cursor.file]

    def _refresh_review(self, *, decided: bool = True) -> None:
        """Show the cursor's file and hunk; ``decided``: decisions changed, redo the file list.

        A move alone leaves the file list's lines as they are: rebuilding them would lay the
        whole screen out again on every key.
        """
        session, cursor = self.session, self.cursor
        files = self.query_one(FileList)
        diff = self.query_one(DiffView)
        if session is None or cursor is None:
            diff.show(None, [])
            files.clear_options()
            return
        effective = session.effective
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

    def _refresh_status(self) -> None:
        if self.session is None or self.cursor is None:
            return
        accepted, rejected, undecided = self.session.counts()
        where = ""
        change = self._current_change()
        if change is not None:
            where = (
                f"file {self.cursor.file + 1}/{self.session.effective.file_count} · "
                f"hunk {self.cursor.hunk + 1}/{max(len(change.hunks), 1)} · "
            )
        self._set_status(
            f"attempt {self.session.attempt} · {where}{accepted} accepted · {rejected} rejected · "
            f"{undecided} undecided — enter applies (undecided = accepted)\n{self.trial_text}"
        )

    def _set_status(self, text: str) -> None:
        # The status line has a fixed height: no layout pass for the whole screen.
        self.query_one("#review-status", Static).update(Content(text), layout=False)

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
                markup=False,
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
        self._trial_outdated()
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
            self.cursor.proposal = session.effective
            self.cursor.hunk = 0
            self._trial_outdated()
            self._refresh_review()
            self.notify(f"Edited {escape_controls(path)}: your text is what lands.", markup=False)

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
        # The review is over: a trial run still going would only compete with the real run.
        self._stop_trial()
        self.trial_started = False
        self.session = None
        self.cursor = None
        self.trial_text = ""
        self._refresh_review()
        self._set_status(status)
        self.post_message(DecisionsFinal())

    def action_toggle_layout(self) -> None:
        diff = self.query_one(DiffView)
        diff.diff_layout = "unified" if diff.diff_layout == "split" else "split"
        self.post_message(SettingChanged("diff_layout", diff.diff_layout))

    def action_toggle_sidebar(self) -> None:
        """Show or hide the spec and the timeline, whatever the terminal's width made them."""
        shown = self.query_one("#sidebar").display
        self.set_class(shown, "-sidebar-hidden")
        self.set_class(not shown, "-sidebar-shown")

    def action_history(self) -> None:
        self.post_message(OpenHistory())

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_quit_run(self) -> None:
        self._leave()

    def _leave(self) -> None:
        """Ask the app to leave; a stop that arrives meanwhile opens no dialog."""
        self.leaving = True
        self.post_message(QuitRun())
