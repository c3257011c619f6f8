"""Telling the person when a run needs them or ends: an event subscriber (``[notify]``).

Moments: a review is waiting (interactive runs only: ``--auto`` reviews nothing), the run
waits for an answer or is stuck (NEEDS_HELP), and the run ends. For each, by the config: a
terminal bell (BEL on the terminal's stderr, which a full-screen app does not draw on), a
desktop notification through ``notify-send`` where it is installed, and ``command`` run with
``ORCH_RUN_ID``, ``ORCH_STATE`` and ``ORCH_REASON`` in its environment (API keys left out).
A notification that fails never stops the run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

from orch_tui.core.config.models import NotifyConfig, is_secret_env_name
from orch_tui.core.domain.events import (
    Event,
    EventBus,
    ProposalReady,
    RunFinished,
    RunStarted,
    StateChanged,
)
from orch_tui.core.domain.state import RunState

COMMAND_TIMEOUT_S = 10.0


@dataclass(frozen=True)
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
            f"attempt {event.attempt}: {files} file(s) wait for your review",
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
        if self.config.bell:
            _ring()
        if self.config.desktop and shutil.which("notify-send"):
            _run(["notify-send", f"orch-tui: {moment.state}", moment.reason], os.environ.copy())
        if self.config.command:
            env = {k: v for k, v in os.environ.items() if not is_secret_env_name(k)}
            env.update(ORCH_RUN_ID=self.run_id, ORCH_STATE=moment.state, ORCH_REASON=moment.reason)
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


def _run(command: list[str], env: dict[str, str]) -> None:
    try:
        subprocess.run(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=COMMAND_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        pass  # a notification is a courtesy; the run goes on
