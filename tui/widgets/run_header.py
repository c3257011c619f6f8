"""The one-line header: run, state, attempt n/N, tokens, cost, elapsed."""

from __future__ import annotations

import time

from textual.reactive import reactive
from textual.widgets import Static


class RunHeader(Static):
    run_id: reactive[str] = reactive("")
    state: reactive[str] = reactive("INIT")
    attempt: reactive[int] = reactive(0)
    max_retries: reactive[int] = reactive(0)
    tokens: reactive[int] = reactive(0)
    cost: reactive[float] = reactive(0.0)

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self._started = time.monotonic()

    def on_mount(self) -> None:
        self.set_interval(1.0, self.refresh)

    def render(self) -> str:
        elapsed = int(time.monotonic() - self._started)
        minutes, seconds = divmod(elapsed, 60)
        return (
            f" orch-tui · run {self.run_id or '…'} · [b]{self.state}[/b] · "
            f"attempt {self.attempt}/{self.max_retries} · tokens {self.tokens:,} · "
            f"${self.cost:.4f} · {minutes}:{seconds:02d}"
        )

    def watch_state(self, old: str, new: str) -> None:
        self.remove_class(f"-{old.lower()}")
        self.add_class(f"-{new.lower()}")
