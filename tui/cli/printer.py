"""``--auto`` output: one line per step, or one JSON event per line with ``--json``."""

from __future__ import annotations

import dataclasses
import json
import os
from enum import Enum
from typing import Any, TextIO

from orch_tui.core.domain.describe import describe
from orch_tui.core.domain.events import (
    STREAM_EVENTS,
    Event,
    FinalChecksFinished,
    ModelTurn,
    Notice,
    PlanApproved,
    ProposalReady,
    RoleDecided,
    RunFinished,
    RunStarted,
    StateChanged,
    TaskStarted,
    TestsFinished,
    ToolEdit,
)
from orch_tui.core.domain.state import RunState
from orch_tui.core.loop.plan_runner import task_label
from orch_tui.core.util.terminal_text import escape_controls, escape_json_controls


def silence(stream: TextIO) -> None:
    """Send what is still written to ``stream`` nowhere: its reader went away (``| head -1``).

    The file descriptor itself is pointed at /dev/null, so the interpreter's last flush at exit
    cannot fail either (that would print a traceback and exit 120).
    """
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # not a real file (a test's buffer): nothing to redirect
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


class QuietOutput:
    """A printer's stdout: a closed pipe never stops the run, whose output then goes nowhere."""

    def __init__(self, out: TextIO | None) -> None:
        # None: started with stdout closed (``>&-``), where Python gives no sys.stdout at all.
        self._out = out if out is not None else open(os.devnull, "w", encoding="utf-8")

    def write(self, text: str) -> None:
        try:
            self._out.write(text)
        except OSError:  # a closed pipe, a terminal that hung up (EIO), a bad descriptor
            silence(self._out)

    def flush(self) -> None:
        try:
            self._out.flush()
        except OSError:
            silence(self._out)


def _escaped(value: Any) -> Any:
    """``value`` with every string in it (in lists and dicts too) passed through escape_controls."""
    if isinstance(value, str) and not isinstance(value, Enum):
        return escape_controls(value)
    if isinstance(value, list | tuple):
        return type(value)(_escaped(item) for item in value)
    if isinstance(value, dict):
        return {key: _escaped(item) for key, item in value.items()}
    return value


def printable(event: Event) -> Event:
    """The event with its text fields safe to print: paths, titles, test names and messages
    can come from the model, and a line must never carry a control sequence into the terminal."""
    fields = {f.name: _escaped(getattr(event, f.name)) for f in dataclasses.fields(event)}
    return dataclasses.replace(event, **fields)


class JsonPrinter:
    def __init__(self, out: TextIO) -> None:
        self.out = QuietOutput(out)

    def __call__(self, event: Event) -> None:
        if isinstance(event, STREAM_EVENTS):
            return
        line = json.dumps(event.to_json(), ensure_ascii=False)
        self.out.write(escape_json_controls(line) + "\n")
        self.out.flush()


class LinePrinter:
    """Human lines: ``[attempt/N] what happened``, tokens and cost where they moved."""

    def __init__(self, out: TextIO) -> None:
        self.out = QuietOutput(out)
        self.max_retries = 0
        self.attempt = 0
        self.tokens = 0
        self.cost = 0.0
        self.task: TaskStarted | None = None
        self.planning = False

    def _line(self, text: str) -> None:
        where = f"{self.attempt}/{self.max_retries}"
        if self.planning:
            where = "planning"  # no attempt: plan mode's planning turn is counted apart
        elif self.task is not None:
            task = self.task
            relative = self.attempt - task.first_attempt
            where = task_label(task.index, task.total, relative, self.max_retries)
        self.out.write(f"[{where}] {text}\n")
        self.out.flush()

    def _money(self) -> str:
        return f"tokens {self.tokens:,} · ${self.cost:.4f}"

    def __call__(self, event: Event) -> None:
        if isinstance(event, STREAM_EVENTS):
            return
        event = printable(event)
        if isinstance(event, RunStarted):
            self.max_retries, self.attempt = event.max_retries, event.attempt
            self.tokens, self.cost = event.tokens, event.cost_usd
            self.out.write(f"orch-tui · {describe(event)}\n")
        elif isinstance(event, TaskStarted):
            self.task = event
            self.out.write(f"{describe(event)}\n")
        elif isinstance(event, Notice):
            self.out.write(f"{describe(event)}\n")
        elif isinstance(event, PlanApproved):
            self.out.write(f"{describe(event)}:\n")
            for number, task in enumerate(event.tasks, start=1):
                self.out.write(f"  {number}. {task['id']}: {task['title']}\n")
        elif isinstance(event, StateChanged):
            self.attempt, self.max_retries = event.attempt, event.max_retries
            self.planning = event.state == RunState.PLANNING
            if not event.state.terminal:
                self._line(describe(event))
        elif isinstance(event, ToolEdit):
            if event.command != "view" or not event.ok:
                self._line(f"  {describe(event)}")
        elif isinstance(event, ModelTurn):
            self.tokens, self.cost = event.run_tokens, event.run_cost_usd
        elif isinstance(event, ProposalReady | RoleDecided):
            self._line(f"{describe(event)} · {self._money()}")
        elif isinstance(event, TestsFinished):
            self._line(describe(event) + "".join(f"\n      {error}" for error in event.errors))
        elif isinstance(event, FinalChecksFinished):
            self._line(describe(event))
        elif isinstance(event, RunFinished):
            self.tokens, self.cost = event.tokens, event.cost_usd
            if event.summary:
                self.out.write(f"summary: {escape_controls(event.summary)}\n")
            # Every line above names its attempt, and the stop reason counts them where it matters.
            self.out.write(f"{describe(event)} · {self._money()} · exit {event.exit_code}\n")
            self.out.flush()
        else:
            self._line(describe(event))
