"""A batch's runs handed out to workers, its budget shared out, and its record kept.

Workers (threads of the local engine, or the Ray engine's loop) ask :meth:`BatchDriver.next_task`
for a run and report its end to :meth:`BatchDriver.finish`. The driver decides what starts:
finished runs are never started again, and with a budget each run gets a share of what is
left (spent by finished runs, reserved by running ones) divided by the runs still to start, so
the runs together can never spend more than the batch's budget.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

from orch_tui.core.batch.record import BatchRecord, RunRecord, RunStatus
from orch_tui.core.batch.run_one import EXIT_INTERRUPTED, RunTask, read_run_state
from orch_tui.core.batch.space import StorageProblem, last_words, run_out_of_space
from orch_tui.core.domain.state import RunState, State
from orch_tui.core.runlog.verdict import verdict_line
from orch_tui.core.util.records import record
from orch_tui.core.workspace.lock import project_lock_holder

MIN_SHARE_USD = 0.01
"""Below this a run could not afford one request: the batch budget counts as spent."""
FINISHED_STATES = (RunState.SUCCESS, RunState.FAILED, RunState.NEEDS_HELP)


@record(frozen=True)
class BatchOptions:
    """What every run of the batch shares."""

    run_options: tuple[str, ...] = ()
    """orch-tui options for each run (provider, model, max retries, plan)."""
    max_cost_usd: float | None = None
    """The whole batch's budget; None: each run's own config decides."""


class BatchDriver:
    """Hands out the batch's runs and records their ends; safe to call from many threads."""

    def __init__(
        self,
        folder: Path,
        record: BatchRecord,
        options: BatchOptions,
        on_change: Callable[[RunRecord], None] = lambda run: None,
    ) -> None:
        self.folder = folder
        self.record = record
        self.options = options
        self.on_change = on_change
        self.budget_spent = False
        self.storage: StorageProblem | None = None
        """Set when the batch folder is out of space (or cannot be written): no run starts."""
        self._lock = threading.Lock()
        self._started: dict[str, float] = {}
        self._handed_out: set[str] = set()
        """Runs started by this command: one that stops is resumed by the next command, not
        again by this one (a run that crashes every time must not loop)."""
        for run in record.runs:
            if run.status in (RunStatus.RUNNING, RunStatus.SKIPPED):
                run.status = RunStatus.STOPPED  # a batch killed mid-run, or a budget raised
            elif (
                run.status is RunStatus.REWORKING and project_lock_holder(folder / run.name) is None
            ):
                settle(run, folder / run.name, run.exit_code or 0)  # its attempt has ended

    def to_start(self) -> list[RunRecord]:
        return [
            r for r in self.record.runs if r.status not in (RunStatus.FINISHED, RunStatus.REWORKING)
        ]

    def next_task(self) -> RunTask | None:
        """The next run to start, with its budget share; None when none is left to start."""
        with self._lock:
            if self.storage is not None:
                return None
            waiting = [
                r
                for r in self.record.runs
                if r.status in (RunStatus.PENDING, RunStatus.STOPPED)
                and r.name not in self._handed_out
            ]
            if not waiting:
                return None
            run = waiting[0]
            share = self._share(len(waiting))
            if share is not None and share < MIN_SHARE_USD:
                self.budget_spent = True
                for skipped in waiting:
                    skipped.status = RunStatus.SKIPPED
                    skipped.stop_reason = "not started: the batch's budget is spent"
                self._save(*waiting)
                return None
            was = run.status, run.cap_usd
            run.status, run.cap_usd = RunStatus.RUNNING, share
            self._save(run)
            if self.storage is not None:  # batch.json could not say it runs: it does not
                run.status, run.cap_usd = was
                return None
            self._handed_out.add(run.name)
            self._started[run.name] = time.monotonic()
        options = self.options.run_options
        if share is not None:
            options += ("--max-cost-usd", f"{share:.4f}")
        return RunTask(run.name, self.folder / run.name, options)

    def _share(self, waiting: int) -> float | None:
        if self.options.max_cost_usd is None:
            return None
        reserved = sum(
            (r.cap_usd or 0.0) if r.status is RunStatus.RUNNING else r.cost_usd
            for r in self.record.runs
        )
        return max(self.options.max_cost_usd - reserved, 0.0) / waiting

    def finish(self, task: RunTask, exit_code: int) -> RunRecord:
        """Record how ``task`` ended, from its exit code and its own ``state.json``."""
        with self._lock:
            run = self.record.run(task.name)
            run.elapsed_s += time.monotonic() - self._started.pop(task.name, time.monotonic())
            settle(run, task.folder, exit_code)
            if run.status is RunStatus.STOPPED and exit_code != EXIT_INTERRUPTED:
                problem = run_out_of_space(task.folder)
                if problem is not None:
                    self.storage = self.storage or problem
                    run.stop_reason = (
                        f"stopped: the batch folder is out of space ({problem.detail}); "
                        "free some space: the same batch command resumes it"
                    )
            self._save(run)
            return run

    def _save(self, *changed: RunRecord) -> None:
        try:
            self.record.save(self.folder)
        except OSError as exc:  # the last whole batch.json stays; the batch stops starting runs
            self.storage = self.storage or StorageProblem.of(exc)
        for run in changed:
            self.on_change(run)


def settle(run: RunRecord, folder: Path, exit_code: int) -> None:
    """Record in ``run`` how its process in ``folder`` ended: its exit code and its own
    ``state.json`` (FINISHED when the run finished, else STOPPED: the next batch resumes it)."""
    state = read_run_state(folder)
    run.exit_code = exit_code
    if state is not None:
        _copy_state(run, state)
        run.evidence = verdict_line(folder / "logs" / state.run_id)
    if state is not None and state.state in FINISHED_STATES:
        run.status = RunStatus.FINISHED
    else:
        run.status = RunStatus.STOPPED
        run.stop_reason = _why_stopped(exit_code, last_words(folder))


def _copy_state(run: RunRecord, state: State) -> None:
    run.state = str(state.state)
    run.run_id = state.run_id
    run.attempts = state.attempts_made
    run.tokens = state.usage.total
    run.cost_usd = state.cost_usd
    run.stop_reason = state.stop_reason or ""
    last = state.last_test
    run.tests = last.summary if last is not None else ""
    run.tests_passed = last is not None and last.passed


def _why_stopped(exit_code: int, said: str) -> str:
    """Why a run stopped unfinished; ``said``: the last line of its ``batch-run.log``."""
    if exit_code == EXIT_INTERRUPTED:
        return "interrupted: the same batch command resumes it"
    if exit_code < 0:
        return f"its process died (signal {-exit_code}): the same batch command resumes it"
    if said:
        return f"stopped before it finished (exit {exit_code}): {said}"
    return f"stopped before it finished (exit {exit_code}): see batch-run.log in its folder"
