"""The review screen: spec, attempt timeline, proposal diff, model text and test output.

It holds no loop logic: engine events arrive as messages and update widgets;
the person's keys become calls on the :class:`ReviewSession` the engine handed
over. What only the app may do (release the waiting engine thread, retry, quit)
the screen asks for with a message (``tui/messages.py``); it never imports the app.
"""

from __future__ import annotations

import time
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, Static, TabbedContent, TabPane

from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain import events as ev
from orch_tui.core.domain.describe import describe
from orch_tui.core.domain.plan import Plan
from orch_tui.core.domain.state import RunState, StateStore
from orch_tui.core.loop.engine import EXIT_SAFETY
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.core.util.wording import plural
from orch_tui.tui.messages import (
    ContinueRun,
    EngineEvents,
    EngineStopped,
    OpenHistory,
    PlanApproved,
    PlanRequested,
    QuitRun,
    RetryRun,
    SettingChanged,
)
from orch_tui.tui.screens.loading import (
    HORIZONTAL_BREAKPOINTS,
    VERTICAL_BREAKPOINTS,
    size_classes,
)
from orch_tui.tui.screens.needs_help import NeedsHelpScreen  # light: no TextArea
from orch_tui.tui.screens.review.decisions import DecisionsScreen
from orch_tui.tui.widgets.diff.view import DiffView
from orch_tui.tui.widgets.file_list import FileList
from orch_tui.tui.widgets.following_log import FollowingLog
from orch_tui.tui.widgets.key_footer import KeyFooter
from orch_tui.tui.widgets.run_header import Clock, RunHeader
from orch_tui.tui.widgets.timeline import Timeline

MODEL_LOG_MAX_LINES = 5_000
"""Lines the model pane keeps: the oldest go first, so a long run's streamed text (every
attempt's) cannot grow without bound; each attempt's full text is in its conversation.json."""
TEST_LOG_MAX_LINES = 10_000
"""Lines the test pane keeps; each run's captured output is in its test-output.txt."""


def log_write(log: FollowingLog, text: str) -> None:
    """Write ``text`` from the model or a check (batched: :meth:`FollowingLog.write_soon`):
    Textual's Log passes ``\\x1b`` and C1 codes to the terminal, so control characters other
    than newline and tab are spelt out first."""
    log.write_soon(escape_controls(text, newlines=True))


def log_line(log: FollowingLog, text: str) -> None:
    """Write ``text`` as a line of its own, even after streamed text that ended mid-line."""
    prefix = "" if log.at_line_start else "\n"
    log_write(log, f"{prefix}{text}\n")


OTHER_TAB = {"model-tab": "tests-tab", "tests-tab": "model-tab"}

KEPT_KEYS = ("quit_run", "help", "history")
"""The footer's keys that show at any width: the way out, the way to every other key, history."""
"""What ``l`` switches to: the other of the Model and Tests tabs."""


