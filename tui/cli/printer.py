"""``--auto`` output: one line per step, or one JSON event per line with ``--json``."""

from __future__ import annotations

import dataclasses
import json
import os
from enum import Enum
from typing import Any, TextIO

from orch_tui.core.domain.describe import describe_role_event
from orch_tui.core.domain.events import (
    STREAM_EVENTS,
    ChangeApplied,
    Escalated,
    Event,
    GuidanceGiven,
    ModelTurn,
    Notice,
    PlanApproved,
    ProposalReady,
    QuestionAsked,
    ReviewFinished,
    RoleDecided,
    RunFinished,
    RunReopened,
    RunStarted,
    StateChanged,
    TaskFinished,
    TaskStarted,
    TestsFinished,
    ToolEdit,
)
from orch_tui.core.loop.plan_runner import task_label
from orch_tui.core.util.terminal_text import escape_controls, escape_json_controls


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


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

    def _line(self, text: str) -> None:
        where = f"{self.attempt}/{self.max_retries}"
        if self.task is not None:
            task = self.task
            relative = self.attempt - task.first_attempt
            where = task_label(task.index, task.total, relative, self.max_retries)
        self.out.write(f"[{where}] {text}\n")
        self.out.flush()

    def _money(self) -> str:
        return f"tokens {self.tokens:,} · ${self.cost:.4f}"

    def __call__(self, event: Event) -> None:  # noqa: C901 - a flat dispatch reads best here
        if isinstance(event, STREAM_EVENTS):
            return
        event = printable(event)
        if isinstance(event, RunStarted):
            self.max_retries, self.attempt = event.max_retries, event.attempt
            self.tokens, self.cost = event.tokens, event.cost_usd
            how = f"resuming at {event.state}" if event.resumed else "new run"
            self.out.write(
                f"orch-tui · run {event.run_id} · {event.spec_path} · {event.provider} "
                f"{event.model} · sandbox {event.sandbox} · {how}\n"
            )
        elif isinstance(event, Notice):
            self.out.write(f"note: {event.message}\n")
        elif isinstance(event, PlanApproved):
            where = "written in the spec" if event.source == "spec" else "from the model"
            self.out.write(f"plan ({_count(len(event.tasks), 'task')}, {where}):\n")
            for number, task in enumerate(event.tasks, start=1):
                self.out.write(f"  {number}. {task['id']}: {task['title']}\n")
        elif isinstance(event, TaskStarted):
            self.task = event
            self.out.write(
                f"task {event.index + 1}/{event.total}: {event.task_id}: {event.title}\n"
            )
        elif isinstance(event, TaskFinished):
            self._line(f"task {event.task_id} {event.status}")
        elif isinstance(event, StateChanged):
            self.attempt, self.max_retries = event.attempt, event.max_retries
            if not event.state.terminal:
                self._line(event.state)
        elif isinstance(event, ToolEdit):
            mark = (
                ""
                if event.ok
                else f" (refused: {event.detail.splitlines()[0] if event.detail else ''})"
            )
            if event.command != "view" or not event.ok:
                self._line(f"  {event.command} {event.path or ''}{mark}")
        elif isinstance(event, ModelTurn):
            self.tokens, self.cost = event.run_tokens, event.run_cost_usd
        elif isinstance(event, ProposalReady):
            self._line(
                f"proposal: {_count(len(event.files), 'file')}, +{event.added} -{event.removed}, "
                f"{_count(event.hunks, 'hunk')} · {self._money()}"
            )
        elif isinstance(event, ReviewFinished):
            if event.reject_reason:
                self._line(f"review: rejected ({event.reject_reason})")
            else:
                self._line(
                    f"review: {_count(event.accepted, 'hunk')} accepted, {event.rejected} rejected → "
                    f"{_count(len(event.files_landing), 'file')} to land"
                )
        elif isinstance(event, ChangeApplied):
            self._line(f"applied {_count(len(event.files), 'file')} to workspace/")
        elif isinstance(event, TestsFinished):
            failing = f" · failing: {', '.join(event.failing[:5])}" if event.failing else ""
            more = f" (+{len(event.failing) - 5} more)" if len(event.failing) > 5 else ""
            errors = "".join(f"\n      {error}" for error in event.errors)
            self._line(f"tests: {event.summary}{failing}{more}{errors}")
        elif isinstance(event, QuestionAsked):
            who = {"model": "the model asks", "judge": "the judge asks"}.get(
                event.source, "stuck: asking a person"
            )
            self._line(f"{who}: {event.question}")
        elif isinstance(event, GuidanceGiven):
            self._line(f"guidance for attempt {event.attempt}: {event.text}")
        elif isinstance(event, RunReopened):
            self._line(
                f"reopened a {event.from_state} run at attempt {event.attempt} "
                f"(retries up to {event.max_retries})"
            )
        elif isinstance(event, RoleDecided):
            self._line(f"{describe_role_event(event.to_json())} · {self._money()}")
        elif isinstance(event, Escalated):
            self._line(
                f"escalated to {event.to_model} after {_count(event.failed_attempts, 'failed attempt')}"
            )
        elif isinstance(event, RunFinished):
            self.tokens, self.cost = event.tokens, event.cost_usd
            # Every line above names its attempt, and the stop reason counts them where it matters.
            reason = f": {event.stop_reason}" if event.stop_reason else ""
            self.out.write(f"{event.state}{reason} · {self._money()} · exit {event.exit_code}\n")
            self.out.flush()
