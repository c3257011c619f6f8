"""The trial run of the proposal under review, and the status line that reports on it.

The trial runs the checks on a scratch copy with the whole proposal applied as decided so far:
code nobody has accepted yet, so it starts by itself only inside the sandbox (DESIGN.md
section 13); without one, ``t`` starts it. A decision or an edit outdates it.
"""

from __future__ import annotations

from textual import on, work
from textual.content import Content
from textual.events import Mount
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from orch_tui.core.checks.leftovers import RUNNING_DIR
from orch_tui.core.checks.report import configured_checks
from orch_tui.core.checks.runner import kill_running_checks
from orch_tui.core.checks.sandbox import resolve_sandbox
from orch_tui.core.checks.trial import TrialOutcome, run_trial
from orch_tui.core.checks.venv import check_python
from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.proposal import Decisions, FileChange
from orch_tui.core.loop.review import ReviewCursor, ReviewSession
from orch_tui.tui.messages import TrialFinished
from orch_tui.tui.widgets.diff.paint import WEAKENING_MARK
from orch_tui.tui.widgets.diff.view import DiffView

TRIAL_RUNNING = "tests: running the checks on a scratch copy with the proposal as decided…"
TRIAL_OUTDATED = "tests: the decisions changed; running the trial again…"
TRIAL_STALE = "tests: the decisions changed since the trial run; t runs it again"
WEAKENS_A_TEST = f" {WEAKENING_MARK} weakens a test"
"""After the cursor's hunk in the status line: the legend of the ``!`` beside its gutter mark."""
TRIAL_RERUN_DELAY_S = 0.4
"""After a decision, how long the screen waits for the next one before the trial runs again."""
AUTO_TRIAL_QUIET_REFRESHES = 3
"""The auto trial starts once this many refreshes in a row saw no layout of the screen..."""
AUTO_TRIAL_MAX_WAITS = 20
"""...or after this many refreshes, settled or not."""


class TrialRunScreen(Screen[None]):
    """The review's session and cursor, its status line, and the trial run of its proposal."""

    def __init__(self, config: Config, paths: ProjectPaths) -> None:
        super().__init__()
        self.config = config
        self.paths = paths
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
        self.layouts = 0
        """How many times the screen was laid out (see :meth:`_start_auto_trial`)."""
        self.trial_quiet = 0
        """How many of the auto trial's last checks in a row saw no layout of the screen."""

    @on(Mount)
    def _count_layouts(self) -> None:
        self.screen_layout_refresh_signal.subscribe(self, self._laid_out, immediate=True)

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

    def _start_auto_trial(self, session: ReviewSession, layouts: int, waits: int = 0) -> None:
        """The trial that starts by itself, unless the proposal changed or one started meanwhile,
        once the screen has settled: no layout over its last few times with nothing to draw.

        After the first diff the screen still lays itself out a few times (scroll bars, the
        footer, a notice's toast, the state changes), 0.1-0.2 s of CPU on the one interpreter
        lock; the trial's copy and checks started after the first refresh took the lock from
        that and from the first key. One look is not enough: a widget drawn can still ask for
        a layout, and a toast is mounted a few messages after its notice."""
        if self.session is not session or self.trial_started:
            return
        self.trial_quiet = self.trial_quiet + 1 if self.layouts == layouts else 0
        if self.trial_quiet < AUTO_TRIAL_QUIET_REFRESHES and waits < AUTO_TRIAL_MAX_WAITS:
            self.call_after_refresh(self._start_auto_trial, session, self.layouts, waits + 1)
        else:
            self._start_trial()

    def _laid_out(self, _screen: Screen[object]) -> None:
        self.layouts += 1

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
            self._trial_measured(outcome)
        self._refresh_status()

    def _trial_measured(self, outcome: TrialOutcome) -> None:
        """The trial's coverage for the diff's marks (the coverage screen's)."""

    def _current_change(self) -> FileChange | None:
        if self.session is None or self.cursor is None or not self.session.effective.changes:
            return None
        return self.session.effective.changes[self.cursor.file]

    def _refresh_status(self) -> None:
        if self.session is None or self.cursor is None:
            return
        accepted, rejected, undecided = self.session.counts()
        where = ""
        change = self._current_change()
        if change is not None:
            weakens = self.query_one(DiffView).weakens_a_test(self.cursor.hunk)
            where = (
                f"file {self.cursor.file + 1}/{self.session.effective.file_count} · "
                f"hunk {self.cursor.hunk + 1}/{max(len(change.hunks), 1)}"
                f"{WEAKENS_A_TEST if weakens else ''} · "
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
