"""``orch-tui inbox``: the batch runs that finished and wait for a person, newest first.

A run waits when its own ``state.json`` says it finished (SUCCESS, FAILED or NEEDS_HELP) and
the inbox has no review of that attempt (:mod:`core.batch.reviewed`). The run's state is read
from its folder, not from ``batch.json``, so a run sent back to the model and finished again
in the background is seen without a batch command.
"""

from __future__ import annotations

import os
from pathlib import Path

from orch_tui.core.batch.driver import FINISHED_STATES
from orch_tui.core.batch.opening import BATCHES_DIR
from orch_tui.core.batch.record import BatchFileError, BatchRecord, load_batch
from orch_tui.core.batch.reviewed import is_reviewed
from orch_tui.core.batch.run_one import read_run_state
from orch_tui.core.config.paths import STATE_NAME
from orch_tui.core.domain.state import State
from orch_tui.core.util.records import record


@record(frozen=True)
class InboxEntry:
    """One finished run waiting for review."""

    batch_id: str
    name: str
    folder: Path
    state: State
    run_options: tuple[str, ...]
    workspace: str | None
    """The person's repository or folder the batch was given (``--workspace``); None: the
    project's own workspace."""
    finished_at: float
    """When its ``state.json`` was last written (seconds since the epoch): the sort key."""

    @property
    def key(self) -> str:
        """``<batch_id>/<name>``: how the person names a run on the command line."""
        return f"{self.batch_id}/{self.name}"

    def matches(self, text: str) -> bool:
        """Filter as you type: every word in the key, the state or the test summary."""
        last = self.state.last_test.summary if self.state.last_test else ""
        haystack = f"{self.key} {self.state.state} {last}".lower()
        return all(word in haystack for word in text.lower().split())


def waiting_runs(root: Path) -> tuple[list[InboxEntry], list[str]]:
    """The runs waiting in the project ``root``'s batches, newest first, and the problems met
    on the way (a ``batch.json`` that cannot be read): those batches are left out, not lost."""
    entries, problems = [], []
    batches = root / BATCHES_DIR
    for folder in sorted(batches.iterdir()) if batches.is_dir() else []:
        try:
            record = load_batch(folder)
        except BatchFileError as exc:
            problems.append(str(exc))
            continue
        if record is not None:
            entries += _waiting_in(folder, record)
    entries.sort(key=lambda entry: entry.finished_at, reverse=True)
    return entries, problems


def _waiting_in(folder: Path, record: BatchRecord) -> list[InboxEntry]:
    options = tuple(str(option) for option in record.options.get("run_options") or ())
    workspace = record.options.get("workspace")
    found = []
    for run in record.runs:
        run_folder = folder / run.name
        state = read_run_state(run_folder)
        if state is None or state.state not in FINISHED_STATES:
            continue
        if is_reviewed(run_folder, state.run_id, state.attempt):
            continue
        when = os.stat(run_folder / STATE_NAME).st_mtime
        found.append(
            InboxEntry(record.batch_id, run.name, run_folder, state, options, workspace, when)
        )
    return found


def find_entry(entries: list[InboxEntry], key: str) -> InboxEntry | None:
    """The entry named ``<batch_id>/<name>``, or just ``<name>`` when only one run has it."""
    exact = [entry for entry in entries if entry.key == key]
    by_name = [entry for entry in entries if entry.name == key]
    chosen = exact or by_name
    return chosen[0] if len(chosen) == 1 else None
