"""The one-line header: run, state, attempt n/N, tokens, cost, elapsed."""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

Clock = Callable[[], float]
"""Seconds from an arbitrary origin (``time.monotonic``); tests pass a frozen one."""


class RunHeader(Static):
    run_id: reactive[str] = reactive("")
    state: reactive[str] = reactive("INIT")
    attempt: reactive[int] = reactive(0)
    max_retries: reactive[int] = reactive(0)
    tokens: reactive[int] = reactive(0)
    cost: reactive[float] = reactive(0.0)

    def __init__(self, clock: Clock = time.monotonic, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self._clock = clock
        self._started = clock()

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh)

    @property
    def elapsed(self) -> int:
        """Whole seconds since the app opened the run."""
        return int(self._clock() - self._started)

    def render(self) -> Content:
        minutes, seconds = divmod(self.elapsed, 60)
        return Content.assemble(
            f" orch-tui · run {self.run_id or '…'} · ",
            (self.state, "bold"),
            f" · attempt {self.attempt}/{self.max_retries} · tokens {self.tokens:,} · "
            f"${self.cost:.4f} · {minutes}:{seconds:02d}",
        )

    def watch_state(self, old: str, new: str) -> None:
        self.remove_class(f"-{old.lower()}")
        self.add_class(f"-{new.lower()}")
