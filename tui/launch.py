"""``orch-tui SPEC`` on a terminal: the review screen's frame first, the run opened behind it.

What a run needs before its review screen (the config models, the spec, the lock, the local
checks, the provider, the engine and the review screen's own modules) takes longer to load than
Textual itself, and a person looking at a blank terminal sees none of it. So the app starts with
Textual and the frame's few widgets loaded, paints :class:`LoadingScreen` (the review screen's
header, panes and footer, "opening the run…"), and then opens the run on a thread; the review
screen takes the frame's place once it is open. A run that cannot open (a bad config or spec, a
locked project, a damaged state.json) ends the app and is said on stderr, with the message and
exit code it always had.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.message import Message

from orch_tui.core.config.files import ConfigError, read_toml
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.config.theme_names import DEFAULT_THEME
from orch_tui.core.config.ui_state import load_ui_state
from orch_tui.core.loop.exit_codes import EXIT_FAILED, EXIT_INTERRUPTED
from orch_tui.themes import THEMES
from orch_tui.tui.app import QUIT_GRACE_S, OrchApp, RunRequest, kill_checks, short_switch_interval
from orch_tui.tui.cli.executable import start_collecting
from orch_tui.tui.cli.failing import Refused
from orch_tui.tui.cli.resume_hint import resume_hint
from orch_tui.tui.screens.loading import LoadingScreen

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.screen import Screen

    from orch_tui.tui.cli.run import OpenedRun
    from orch_tui.tui.widgets.run_header import Clock


OPENER_FALLBACK_S = 0.5
"""Seconds after which the run opens even if no frame was seen drawn (see OpeningApp.begin)."""
COLLECTOR_FALLBACK_S = 3.0
"""Seconds after the run opened by which the garbage collector is on even if no proposal was
shown (the model still working, or a finished run): see OpeningApp._run_opened."""


class RunOpened(Message):
    """Posted by the opening thread: the run is ready for its review screen."""

    def __init__(self, opened: OpenedRun) -> None:
        super().__init__()
        self.opened = opened


class OpeningFailed(Message):
    """Posted by the opening thread: the run cannot open; the app ends with ``code``."""

    def __init__(self, code: int) -> None:
        super().__init__()
        self.code = code


class OpeningApp(OrchApp):
    """The review app that opens its run once its first frame is on screen."""

    def __init__(
        self,
        open_run: Callable[[], OpenedRun],
        spec_name: str,
        theme: str,
        *,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__(None, None, clock=clock)
        self.theme = theme
        self.open_run = open_run
        self.spec_name = spec_name
        self.opened: OpenedRun | None = None
        self.refused: Refused | None = None
        self.crashed: BaseException | None = None
        self.opener = threading.Thread(target=self._open, name="orch-open", daemon=True)

    def begin(self) -> None:
        self.push_screen(LoadingScreen(self.spec_name))
        # The opener starts once the frame is drawn (see _display); this timer only makes sure
        # it starts should a Textual release no longer draw through that method.
        self.set_timer(OPENER_FALLBACK_S, self._start_opening)

    def _display(self, screen: Screen[object], renderable: RenderableType | None) -> None:
        """Textual's drawing of a screen update: the opening thread starts after the first one
        drawn. The first refresh after the frame is pushed is often drawn nowhere (Textual holds
        it while it mounts, a batch), and a thread started then takes the GIL from the frame's
        layout and drawing in turns of half a millisecond (short_switch_interval), delaying the
        frame by about half the run's opening work before it (about 25 ms of CPU at load 1)."""
        drawn = renderable is not None and not self._batch_count
        super()._display(screen, renderable)
        if drawn:
            self._start_opening()

    def _start_opening(self) -> None:
        if self.opener.ident is None:
            self.opener.start()

    def _open(self) -> None:
        """On the opening thread: the run, its engine started, then the review screen's modules
        (the engine's start-up, much of it waiting on files and processes, overlaps them)."""
        try:
            opened = self.open_run()
            self.opened = opened
            if not self.quitting:
                self.paths, self.config = opened.paths, opened.config
                self.run_request = RunRequest(opened.spec, opened.provider, opened.options)
                self.start_engine()  # what it posts waits in the mailbox for the review screen
            import orch_tui.tui.screens.review.screen  # noqa: F401 - loaded here, off the UI thread
        except Refused as exc:
            self.refused = exc
            self.post_message(OpeningFailed(exc.code))
            return
        except BaseException as exc:  # noqa: BLE001 - raised again once the app has closed
            self.crashed = exc
            self.post_message(OpeningFailed(EXIT_FAILED))
            return
        self.post_message(RunOpened(opened))

    @on(OpeningFailed)
    def _opening_failed(self, message: OpeningFailed) -> None:
        self.exit(message.code)

    @on(RunOpened)
    def _run_opened(self, message: RunOpened) -> None:
        """The review screen in place of the frame. The garbage collector stays off until that
        screen has drawn its first diff (it turns it on then, freezing what the opening, the
        screen and the proposal made), or for :data:`COLLECTOR_FALLBACK_S` at most: collections
        between the frame and the diff walked the review screen's modules and widgets as they
        were made, about 150 of them in the demo's first second, 20-40 ms of its CPU."""
        if self.quitting:
            return
        self.configure(message.opened.paths, message.opened.config)
        self.open_review()
        self.set_timer(COLLECTOR_FALLBACK_S, start_collecting)


