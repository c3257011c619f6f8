"""The Textual app: one client of the engine, the review screen its main view.

``run_app`` is the entry for ``orch-tui SPEC``, ``run_history_app`` for
``orch-tui history``. Textual is imported only through this module.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.app import App
from textual.theme import Theme

from core.checks import kill_running_checks
from core.config import Config, ConfigError
from core.config_file import save_setting
from core.engine import EXIT_INTERRUPTED, EXIT_STATE, Engine, RunOptions
from core.events import EventBus
from core.paths import ProjectPaths
from core.providers.base import Provider
from core.spec import Spec
from core.state import StateError, StateStore
from themes import DEFAULT_THEME, THEMES, register_themes, theme_variable_defaults
from tui.bridge import EngineThread, TuiReviewer
from tui.screens.history import ResumeRun, RunsScreen
from tui.widgets.run_header import Clock

if TYPE_CHECKING:
    from tui.screens.loop import LoopScreen

QUIT_GRACE_S = 2.0
"""How long leaving waits for the engine thread to stop after the review was aborted."""


@dataclass(frozen=True)
class ResumeRequest:
    """``orch-tui history`` ends with this when the person picked a run to resume."""

    run_id: str
    spec_path: str


class OrchApp(App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "orch-tui"

    def __init__(
        self,
        paths: ProjectPaths,
        config: Config,
        spec: Spec | None = None,
        provider: Provider | None = None,
        options: RunOptions | None = None,
        *,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__()
        self.paths = paths
        self.config = config
        self.spec = spec
        self.provider = provider
        self.options = options
        self.clock = clock
        self.exit_code = EXIT_INTERRUPTED
        self.engine: Engine
        self.reviewer: TuiReviewer
        self.engine_thread: EngineThread | None = None
        self.loop_screen: LoopScreen | None = None
        self.resume_request: ResumeRequest | None = None
        self.left_mid_review = False
        register_themes(self)
        self.theme = config.ui.theme if config.ui.theme in self.available_themes else DEFAULT_THEME

    def get_theme_variable_defaults(self) -> dict[str, str]:
        """Diff colours for a theme that lacks them (Textual's own), from its palette."""
        try:
            theme = self.current_theme
        except Exception:  # noqa: BLE001 - asked before the theme is set: neutral colours
            theme = None
        return theme_variable_defaults(theme)

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        if self.spec is None:
            self.push_screen(RunsScreen(self.paths.logs, self.paths.state), self._history_closed)
            return
        from tui.screens.loop import LoopScreen

        screen = self.loop_screen = LoopScreen(
            self.spec.text, self.config.ui.diff_layout, self.clock
        )
        self.push_screen(screen)
        self.reviewer = TuiReviewer(screen)
        assert self.provider is not None and self.options is not None
        self.engine = Engine(
            paths=self.paths,
            config=self.config,
            spec=self.spec,
            provider=self.provider,
            reviewer=self.reviewer,
            bus=EventBus(),
            options=self.options,
        )
        self.engine_thread = EngineThread(self.engine, screen)
        self.engine_thread.start()

    @property
    def engine_running(self) -> bool:
        return self.engine_thread is not None and self.engine_thread.thread.is_alive()

    def retry_run(self) -> None:
        """Ask the model again after a model error, on a fresh engine thread."""
        if self.engine_running or self.engine_thread is None:
            return
        if self.engine.reopen_after_error():
            screen = self.engine_thread.target
            self.engine_thread = EngineThread(self.engine, screen, subscribe=False)
            self.engine_thread.start()

    def quit_run(self) -> None:
        """Leave; the state on disk is the one to resume from."""
        if self.engine_running:
            self.left_mid_review = self.reviewer.waiting
            self.engine.cancel.set()
            self.reviewer.abort()
            self.exit(EXIT_INTERRUPTED)
            return
        self.exit(self.exit_code)

    def open_history(self) -> None:
        self.push_screen(RunsScreen(self.paths.logs, self.paths.state))

    def _history_closed(self, _result: object) -> None:
        """``orch-tui history``: leaving the runs list leaves the app."""
        self.exit(0)

    def on_resume_run(self, message: ResumeRun) -> None:
        if self.spec is None:
            self.resume_request = ResumeRequest(message.run_id, message.spec_path)
            self.exit(0)
            return
        # Only the run in state.json can be resumed, and while a run is open that is this one.
        while len(self.screen_stack) > 2:
            self.pop_screen()
        self.notify(f"Run {message.run_id} is the one open here.", timeout=6)

    def _theme_changed(self, theme: Theme) -> None:
        if theme.name in THEMES and theme.name != self.config.ui.theme:
            self.config.ui.theme = theme.name
            self.save_setting("theme", theme.name)

    def save_setting(self, key: str, value: str) -> None:
        try:
            save_setting(self.paths.config, "ui", key, value)
        except (ConfigError, OSError, ValueError) as exc:
            self.notify(f"could not save ui.{key}: {exc}", severity="error")


def _check_state(paths: ProjectPaths) -> str | None:
    try:
        StateStore(paths.state).load()
    except StateError as exc:
        return str(exc)
    return None


def run_app(
    paths: ProjectPaths, config: Config, spec: Spec, provider: Provider, options: RunOptions
) -> int:
    problem = _check_state(paths)
    if problem:
        print(f"orch-tui: {problem}")
        return EXIT_STATE
    app = OrchApp(paths, config, spec, provider, options)
    result = app.run()
    code = result if isinstance(result, int) else app.exit_code
    return _leave(app, code)


def _leave(app: OrchApp, code: int) -> int:
    # The app is closed: a check still running is a trial run of a review left behind, or the
    # real checks of a step that restarts on resume. Either way its process group goes now.
    kill_running_checks()
    thread = app.engine_thread
    if thread is not None and app.left_mid_review:
        thread.thread.join(QUIT_GRACE_S)  # an aborted review ends the engine thread at once
    if thread is not None and thread.thread.is_alive():
        # A model request is in flight: leave without waiting for it; the step restarts on resume.
        print("orch-tui: left mid-step; run the same command to resume")
        sys.stdout.flush()
        os._exit(EXIT_INTERRUPTED)
    if code == EXIT_INTERRUPTED:
        print("orch-tui: run saved; run the same command to resume")
    return code


def run_history_app(paths: ProjectPaths, config: Config) -> ResumeRequest | None:
    """Browse the runs; returns the run the person chose to resume, if any."""
    app = OrchApp(paths, config)
    app.run()
    return app.resume_request
