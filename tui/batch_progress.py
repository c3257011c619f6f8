"""The batch's live table on a terminal: a row per run and a bar for the whole batch (Rich)."""

from __future__ import annotations

import threading
import time
from typing import Any

from rich.console import Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from orch_tui.core.batch.record import BatchRecord, RunRecord, RunStatus


class LiveTable:
    """Refreshed in place as runs change; the table is the batch record as it stands."""

    def __init__(self, record: BatchRecord) -> None:
        self.record = record
        self._lock = threading.Lock()
        self._started: dict[str, float] = {}
        self._attempt: dict[str, int] = {}
        self.bar = Progress(
            TextColumn("batch"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()
        )
        self.task = self.bar.add_task("batch", total=len(record.runs), completed=self._done())
        self.live = Live(self._render(), refresh_per_second=4, transient=False)

    def _done(self) -> int:
        return sum(1 for r in self.record.runs if r.status is RunStatus.FINISHED)

    def __enter__(self) -> LiveTable:
        self.live.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.live.update(self._render())
        self.live.__exit__(*exc)

    def event(self, name: str, event: dict[str, Any]) -> None:
        if "attempt" in event and isinstance(event["attempt"], int):
            with self._lock:
                self._attempt[name] = event["attempt"]
            self.live.update(self._render())

    def changed(self, run: RunRecord) -> None:
        with self._lock:
            if run.status is RunStatus.RUNNING:
                self._started[run.name] = time.monotonic()
            self.bar.update(self.task, completed=self._done())
        self.live.update(self._render())

    def _render(self) -> Group:
        table = Table(expand=False)
        for column in ("spec", "state", "attempt", "tests", "cost", "elapsed"):
            table.add_column(column)
        now = time.monotonic()
        for run in self.record.runs:
            started = self._started.get(run.name)
            running = run.status is RunStatus.RUNNING and started is not None
            elapsed = run.elapsed_s + (now - started if running and started else 0.0)
            attempt = self._attempt.get(run.name, max(run.attempts - 1, 0))
            table.add_row(
                Text(run.name),
                Text(run.state if run.status is RunStatus.FINISHED else str(run.status)),
                str(attempt),
                Text(run.tests or "-"),
                f"${run.cost_usd:.4f}",
                f"{elapsed:.0f}s",
            )
        return Group(table, self.bar)
