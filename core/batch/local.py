"""The local engine: ``--jobs`` workers on this machine, each running one spec at a time.

A worker is a thread that starts a run's own process and waits for it, so the runs are the
worker processes and the batch process only hands out work and keeps the record.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from orch_tui.core.batch.driver import BatchDriver
from orch_tui.core.batch.run_one import run_in_folder


def run_local(
    driver: BatchDriver,
    jobs: int,
    on_event: Callable[[str, dict[str, Any]], None],
    cancel: threading.Event,
) -> None:
    """Run every run the driver hands out, ``jobs`` at a time, until none is left or ``cancel``."""

    def worker() -> None:
        while not cancel.is_set() and (task := driver.next_task()) is not None:
            code = run_in_folder(task, partial(on_event, task.name), cancel)
            driver.finish(task, code)

    workers = [threading.Thread(target=worker, name=f"batch-{i}") for i in range(max(jobs, 1))]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
