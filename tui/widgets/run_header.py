"""The one-line header: run, state, attempt n/N, tokens, cost, elapsed, the checks' sandbox."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from orch_tui.core.domain.events import TaskStarted
from orch_tui.core.domain.state import RunState
from orch_tui.core.loop.plan_runner import task_label
from orch_tui.core.util.terminal_text import escape_controls

Clock = Callable[[], float]
"""Seconds from an arbitrary origin (``time.monotonic``); tests pass a frozen one."""


class RunHeader(Static):
    run_id: reactive[str] = reactive("")
    state: reactive[RunState] = reactive(RunState.INIT)
    attempt: reactive[int] = reactive(0)
    max_retries: reactive[int] = reactive(0)
    tokens: reactive[int] = reactive(0)
    cost: reactive[float] = reactive(0.0)
    current_task: reactive[TaskStarted | None] = reactive(None)
    """Plan mode: the task under way, whose attempts the header counts."""
    model: reactive[str] = reactive("")
    """Shown once a stronger model took over (model.escalate_to); empty before."""
    sandbox: reactive[str] = reactive("")

    def __init__(self, clock: Clock = time.monotonic, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._clock = clock
        self._started = clock()
        self._stopped: float | None = None
        """When the run stopped (SUCCESS, FAILED, NEEDS_HELP): the clock shows the run's time."""

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh)

    @property
    def elapsed(self) -> int:
        """Whole seconds since the app opened the run."""
        end = self._stopped if self._stopped is not None else self._clock()
        return int(end - self._started)

    def render(self) -> Content:
        minutes, seconds = divmod(self.elapsed, 60)
        where = f"attempt {self.attempt}/{self.max_retries}"
        if self.state is RunState.PLANNING:
            where = ""  # the state says it: plan mode's planning turn is no attempt
        elif self.current_task is not None:
            task = self.current_task
            relative = self.attempt - task.first_attempt
            where = task_label(task.index, task.total, relative, self.max_retries)
        where = f" · {where}" if where else ""
        return Content.assemble(
            f" orch-tui · run {escape_controls(self.run_id) or '…'} · ",
            (self.state.value, "bold"),
            f"{where} · tokens {self.tokens:,} · ${self.cost:.4f} · {minutes}:{seconds:02d}",
            f" · model {escape_controls(self.model)}" if self.model else "",
            f" · sandbox {self.sandbox}" if self.sandbox else "",
        )

    def watch_state(self, old: RunState, new: RunState) -> None:
        self.remove_class(f"-{old.value.lower()}")
        self.add_class(f"-{new.value.lower()}")
        if new.terminal and self._stopped is None:
            self._stopped = self._clock()
        elif not new.terminal:  # retried or continued: the clock runs again
            self._stopped = None