class ReviewScreen(DecisionsScreen):
    """The run under review: engine events shown as they come, the stops and questions
    answered in dialogs, and the panes and keys around the proposal."""

    # Size classes for app.tcss: on a small terminal the panes around the diff give way.
    HORIZONTAL_BREAKPOINTS = HORIZONTAL_BREAKPOINTS
    VERTICAL_BREAKPOINTS = VERTICAL_BREAKPOINTS
    AUTO_FOCUS = "#diff"  # focused as it mounts: the footer's keys are the diff's from the start
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
        Binding("l", "switch_log", "Model/Tests", show=False, id="review.switch_log"),
        Binding("h", "history", "History", id="app.history"),
        Binding("q", "quit_run", "Quit", id="app.quit"),
    ]

    def __init__(
        self, spec_text: str, config: Config, paths: ProjectPaths, clock: Clock = time.monotonic
    ) -> None:
        super().__init__(config, paths)
        self.add_class(*size_classes(self.app.size), update=False)  # laid out first as it stays
        self.spec_text = spec_text
        self.clock = clock
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
        yield KeyFooter(kept=KEPT_KEYS, compact=True)  # keys built on mount

    async def on_mount(self) -> None:
        self.query_one("#spec-pane").border_title = "Spec"
        self.query_one(Timeline).border_title = "Attempts"
        self.query_one(FileList).border_title = "Proposal"
        self.query_one(DiffView).diff_layout = self.config.ui.diff_layout
        await self.query_one(KeyFooter).build_keys()

    @property
    def model_log(self) -> FollowingLog:
        return self.query_one("#model-log", FollowingLog)

    # -- engine events --------------------------------------------------------------------

    @on(EngineEvents)
    def _engine_events(self, message: EngineEvents) -> None:
        for event in message.take():
            self._show_event(event)

    def _show_event(self, event: ev.Event) -> None:
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
                self.query_one("#test-log", FollowingLog).clear()
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
            log_write(self.query_one("#test-log", FollowingLog), event.text)
        elif isinstance(event, ev.TestsFinished):
            self._tests_finished(event)
        elif isinstance(event, ev.NOTE_EVENTS):
            if isinstance(event, ev.Escalated):
                header.model = event.to_model
            timeline.label_from(event)
            note = describe(event)
            log_line(self.model_log, f"── {note}")
            timeline.note(event.attempt, note)
        elif isinstance(event, ev.RunFinished):
            self.finished = event
            header.state = event.state
            self._set_status(ended_status(event))

    def _show_past_attempts(self, run_id: str, current: int) -> None:
        """A resumed run: its earlier attempts in the timeline, the current one's model text."""
        from orch_tui.core.history.detail import HistoryError, load_run  # a resumed run only

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
        from orch_tui.tui.screens.dialogs import StoppedScreen  # loaded when first needed

        finished = self.finished
        if message.error:
            self.app.push_screen(
                StoppedScreen(
                    "orch-tui stopped",
                    message.error,
                    can_retry=False,
                    advice="The last saved step resumes when you run the same command.",
                ),
                self._after_stopped,
            )
        elif finished and finished.state is RunState.FAILED:
            reason = finished.stop_reason or "the run failed"
            can_retry = finished.retryable
            safety = finished.exit_code == EXIT_SAFETY
            hint = "" if can_retry else "Start again with --fresh, or change the spec."
            if safety:
                hint = "Nothing the model proposed was written."
            can_continue = not (can_retry or safety)
            self.app.push_screen(
                StoppedScreen("The run stopped", reason, can_retry, can_continue, advice=hint),
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
        question = state.question if state else None
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
        from orch_tui.tui.screens.plan import PlanScreen

        def decided(plan: Plan | None) -> None:
            if plan is None:
                self._leave()
            else:
                self._set_status("plan approved")
                self.post_message(PlanApproved(plan))

        self.app.push_screen(PlanScreen(message.plan), decided)

    def action_toggle_layout(self) -> None:
        diff = self.query_one(DiffView)
        diff.diff_layout = "unified" if diff.diff_layout == "split" else "split"
        self.post_message(SettingChanged("diff_layout", diff.diff_layout))

    def action_switch_log(self) -> None:
        self.query_one(TabbedContent).active = OTHER_TAB[self.query_one(TabbedContent).active]

    def action_toggle_sidebar(self) -> None:
        """Show or hide the spec and the timeline, whatever the terminal's width made them.
        Set on the sidebar (an inline style: it holds through resizes), not as a class of the
        screen, which styled all ~60 of its widgets again: most of the key's cost."""
        sidebar = self.query_one("#sidebar")
        sidebar.display = not sidebar.display

    def action_history(self) -> None:
        self.post_message(OpenHistory())

    def action_help(self) -> None:
        from orch_tui.tui.screens.dialogs import HelpScreen

        self.app.push_screen(HelpScreen())

    def action_quit_run(self) -> None:
        self._leave()

    def _leave(self) -> None:
        """Ask the app to leave; a stop that arrives meanwhile opens no dialog."""
        self.leaving = True
        self.post_message(QuitRun())


def ended_status(event: ev.RunFinished) -> str:
    """The status line once the run ended: state, reason, the run's summary, how to quit."""
    summary = f" · {event.summary}" if event.summary else ""
    return f"{event.state}: {event.stop_reason or ''}{summary} · q quits"
