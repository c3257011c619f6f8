"""Giving up on a run: an action, not guidance (issue 24).

``--give-up``, or "Give up on this run" picked as the answer to the stuck question (in the
TUI, or ``--guidance N``), ends the run FAILED with the reason, with no model request: the
retry budget does not grow and the question is not asked again.
"""

from __future__ import annotations

from orch_tui.core.domain.asking import gives_up
from orch_tui.core.domain.events import Notice
from orch_tui.core.domain.state import RunState
from orch_tui.core.loop import finishing
from orch_tui.core.loop.exit_codes import EXIT_FAILED
from orch_tui.core.loop.run import Run


class NothingToGiveUp(Exception):
    """--give-up with no saved run for this spec, or on one that succeeded."""


def asks_to_give_up(run: Run) -> bool:
    """--give-up, or the saved question answered with its "Give up" option."""
    options = run.options
    if options.give_up:
        return True
    question = run.state.question if hasattr(run, "state") else None
    return options.guidance is not None and gives_up(question, options.guidance)


def give_up(run: Run) -> None:
    """End the run FAILED, "given up by the person"; a run already FAILED stays as it is."""
    state = run.state
    if state.state is RunState.SUCCESS:
        raise NothingToGiveUp(f"run {state.run_id} already succeeded: there is nothing to give up")
    if state.state is RunState.FAILED:
        run.emit(Notice(message=f"run {state.run_id} had already failed: {state.stop_reason}"))
        return
    state.question = None
    finishing.finish(
        run, RunState.FAILED, EXIT_FAILED, f"given up by the person at attempt {state.attempt}"
    )
