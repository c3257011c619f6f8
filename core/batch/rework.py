"""A run sent back from the inbox, kept in its batch's record: ``batch.json`` and the report.

The new attempt runs in the background in a process of its own (``python -m
orch_tui.core.batch.rework BATCH_FOLDER NAME OPTION...``), which runs it like a batch worker
does and, when it ends, records the run's new state, attempts and verdict in ``batch.json``
and rewrites ``report.md`` and ``report.json``. While it runs, the record says ``reworking``,
and no batch command starts the run. A batch command holding the batch's lock is waited for:
its own record, saved as it ends, must not overwrite this one.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from orch_tui.core.batch.driver import settle
from orch_tui.core.batch.record import RunStatus, load_batch
from orch_tui.core.batch.report import write_reports
from orch_tui.core.batch.run_one import RunTask, run_in_folder
from orch_tui.core.workspace.lock import ProjectLock, ProjectLocked

SENT_BACK = "sent back from the inbox: a new attempt runs in the background"
LOCK_POLL_S = 1.0


def rework_command(batch_folder: Path, name: str, run_options: Sequence[str]) -> list[str]:
    """The background process's command line: this module, with this interpreter."""
    return [sys.executable, "-m", __name__, str(batch_folder.resolve()), name, *run_options]


def mark_reworking(batch_folder: Path, name: str) -> bool:
    """Record that ``name`` went back to the model; False when a batch command holds the
    batch (the background process records the attempt's end once it is done)."""
    lock = ProjectLock(batch_folder)
    try:
        lock.acquire()
    except ProjectLocked:
        return False
    try:
        record = load_batch(batch_folder)
        if record is None:
            return False
        run = record.run(name)
        run.status, run.stop_reason = RunStatus.REWORKING, SENT_BACK
        record.save(batch_folder)
        write_reports(batch_folder, record)
        return True
    finally:
        lock.release()


def record_end(batch_folder: Path, name: str, exit_code: int, elapsed_s: float) -> None:
    """Record how the new attempt ended, waiting for any batch command holding the batch."""
    lock = ProjectLock(batch_folder)
    while True:
        try:
            lock.acquire()
            break
        except ProjectLocked:
            time.sleep(LOCK_POLL_S)
    try:
        record = load_batch(batch_folder)
        if record is None:
            return
        run = record.run(name)
        run.elapsed_s += elapsed_s
        settle(run, batch_folder / name, exit_code)
        write_reports(batch_folder, record)
        record.save(batch_folder)  # last: once batch.json says so, the reports do too
    finally:
        lock.release()


def main(argv: Sequence[str]) -> int:
    """Run the new attempt in ``BATCH_FOLDER/NAME`` with the options given, then record it."""
    batch_folder, name, *options = argv
    folder = Path(batch_folder)
    started = time.monotonic()
    code = run_in_folder(RunTask(name, folder / name, tuple(options)), _ignore, threading.Event())
    record_end(folder, name, code, time.monotonic() - started)
    return code


def _ignore(event: object) -> None:
    """The attempt's JSON events: its own ``logs/`` keep them; nobody watches this process."""


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