def first_theme(config: Path | None) -> str:
    """The theme the frame is painted in: the one ui.json remembers, else ``ui.theme`` as the
    config file says it (read without the config models), else the default."""
    saved = load_ui_state().get("theme")
    if saved in THEMES:
        return str(saved)
    try:
        ui = read_toml(ProjectPaths.locate(config).config).get("ui", {})
    except (ConfigError, OSError):  # the full read, behind the frame, says what is wrong
        return DEFAULT_THEME
    theme = ui.get("theme") if isinstance(ui, dict) else None
    return theme if isinstance(theme, str) and theme in THEMES else DEFAULT_THEME


def run_review(args: argparse.Namespace) -> int:
    """``orch-tui SPEC`` on a terminal, to the review's end; returns the exit code."""

    def open_run() -> OpenedRun:
        from orch_tui.tui.cli.run import open_for_review

        return open_for_review(args)

    app = OpeningApp(open_run, args.spec.name, first_theme(args.config))
    with short_switch_interval():
        result = app.run()
    if app.refused is not None:
        print(f"orch-tui: {app.refused.message}", file=sys.stderr)
        return app.refused.code
    if app.crashed is not None:
        raise app.crashed
    opened = app.opened
    if app.run_request is None:  # left (q, a signal) before the run was open
        if app.opener.ident is not None:
            app.opener.join(QUIT_GRACE_S)
        if app.opened is not None:
            app.opened.release()
        return EXIT_INTERRUPTED
    assert opened is not None
    try:
        return leave(app, result if isinstance(result, int) else app.exit_code)
    finally:
        opened.release()


def leave(app: OrchApp, code: int) -> int:
    # The app is closed: a check still running is a trial run of a review left behind, or the
    # real checks of a step that restarts on resume. Either way its process group goes now.
    kill_checks()
    thread = app.engine_thread
    if thread is not None and app.left_mid_review:
        thread.thread.join(QUIT_GRACE_S)  # an aborted review ends the engine thread at once
    if thread is not None and thread.thread.is_alive():
        # A model request is in flight: leave without waiting for it; the step restarts on resume.
        print(f"orch-tui: left mid-step; {resume_hint()}")
        sys.stdout.flush()
        os._exit(EXIT_INTERRUPTED)
    if code == EXIT_INTERRUPTED:
        print(f"orch-tui: run saved; {resume_hint()}")
    return code
