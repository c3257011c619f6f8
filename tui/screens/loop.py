"""The review screen: spec, attempt timeline, proposal diff, model text and test output.

It holds no loop logic: engine events arrive as messages and update widgets;
the person's keys become calls on the :class:`ReviewSession` the engine handed
over, and ``enter`` / ``f`` / ``q`` release the waiting engine thread.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Log, Markdown, Static, TabbedContent, TabPane

from core import events as ev
from core.proposal import FileChange, HunkDecision
from core.review import ReviewSession
from core.verify import TrialOutcome, run_trial
from tui.messages import EngineEvent, EngineStopped, ReviewRequested
from tui.review_cursor import ReviewCursor
from tui.screens.dialogs import EditScreen, FeedbackScreen, HelpScreen, StoppedScreen
from tui.widgets.diff_view import DiffView
from tui.widgets.file_list import FileList
from tui.widgets.run_header import RunHeader
from tui.widgets.timeline import Timeline

if TYPE_CHECKING:
    from tui.app import OrchApp


class TrialFinished(Message):
    def __init__(self, attempt: int, outcome: TrialOutcome | None, error: str | None) -> None:
        super().__init__()
        self.attempt = attempt
        self.outcome = outcome
        self.error = error


class LoopScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "decide('accepted')", "Accept", id="review.accept_hunk"),
        Binding("n", "decide('rejected')", "Reject", id="review.reject_hunk"),
        Binding("Y", "decide_file('accepted')", "Accept file", id="review.accept_file"),
        Binding("N", "decide_file('rejected')", "Reject file", id="review.reject_file"),
        Binding("right_square_bracket", "move('next_hunk')", "Next hunk", id="review.next_hunk"),
        Binding("left_square_bracket", "move('previous_hunk')", "Prev hunk", show=False, id="review.previous_hunk"),
        Binding("right_curly_bracket", "move('next_file')", "Next file", show=False, id="review.next_file"),
        Binding("left_curly_bracket", "move('previous_file')", "Prev file", show=False, id="review.previous_file"),
        Binding("e", "edit", "Edit", id="review.edit"),
        Binding("f", "feedback", "Reject all", id="review.reject_all"),
        Binding("enter", "apply", "Apply & test", id="review.apply", priority=True),
        Binding("v", "toggle_layout", "Layout", id="review.toggle_layout"),
        Binding("h", "history", "History", id="app.history"),
        Binding("question_mark", "help", "Help", id="app.help"),
        Binding("q", "quit_run", "Quit", id="app.quit"),
    ]

    def __init__(self, spec_text: str, diff_layout: str) -> None:
        super().__init__()
        self.spec_text = spec_text
        self.diff_layout = diff_layout
        self.session: ReviewSession | None = None
        self.cursor: ReviewCursor | None = None
        self.trial_text = ""
        self.finished: ev.RunFinished | None = None
        self.failing: list[str] = []

    @property
    def orch(self) -> OrchApp:
        return self.app  # type: ignore[return-value]

    # -- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield RunHeader(id="run-header")
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
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#spec-pane").border_title = "Spec"
        self.query_one(Timeline).border_title = "Attempts"
        self.query_one(FileList).border_title = "Proposal"
        diff = self.query_one(DiffView)
        diff.layout = self.diff_layout
        diff.focus()

    # -- engine events --------------------------------------------------------------------

    @on(EngineEvent)
    def _engine_event(self, message: EngineEvent) -> None:
        event = message.event
        header = self.query_one(RunHeader)
        timeline = self.query_one(Timeline)
        if isinstance(event, ev.RunStarted):
            header.run_id, header.state = event.run_id, event.state
            header.attempt, header.max_retries = event.attempt, event.max_retries
        elif isinstance(event, ev.Notice):
            self.notify(event.message, timeout=8)
            self.query_one("#model-log", Log).write_line(f"note: {event.message}")
        elif isinstance(event, ev.StateChanged):
            header.state, header.attempt, header.max_retries = event.state, event.attempt, event.max_retries
            if event.state in ("GENERATING", "PATCHING"):
                self.query_one("#model-log", Log).write_line(f"── attempt {event.attempt} ──")
                self.query_one(TabbedContent).active = "model-tab"
            if event.state == "TESTING":
                self.query_one("#test-log", Log).clear()
                self.query_one(TabbedContent).active = "tests-tab"
            timeline.note(event.attempt, event.state.lower())
        elif isinstance(event, ev.ModelText):
            self.query_one("#model-log", Log).write(event.text)
        elif isinstance(event, ev.ToolEdit):
            mark = "" if event.ok else " (refused)"
            self.query_one("#model-log", Log).write(f"\n  ✎ {event.command} {event.path or ''}{mark}\n")
        elif isinstance(event, ev.ModelTurn):
            header.tokens, header.cost = event.run_tokens, event.run_cost_usd
        elif isinstance(event, ev.ProposalReady):
            timeline.note(event.attempt, f"{len(event.files)} files +{event.added} -{event.removed}")
        elif isinstance(event, ev.CheckOutput):
            self.query_one("#test-log", Log).write(event.text)
        elif isinstance(event, ev.TestsFinished):
            self.failing = event.failing
            timeline.note(event.attempt, ("✓ " if event.passed else "✗ ") + event.summary)
            listing = "\n".join(f"✗ {test}" for test in event.failing[:20])
            errors = "\n".join(event.errors)
            self.query_one("#failing", Static).update("\n".join(filter(None, [errors, listing])))
        elif isinstance(event, ev.RunFinished):
            self.finished = event
            header.state = event.state
            self._set_status(f"{event.state}: {event.stop_reason or ''} · q quits")

    @on(EngineStopped)
    def _engine_stopped(self, message: EngineStopped) -> None:
        self.orch.exit_code = message.exit_code
        finished = self.finished
        if message.error:
            self.app.push_screen(
                StoppedScreen("orch-tui stopped", message.error, can_retry=False), self._after_stopped
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
            self.orch.retry_run()
        elif choice == "quit":
            self.app.exit(self.orch.exit_code)

    # -- review ---------------------------------------------------------------------------

    @on(ReviewRequested)
    def _review_requested(self, message: ReviewRequested) -> None:
        self.session = message.session
        self.cursor = ReviewCursor(self.session.effective)
        if self.cursor.positions:
            self.cursor.next_undecided(self.session.decisions) or None
            self.cursor.file, self.cursor.hunk = self.cursor.positions[0]
            self.cursor.next_undecided(self.session.decisions)
            if self._is_decided(self.cursor.file, self.cursor.hunk) and self.cursor.positions:
                self.cursor.file, self.cursor.hunk = self.cursor.positions[0]
        self.trial_text = "trial run of the checks with this proposal: running…"
        self._refresh_review()
        self.query_one(DiffView).focus()
        self._run_trial(message.session)

    def _is_decided(self, file: int, hunk: int) -> bool:
        assert self.session is not None
        change = self.session.effective.changes[file]
        states = self.session.decisions.for_file(change)
        return hunk < len(states) and states[hunk] is not HunkDecision.UNDECIDED

    @work(thread=True, exclusive=True, group="trial")
    def _run_trial(self, session: ReviewSession) -> None:
        """Post-only thread worker: runs the checks on a scratch copy."""
        state = self.orch.engine.state
        before = (state.last_test or {}).get("failing") if state.last_test else None
        try:
            outcome = run_trial(self.orch.config, self.orch.paths.workspace, session.proposal, before)
        except Exception as exc:  # noqa: BLE001 - the evidence is advisory; say why it is missing
            self.post_message(TrialFinished(session.attempt, None, str(exc)))
        else:
            self.post_message(TrialFinished(session.attempt, outcome, None))

    @on(TrialFinished)
    def _trial_finished(self, message: TrialFinished) -> None:
        if self.session is None or self.session.attempt != message.attempt:
            return
        if message.outcome is None:
            self.trial_text = f"trial run failed to start: {message.error}"
        else:
            self.trial_text = message.outcome.summary()
        self._refresh_status()

    def _current_change(self) -> FileChange | None:
        if self.session is None or self.cursor is None or not self.cursor.positions:
            return None
        return self.session.effective.changes[self.cursor.file]

    def _refresh_review(self) -> None:
        session, cursor = self.session, self.cursor
        files = self.query_one(FileList)
        diff = self.query_one(DiffView)
        if session is None or cursor is None:
            diff.show(None, [])
            files.clear_options()
            return
        effective = session.effective
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
        if self.session is None:
            return
        accepted, rejected, undecided = self.session.decisions.counts(self.session.proposal)
        self._set_status(
            f"attempt {self.session.attempt}: {accepted} accepted · {rejected} rejected · "
            f"{undecided} undecided — enter applies · {self.trial_text}"
        )

    def _set_status(self, text: str) -> None:
        self.query_one("#review-status", Static).update(text)

    def _need_session(self) -> bool:
        if self.session is None or self.cursor is None:
            self.notify("Nothing to review right now.", severity="warning")
            return False
        return True

    def action_decide(self, decision: str) -> None:
        if not self._need_session():
            return
        assert self.session and self.cursor
        change = self._current_change()
        if change is None:
            return
        if change.hunks:
            self.session.decide(change.path, self.cursor.hunk, HunkDecision(decision))
        else:
            self.session.decide_file(change.path, HunkDecision(decision))
        self.cursor.next_undecided(self.session.decisions)
        self._refresh_review()

    def action_decide_file(self, decision: str) -> None:
        if not self._need_session():
            return
        assert self.session and self.cursor
        change = self._current_change()
        if change is None:
            return
        self.session.decide_file(change.path, HunkDecision(decision))
        self.cursor.next_undecided(self.session.decisions)
        self._refresh_review()

    def action_move(self, where: str) -> None:
        if not self._need_session():
            return
        assert self.cursor
        getattr(self.cursor, where)()
        self._refresh_review()

    @on(FileList.Selected)
    def _file_selected(self, message: FileList.Selected) -> None:
        if self.cursor is not None:
            self.cursor.select_file(message.index)
            self._refresh_review()
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
            if text is None or self.session is None:
                return
            self.session.edit(path, text)
            assert self.cursor is not None
            self.cursor.proposal = self.session.effective
            self._refresh_review()
            self.notify(f"Edited {path}: your text is what lands.")

        self.app.push_screen(EditScreen(path, change.new_text), edited)

    def action_feedback(self) -> None:
        if not self._need_session():
            return

        def rejected(reason: str | None) -> None:
            if reason is None or self.session is None:
                return
            self.session.reject_all(reason)
            self._release("the whole proposal was rejected; the model gets your reason")

        self.app.push_screen(FeedbackScreen(), rejected)

    def action_apply(self) -> None:
        if not self._need_session():
            return
        self._release("applying the decisions and running the checks…")

    def _release(self, status: str) -> None:
        self.session = None
        self.cursor = None
        self.trial_text = ""
        self._refresh_review()
        self._set_status(status)
        self.orch.reviewer.finish()

    def action_toggle_layout(self) -> None:
        diff = self.query_one(DiffView)
        diff.layout = "unified" if diff.layout == "split" else "split"
        self.orch.save_setting("diff_layout", diff.layout)

    def action_history(self) -> None:
        self.orch.open_history()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_quit_run(self) -> None:
        self.orch.quit_run()


def engine_alive(thread: threading.Thread | None) -> bool:
    return thread is not None and thread.is_alive()
