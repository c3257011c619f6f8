"""A proposal the person prepared (the revert of the hunks that broke a test), put up for review.

It becomes the current run's next attempt, waiting in REVIEWING with its ``proposal.json``:
resuming the run (``orch-tui spec.md``, or resuming it from the history) shows it in the review
screen like any proposal of the model's. Nothing is written to the workspace here; what the
person accepts lands and is tested as usual. Only a run that is not working (stopped, waiting
for help, or finished) takes one, and only the run ``state.json`` holds.
"""

from __future__ import annotations

from pathlib import Path

from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.events import Notice, ProposalReady, StateChanged
from orch_tui.core.domain.proposal import Proposal
from orch_tui.core.domain.state import RunState, State, StateStore
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.writer import RunLog

_AT_REST = (RunState.FAILED, RunState.NEEDS_HELP, RunState.SUCCESS)


class ProposalRefused(Exception):
    """The run cannot take the person's proposal now; the message says why."""


def _current(paths: ProjectPaths, run_id: str) -> State:
    state = StateStore(paths.state).load()
    if state is None or state.run_id != run_id:
        raise ProposalRefused(
            f"run {run_id} is not the current run: only the run in state.json can take a proposal"
        )
    if state.state not in _AT_REST:
        raise ProposalRefused(
            f"run {run_id} is {state.state.value}: finish that step first "
            "(run the same command to resume it)"
        )
    return state


def next_attempt(paths: ProjectPaths, run_id: str) -> tuple[int, Path]:
    """The attempt a proposal would be, and the workspace it is made against."""
    state = _current(paths, run_id)
    record = state.workspace
    return state.attempt + 1, Path(record.path) if record else paths.default_workspace


def open_for_review(paths: ProjectPaths, run_id: str, proposal: Proposal, note: str) -> str:
    """Make ``proposal`` the run's next attempt, waiting for review; says what was done."""
    state = _current(paths, run_id)
    attempt = state.attempt + 1
    if proposal.attempt != attempt or proposal.is_empty:
        raise ProposalRefused(f"nothing to review as attempt {attempt}")
    log = RunLog(paths.logs, run_id)
    log.write_json(attempt, runlog.PROPOSAL, proposal.to_json())
    state.attempt = attempt
    state.state = RunState.REVIEWING
    state.stop_reason = state.last_error = None
    state.exit_code = None
    state.question = None
    state.max_retries = max(state.max_retries, attempt)
    StateStore(paths.state).save(state)
    said = f"attempt {attempt} is your proposal: {note}"
    log(Notice(message=said))
    log(StateChanged(state=RunState.REVIEWING, attempt=attempt, max_retries=state.max_retries))
    log(
        ProposalReady(
            attempt=attempt,
            files=list(proposal.files),
            added=proposal.added,
            removed=proposal.removed,
            hunks=proposal.hunk_count,
        )
    )
    return said
