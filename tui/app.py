"""The Textual app: one client of the engine, the review screen its main view.

``orch-tui SPEC`` runs it through tui/launch.py (the frame first, the run opened behind it),
``orch-tui history`` through ``run_history_app``. Textual is imported only through these.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.theme import Theme

from orch_tui.core.config.files import ConfigError
from orch_tui.core.config.ui_state import load_ui_state, save_ui_choice
from orch_tui.core.loop.exit_codes import EXIT_INTERRUPTED
from orch_tui.themes import THEMES
from orch_tui.tui.bridge import EngineThread, Mailbox, TuiReviewer
from orch_tui.tui.cli.executable import start_collecting
from orch_tui.tui.messages import (
    ContinueRun,
    DecisionsFinal,
    EngineStopped,
    OpenHistory,
    PlanApproved,
    QuitRun,
    ResumeRun,
    RetryRun,
    RewrittenAnswered,
    SettingChanged,
)
from orch_tui.tui.themed_app import ThemedApp

if TYPE_CHECKING:
    # The run's launch paints its frame before these load (tui/launch.py): the engine, the
    # config models and the review screen are imported when the run is opened, the history
    # screens when first shown.
    from orch_tui.core.config.models import Config
    from orch_tui.core.config.paths import ProjectPaths
    from orch_tui.core.domain.spec import Spec
    from orch_tui.core.loop.engine import Engine
    from orch_tui.core.loop.options import RunOptions
    from orch_tui.core.providers.base import Provider
    from orch_tui.tui.screens.history.runs_list import RunsScreen
    from orch_tui.tui.screens.review.screen import ReviewScreen
    from orch_tui.tui.widgets.run_header import Clock

QUIT_GRACE_S = 2.0
"""How long leaving waits for the engine thread to stop after the review was aborted."""
SWITCH_INTERVAL_S = 0.0005
"""How long a busy thread keeps the interpreter lock while another waits for it (Python's
default is 5 ms). The engine and history workers make many short system calls, each of which
gives the lock up; with the default, every one then waited up to 5 ms for the UI thread to
yield while it laid out or painted, and the engine's start-up took several times its own time."""


def kill_checks() -> None:
    """Kill the checks still running. Their module (and what it loads: the leftovers' records,
    hashlib) is imported here, not before the run's first frame; a check only ever runs
    through it, so until it is loaded there is none to kill."""
    from orch_tui.core.checks.processes import kill_running_checks

    kill_running_checks()


@dataclass(frozen=True)
class RunRequest:
    """The run ``orch-tui SPEC`` opens: the app hands these to the engine it starts."""

    spec: Spec
    provider: Provider
    options: RunOptions


@dataclass(frozen=True)
class ResumeRequest:
    """``orch-tui history`` ends with this when the person picked a run to resume."""

    run_id: str
    spec_path: str


