"""The loop: GENERATING → REVIEWING → TESTING → SUCCESS, or PATCHING and round again.

Every transition is written to ``state.json`` before the next step begins, and
every step can be re-entered after a crash:

- GENERATING / PATCHING: nothing was written yet; the attempt is asked again.
- REVIEWING: the saved proposal and decisions are shown again, never regenerated.
- TESTING: the decided change (``applied.json``, full file texts) is applied
  again, which is idempotent, and the checks re-run.

The engine drives the steps (:mod:`.model_step`, :mod:`.review_step`, :mod:`.checks_step`)
and acts on what :func:`.next_after_failure` decides after a failed attempt. It is
the loop's front door: the exit codes, :class:`RunOptions` and :class:`ReopenRefused` are
imported from here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Unpack

from orch_tui.core.checks.report import TestReport
from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.budget import BudgetSpent
from orch_tui.core.domain.events import EventBus
from orch_tui.core.domain.spec import Spec
from orch_tui.core.domain.state import RunState, State, StateStore
from orch_tui.core.loop import finishing, opening
from orch_tui.core.loop.escalation import escalated_from
from orch_tui.core.loop.exit_codes import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NEEDS_HELP,
    EXIT_SAFETY,
    EXIT_STATE,
    EXIT_SUCCESS,
)
from orch_tui.core.loop.giving_up import NothingToGiveUp
from orch_tui.core.loop.model_step import model_step
from orch_tui.core.loop.opening import ReopenRefused
from orch_tui.core.loop.options import RunOptions
from orch_tui.core.loop.plan_runner import PlanFailed
from orch_tui.core.loop.retry import (
    Ask,
    ChecksFailed,
    Failure,
    Patch,
    Standing,
    next_after_failure,
)
from orch_tui.core.loop.run import Run, RunParts
from orch_tui.core.providers.base import ModelError, Provider
from orch_tui.core.providers.scripted import RecordingExhausted
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.writer import RunLog
from orch_tui.core.util import atomic
from orch_tui.core.workspace.boundary import SafetyViolation

__all__ = [
    "EXIT_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_NEEDS_HELP",
    "EXIT_SAFETY",
    "EXIT_STATE",
    "EXIT_SUCCESS",
    "Engine",
    "NothingToGiveUp",
    "ReopenRefused",
    "RunOptions",
]

Step = Callable[[Run], Failure | None]


def _start(run: Run) -> None:
    run.transition(RunState.PLANNING if run.options.plan else RunState.GENERATING, attempt=0)


def _plan_step(run: Run) -> None:
    try:
        first = run.planner.make_plan()
    except PlanFailed as exc:
        finishing.finish(run, RunState.FAILED, EXIT_FAILED, str(exc))
        return
    run.transition(RunState.GENERATING, attempt=first)


def _review_step(run: Run) -> Failure | None:
    """:func:`.review_step.review_step`, with the proposal's records and difflib, imported when
    the first proposal is reviewed: after the first model request, not before it."""
    from orch_tui.core.loop.review_step import review_step

    return review_step(run)


def _checks_step(run: Run) -> Failure | None:
    """:func:`.checks_step.checks_step`, its modules (the runner's wrapping, the evidence,
    coverage) imported when the checks first run: after the first model request, not before it.
    """
    from orch_tui.core.loop.checks_step import checks_step

    return checks_step(run)


STEPS: dict[RunState, Step] = {
    RunState.INIT: _start,
    RunState.PLANNING: _plan_step,
    RunState.GENERATING: model_step,
    RunState.PATCHING: model_step,
    RunState.REVIEWING: _review_step,
    RunState.TESTING: _checks_step,
}


class Engine:
    """One run of the loop, driven to a terminal state in the calling (worker) thread."""

    def __init__(self, *, cancel: threading.Event | None = None, **parts: Unpack[RunParts]) -> None:
        self._run = Run(**parts)
        self.cancel = cancel or threading.Event()

    # -- the run, as callers see it ---------------------------------------------------------

    @property
    def paths(self) -> ProjectPaths:
        return self._run.paths

    @property
    def config(self) -> Config:
        return self._run.config

    @config.setter
    def config(self, config: Config) -> None:
        self._run.config = config

    @property
    def spec(self) -> Spec:
        return self._run.spec

    @property
    def provider(self) -> Provider:
        return self._run.provider

    @property
    def bus(self) -> EventBus:
        return self._run.bus

    @property
    def options(self) -> RunOptions:
        return self._run.options

    @property
    def store(self) -> StateStore:
        return self._run.store

    @property
    def state(self) -> State:
        """The run's state; AttributeError until the run is opened."""
        return self._run.state

    @property
    def log(self) -> RunLog:
        """The run's log folder; AttributeError until the run is opened."""
        return self._run.log

    # -- driving it -------------------------------------------------------------------------

    def run(self) -> int:
        """Open (or resume) the run and drive it to a terminal state; returns the exit code.

        KeyboardInterrupt and ReviewAborted propagate: the state on disk is
        the last one persisted, and the same command resumes from it.
        """
        self._open_run()
        return self._drive()

    def retry(self) -> int:
        """After :meth:`run` stopped on a model error: ask the model again and drive on."""
        opening.reopen_after_error(self._run)
        return self._drive()

    def continue_with(self, guidance: str | None) -> int:
        """After :meth:`run` stopped at FAILED or NEEDS_HELP: reopen the run (the TUI's answer,
        `c` and `g`) and drive it on; returns the exit code, as :meth:`run` does."""
        self.options.continue_run = True
        self.options.guidance = guidance
        opening.continue_if_asked(self._run, resumed=True)
        return self._drive()

    def resume_saved(self) -> int:
        """After :meth:`run` stopped: drive on from the state saved since, when it is this run's
        (the person put a proposal of their own up for review: ``core.loop.person_proposal``)."""
        saved = self._run.store.load()
        if saved is not None and saved.run_id == self._run.state.run_id:
            self._run.state = saved
        return self._drive()

    def _open_run(self) -> State:
        """Resume the saved run for this spec, or start a fresh one. StateError: exit 3."""
        return opening.open_run(self._run)

    def _drive(self) -> int:
        run = self._run
        try:
            while not run.state.state.terminal:
                if self.cancel.is_set():
                    raise KeyboardInterrupt
                failure = STEPS[run.state.state](run)
                if failure is not None:
                    self._after_failure(failure)
        except SafetyViolation as exc:
            finishing.finish(run, RunState.FAILED, EXIT_SAFETY, f"safety violation: {exc}")
        except (
            RecordingExhausted
        ) as exc:  # a replay that took another path: asking again won't help
            finishing.finish(run, RunState.FAILED, EXIT_FAILED, str(exc))
        except ModelError as exc:
            run.state.last_error = str(exc)
            finishing.finish(run, RunState.FAILED, EXIT_FAILED, f"model error: {exc}")
        except BudgetSpent as exc:  # raised mid-request, when the next one cannot fit
            finishing.finish(run, RunState.FAILED, EXIT_FAILED, str(exc))
        else:
            if run.state.exit_code is None:  # terminal when opened, finished earlier
                run.state.exit_code = {
                    RunState.SUCCESS: EXIT_SUCCESS,
                    RunState.NEEDS_HELP: EXIT_NEEDS_HELP,
                }.get(run.state.state, EXIT_FAILED)
        finally:
            run.files.discard()  # stopped mid-step: the state did not move to point at them
            atomic.settle()
        finishing.announce_finish(run)  # also after a safety stop or a model error: say why
        return int(run.state.exit_code if run.state.exit_code is not None else EXIT_FAILED)

    # -- after a failed attempt ---------------------------------------------------------------

    def _after_failure(self, failure: Failure) -> None:
        """Act on the retry decision: patch again (unless the judge asks), stop, or ask."""
        run = self._run
        decision = next_after_failure(failure, self._standing())
        if isinstance(decision, Patch):
            if isinstance(failure, ChecksFailed):
                question = run.roles.judge(run.state.attempt)
                if question is not None:
                    finishing.ask(run, question)
                    return
            run.transition(RunState.PATCHING, attempt=decision.attempt)
        elif isinstance(decision, Ask):
            finishing.ask(run, decision.question)
        else:
            finishing.finish(run, RunState.FAILED, EXIT_FAILED, decision.reason)

    def _standing(self) -> Standing:
        """Where the run stands, for the retry decision: state.json and the attempt logs."""
        run = self._run
        state, base = run.state, run.planner.base_attempt()
        return Standing(
            attempt=state.attempt,
            base_attempt=base,
            max_retries=state.max_retries,
            cost_usd=state.cost_usd,
            max_cost_usd=run.options.max_cost_usd,
            ask_when_stuck=run.options.ask_when_stuck or run.config.loop.on_stuck == "ask",
            last_failing=tuple(run.failing()),
            earlier_failing=tuple(
                self._failing_of(earlier)
                for earlier in (state.attempt - 1, state.attempt - 2)
                if earlier >= base
            ),
            window_base=max(
                state.reopened_at or 0,
                escalated_from(run.config, state.attempt, base) or 0,
            ),
        )

    def _failing_of(self, attempt: int) -> tuple[str, ...] | None:
        """The failing tests of ``attempt``'s checks; None when it has no report."""
        data = self._run.log.read_json(attempt, runlog.REPORT)
        return tuple(TestReport.from_json(data).failing) if data else None
