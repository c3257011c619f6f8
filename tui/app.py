"""The Textual app: one client of the engine, the review screen its main view.

``run_app`` is the entry for ``orch-tui SPEC``, ``run_history_app`` for
``orch-tui history``. Textual is imported only through this module.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from textual.app import App
from textual.theme import Theme

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
    ) -> None:
        super().__init__()
        self.paths = paths
        self.config = config
        self.spec = spec
        self.provider = provider
        self.options = options
        self.exit_code = EXIT_INTERRUPTED
        self.engine: Engine
        self.reviewer: TuiReviewer
        self.engine_thread: EngineThread | None = None
        register_themes(self)
        self.theme = config.ui.theme if config.ui.theme in self.available_themes else DEFAULT_THEME

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults()

    def on_mount(self) -> None:
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        if self.spec is None:
            self.open_history()
            return
        from tui.screens.loop import LoopScreen

        screen = LoopScreen(self.spec.text, self.config.ui.diff_layout)
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

    def retry_run(self) -> None:
        """Ask the model again after a model error, on a fresh engine thread."""
        if self.engine_thread and self.engine_thread.thread.is_alive():
            return
        if self.engine.reopen_after_error():
            screen = self.engine_thread.target if self.engine_thread else self.screen
            self.engine_thread = EngineThread(self.engine, screen, subscribe=False)
            self.engine_thread.start()

    def quit_run(self) -> None:
        """Leave; the state on disk is the one to resume from."""
        if self.engine_thread and self.engine_thread.thread.is_alive():
            self.engine.cancel.set()
            self.reviewer.abort()
            self.exit(EXIT_INTERRUPTED)
            return
        self.exit(self.exit_code)

    def open_history(self) -> None:
        from tui.screens.history import RunsScreen

        self.push_screen(RunsScreen(self.paths.logs, self.paths.state))

    def on_runs_screen_resume_run(self, message: Any) -> None:
        self.notify(
            f"To resume run {message.run_id}: quit and run `orch-tui {message.spec_path}`",
            timeout=10,
        )

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
    thread = app.engine_thread
    if thread is not None and thread.thread.is_alive():
        # A model request or a check is in flight: its step restarts on resume. Stop the checks'
        # process groups and leave without waiting for the request.
        from core.checks import kill_running_checks

        kill_running_checks()
        print("orch-tui: left mid-step; run the same command to resume")
        sys.stdout.flush()
        os._exit(EXIT_INTERRUPTED)
    if code == EXIT_INTERRUPTED:
        print("orch-tui: run saved; run the same command to resume")
    return code


def run_history_app(paths: ProjectPaths, config: Config) -> int:
    app = OrchApp(paths, config)
    app.run()
    return 0

