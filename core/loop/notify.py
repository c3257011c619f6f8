"""Telling the person when a run needs them or ends: an event subscriber (``[notify]``).

Moments: a review is waiting (interactive runs only: ``--auto`` reviews nothing), the run
waits for an answer or is stuck (NEEDS_HELP), and the run ends. For each, by the config: a
terminal bell (BEL on the terminal's stderr, which a full-screen app does not draw on), a
desktop notification through ``notify-send`` where it is installed, and ``command`` run with
``ORCH_RUN_ID``, ``ORCH_STATE`` and ``ORCH_REASON`` in its environment. That environment is
built from an allowlist (:data:`NOTIFY_ENV_ALLOW`: what a desktop or terminal tool needs), so no
API key, ``AWS_*`` or ``GITHUB_TOKEN`` reaches it; it runs in a process group of its own, which
is killed when it exits or at :data:`COMMAND_TIMEOUT_S`, so nothing it starts outlives it.
A notification that fails never stops the run.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys

from orch_tui.core.config.models import NotifyConfig
from orch_tui.core.domain.events import (
    Event,
    EventBus,
    ProposalReady,
    RunFinished,
    RunStarted,
    StateChanged,
)
from orch_tui.core.domain.state import RunState
from orch_tui.core.util.records import record
from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.core.util.wording import plural

COMMAND_TIMEOUT_S = 10.0
NOTIFY_ENV_ALLOW = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TERM",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "XDG_RUNTIME_DIR",
    "DBUS_SESSION_BUS_ADDRESS",
)
"""The variables a notify command (or ``notify-send``) is given, besides the ``ORCH_*`` ones."""


def notify_env(**extra: str) -> dict[str, str]:
    """The notify command's environment: the allowlisted variables that are set, and ``extra``."""
    env = {name: os.environ[name] for name in NOTIFY_ENV_ALLOW if name in os.environ}
    env.update(extra)
    return env


@record(frozen=True)
class Moment:
    """Something the person should hear about."""

    state: str
    reason: str


def moment_of(event: Event, *, interactive: bool) -> Moment | None:
    """The moment ``event`` marks, if any."""
    if isinstance(event, ProposalReady) and interactive:
        files = len(event.files)
        return Moment(
            RunState.REVIEWING.value,
            f"attempt {event.attempt}: {plural(files, 'file')} "
            f"{'waits' if files == 1 else 'wait'} for your review",
        )
    if isinstance(event, StateChanged) and event.state is RunState.NEEDS_HELP:
        return Moment(RunState.NEEDS_HELP.value, "the run needs your answer")
    if isinstance(event, RunFinished):
        return Moment(event.state.value, event.stop_reason or event.state.value.lower())
    return None


class Notifier:
    """The ``[notify]`` subscriber of one run."""

    def __init__(self, config: NotifyConfig, *, interactive: bool) -> None:
        self.config = config
        self.interactive = interactive
        self.run_id = ""

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self.run_id = event.run_id
        moment = moment_of(event, interactive=self.interactive)
        if moment is not None:
            self.notify(moment)

    def notify(self, moment: Moment) -> None:
        # The reason may quote the model (a stuck run's stop reason), and a notify command
        # may well print it: control, bidi and invisible characters go out spelt out.
        reason = escape_controls(moment.reason)
        if self.config.bell:
            _ring()
        if self.config.desktop and shutil.which("notify-send"):
            _run(["notify-send", f"orch-tui: {moment.state}", reason], notify_env())
        if self.config.command:
            env = notify_env(ORCH_RUN_ID=self.run_id, ORCH_STATE=moment.state, ORCH_REASON=reason)
            _run(self.config.command, env)


def subscribe_notifier(bus: EventBus, config: NotifyConfig, *, interactive: bool) -> None:
    """Subscribe a :class:`Notifier` unless ``[notify]`` turns everything off."""
    if config.bell or config.desktop or config.command:
        bus.subscribe(Notifier(config, interactive=interactive))


def _ring() -> None:
    terminal = sys.__stderr__
    if terminal is not None and terminal.isatty():
        terminal.write("\a")
        terminal.flush()


def _run(command: list[str], env: dict[str, str], timeout_s: float = COMMAND_TIMEOUT_S) -> None:
    """Run ``command`` in a process group of its own; the group is killed when the command
    exits or its time is up, whichever comes first."""
    try:
        process = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError:
        return  # a notification is a courtesy; the run goes on
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        pass
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass  # the group is gone already
        process.wait()