class OrchApp(ThemedApp[int]):
    CSS_PATH = "app.tcss"
    TITLE = "orch-tui"
    BINDINGS: ClassVar[list[BindingType]] = [
        # The review screen's own q (quit_run) comes first there; in history, q leaves.
        Binding("q", "leave", "Quit", show=False, id="app.leave"),
    ]

    def __init__(
        self,
        paths: ProjectPaths | None,
        config: Config | None,
        run_request: RunRequest | None = None,
        *,
        clock: Clock = time.monotonic,
    ) -> None:
        """``paths`` and ``config`` None: the run is opened once the app runs (tui/launch.py),
        which then calls :meth:`configure`."""
        super().__init__()
        self.paths: ProjectPaths
        self.config: Config
        self.run_request = run_request
        """The run to open; None: the app only browses the history (``orch-tui history``)."""
        self.browsing = run_request is None and paths is not None
        """``orch-tui history``: leaving the runs list leaves the app, with exit code 0."""
        self.clock = clock
        self.exit_code = EXIT_INTERRUPTED
        self.engine: Engine
        self.reviewer: TuiReviewer
        self.engine_thread: EngineThread | None = None
        self.mailbox = Mailbox()
        """Where the engine thread posts; held until the review screen is mounted."""
        self.review_screen: ReviewScreen | None = None
        self.resume_request: ResumeRequest | None = None
        self.left_mid_review = False
        self.quitting = False
        """The person pressed q: an engine stop arriving now opens no dialog over the exit."""
        self.saved_theme = ""
        if paths is not None and config is not None:
            self.configure(paths, config)

    def configure(self, paths: ProjectPaths, config: Config) -> None:
        """The project's settings: the layout and theme ui.json remembers, the keymap."""
        self.paths = paths
        self.config = config
        saved = load_ui_state()
        match saved.get("diff_layout"):
            case "split" | "unified" as layout:
                config.ui.diff_layout = layout
        saved_theme = saved.get("theme")
        self.saved_theme = saved_theme if saved_theme in THEMES else config.ui.theme
        """The theme ui.json remembers (else ui.theme): a change in the app is saved if it differs."""
        self.theme = self.saved_theme
        self.set_keymap(config.ui.keymap)  # [ui] keymap: binding id -> keys

    def on_mount(self) -> None:
        self.listen_for_signals()
        self.begin()

    def begin(self) -> None:
        """The first screen: the runs list (``orch-tui history``) or the run's review."""
        if self.run_request is None:
            self.push_screen(self._runs_screen(), self._history_closed)
            return
        self.open_review()

    def listen_for_signals(self) -> None:
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, self._stop_on_signal)
        loop.add_signal_handler(signal.SIGHUP, self._terminal_gone)

    def open_review(self) -> None:
        """Show the run's review screen (in place of the launch's frame, if up) and its engine."""
        from orch_tui.tui.screens.review.screen import ReviewScreen

        request = self.run_request
        assert request is not None
        screen = self.review_screen = ReviewScreen(
            request.spec.text, self.config, self.paths, self.clock
        )
        self.start_engine()
        # Before the screen is shown: what the engine posted meanwhile (at the launch, its whole
        # start-up and often the proposal) is handled before the screen's first layout, so that
        # layout and the first frame drawn from it hold the diff, where an empty screen was laid
        # out and drawn first (the launch's frame is on screen meanwhile).
        self.mailbox.attach(screen)
        if len(self.screen_stack) > 1:
            self.switch_screen(screen)
        else:
            self.push_screen(screen)

    def start_engine(self) -> None:
        """Start the run's engine thread, once.

        ``orch-tui SPEC``'s opening thread (tui/launch.py) calls this as soon as the run is
        open: the engine's start-up then overlaps the review screen's import and layout rather
        than following them, and what it posts waits in :attr:`mailbox` for the review screen.
        """
        from orch_tui.core.domain.events import EventBus
        from orch_tui.core.loop.engine import Engine
        from orch_tui.core.loop.notify import subscribe_notifier

        request = self.run_request
        if request is None or self.engine_thread is not None:
            return
        self.reviewer = TuiReviewer(self.mailbox)
        bus = EventBus()
        subscribe_notifier(bus, self.config.notify, interactive=True)
        self.engine = Engine(
            paths=self.paths,
            config=self.config,
            spec=request.spec,
            provider=request.provider,
            reviewer=self.reviewer,
            bus=bus,
            options=replace(request.options, ask_when_stuck=True),  # a person is here to ask
        )
        self.engine_thread = EngineThread(self.engine, self.mailbox)
        self.engine_thread.start()

    def _terminal_gone(self) -> None:
        """SIGHUP: the terminal closed. Nothing can be drawn on it or restored, and Textual's
        shutdown, which writes to it, was seen to hang for good (its output queue full, its
        writer waiting on an empty one), holding the project's lock. Every step is on disk
        already (a run survives kill -9), so the checks are killed and the process ends now."""
        kill_checks()
        os._exit(0 if self.browsing else EXIT_INTERRUPTED)

    def _stop_on_signal(self) -> None:
        """SIGTERM: kill the checks now, then leave as q does (the state is saved)."""
        kill_checks()
        self.action_leave()

    @property
    def engine_running(self) -> bool:
        return self.engine_thread is not None and self.engine_thread.thread.is_alive()

    # -- what the review screen asks for ------------------------------------------------

    @on(EngineStopped)
    def _engine_stopped(self, message: EngineStopped) -> None:
        self.exit_code = message.exit_code

    @on(DecisionsFinal)
    def _decisions_final(self, _message: DecisionsFinal) -> None:
        self.reviewer.finish()

    @on(RewrittenAnswered)
    def _rewritten_answered(self, message: RewrittenAnswered) -> None:
        self.reviewer.answer_rewritten(message.accepted)

    @on(PlanApproved)
    def _plan_approved(self, message: PlanApproved) -> None:
        self.reviewer.approve_plan(message.plan)

    @on(RetryRun)
    def _retry_run(self, _message: RetryRun) -> None:
        """Ask the model again after a model error, on a fresh engine thread."""
        self._next_engine_step(lambda: self.engine.retry())  # read once a run exists

    @on(ContinueRun)
    def _continue_run(self, message: ContinueRun) -> None:
        """Reopen a FAILED or NEEDS_HELP run (with the person's guidance) and go on."""
        guidance = message.guidance
        self._next_engine_step(lambda: self.engine.continue_with(guidance))

    def _next_engine_step(self, step: Callable[[], int]) -> None:
        """Run ``step`` on a new engine thread, once the last one has ended."""
        if self.engine_running or self.engine_thread is None:
            return
        screen = self.engine_thread.target
        self.engine_thread = EngineThread(self.engine, screen, step)
        self.engine_thread.start()

    @on(QuitRun)
    def _quit_run(self, _message: QuitRun) -> None:
        """Leave; the state on disk is the one to resume from."""
        from orch_tui.core.checks.trial import end_trials

        self.quitting = True
        if self.run_request is None:  # q while the run was being opened: nothing started yet
            self.exit(EXIT_INTERRUPTED)
            return
        end_trials(self.paths.workspace, QUIT_GRACE_S)
        if self.engine_running:
            self.left_mid_review = self.reviewer.waiting
            self.engine.cancel.set()
            self.reviewer.abort()
            self.exit(EXIT_INTERRUPTED)
            return
        self.exit(self.exit_code)

    def action_leave(self) -> None:
        if self.browsing:
            self.exit(0)
        else:
            self.post_message(QuitRun())

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """The palette (ctrl+p): the review's actions as well as Textual's own (theme, keys)."""
        review = self.review_screen
        if review is not None:
            yield SystemCommand(
                "Apply", "Apply the decisions and run the checks", review.action_apply
            )
            yield SystemCommand(
                "Layout", "Switch the diff: side by side / unified", review.action_toggle_layout
            )
            yield SystemCommand(
                "History", "Browse past runs", lambda: self.post_message(OpenHistory())
            )
            yield SystemCommand("Help", "Keys of the review screen", review.action_help)
        yield from super().get_system_commands(screen)

    @on(OpenHistory)
    def _open_history(self, _message: OpenHistory) -> None:
        self.push_screen(self._runs_screen())

    def _runs_screen(self) -> RunsScreen:
        from orch_tui.tui.screens.history.runs_list import RunsScreen

        return RunsScreen(self.paths.logs, self.paths.state)

    @on(SettingChanged)
    def _setting_changed(self, message: SettingChanged) -> None:
        setattr(self.config.ui, message.key, message.value)
        self.save_setting(message.key, message.value)

    def _history_closed(self, _result: object) -> None:
        """``orch-tui history``: leaving the runs list leaves the app."""
        self.exit(0)

    def on_resume_run(self, message: ResumeRun) -> None:
        if self.browsing:
            self.resume_request = ResumeRequest(message.run_id, message.spec_path)
            self.exit(0)
            return
        # Only the run in state.json can be resumed, and while a run is open that is this one.
        while len(self.screen_stack) > 2:
            self.pop_screen()
        if self._resume_here(message.run_id):
            return
        self.notify(f"Run {message.run_id} is the one open here.", timeout=6, markup=False)

    def _resume_here(self, run_id: str) -> bool:
        """The open run, stopped, was given a proposal to review (history's ``X``): drive on."""
        if self.engine_running or self.engine_thread is None or self.review_screen is None:
            return False
        if getattr(self.engine, "state", None) is None or self.engine.state.run_id != run_id:
            return False
        self.review_screen.finished = None
        self._next_engine_step(self.engine.resume_saved)
        return True

    def _theme_changed(self, theme: Theme) -> None:
        if theme.name in THEMES and theme.name != self.saved_theme:
            self.saved_theme = theme.name
            self.save_setting("theme", theme.name)

    def save_setting(self, key: str, value: str) -> None:
        """Remember a UI choice in orch-tui's own state file (never in orchestrator.toml)."""
        try:
            save_ui_choice(key, value)
        except OSError as exc:
            self.notify(f"could not save ui.{key}: {exc}", severity="error", markup=False)


@contextmanager
def short_switch_interval() -> Iterator[None]:
    """:data:`SWITCH_INTERVAL_S` while the app runs, the interpreter's own setting after."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


def run_history_app(paths: ProjectPaths, config: Config) -> ResumeRequest | None:
    """Browse the runs; returns the run the person chose to resume, if any.

    ConfigError: ``[ui] keymap`` names a binding id the app does not have.
    """
    from orch_tui.tui.keymap import keymap_problem  # it imports every screen: not at a run's start

    problem = keymap_problem(config.ui.keymap)
    if problem:
        raise ConfigError(f"{paths.config}: {problem}")
    app = OrchApp(paths, config)
    start_collecting()
    with short_switch_interval():
        app.run()
    return app.resume_request
