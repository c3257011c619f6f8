"""The review step (REVIEWING): the proposal goes to the reviewer, the decided change is kept.

Decisions are saved as they are made, so a resumed run shows the same proposal with the
same decisions. What lands (full file texts) is written to ``applied.json`` before the
run moves to TESTING, which applies it again on resume; the originals are kept first. A
proposal rejected as a whole (or hunk by hunk) is returned as the failure it is.
"""

from __future__ import annotations

from orch_tui.core.domain.events import Notice, ReviewFinished
from orch_tui.core.domain.proposal import Decisions, Proposal, render_patch, resolve
from orch_tui.core.domain.state import RunState, StateError
from orch_tui.core.domain.test_files import LOCKED_NOTE, hold_locked_tests
from orch_tui.core.loop.retry import Failure, ProposalRejected
from orch_tui.core.loop.review import ReviewSession
from orch_tui.core.loop.run import Run
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.workspace import run_workspace


def review_step(run: Run) -> Failure | None:
    """Have the proposal reviewed; TESTING next, or the rejection."""
    attempt = run.state.attempt
    proposal = proposal_under_review(run, attempt)
    saved = run.log.read_json(attempt, runlog.DECISIONS)
    decisions = Decisions.from_json(saved) if saved else Decisions()

    def persist(current: Decisions) -> None:
        run.log.write_json(attempt, runlog.DECISIONS, current.to_json())

    last_test = run.state.last_test
    failing_before = last_test.failing if last_test else None
    session = ReviewSession(attempt, proposal, decisions, persist, failing_before)
    run.reviewer.review(session)
    if getattr(run.reviewer, "holds_locked_tests", True):
        for path in hold_locked_tests(session.effective, decisions):
            run.emit(Notice(message=f"{path}: {LOCKED_NOTE}"))
    run.log.stage_json(attempt, runlog.DECISIONS, decisions.to_json(), run.files)
    accepted, rejected, undecided = session.counts()
    resolved = {} if decisions.reject_reason is not None else resolve(proposal, decisions)
    run.emit(
        ReviewFinished(
            attempt=attempt,
            accepted=accepted + undecided,
            rejected=rejected,
            edited=sorted(decisions.edits),
            reject_reason=decisions.reject_reason,
            files_landing=sorted(resolved),
        )
    )
    if not resolved:
        if decisions.reject_reason is None:
            decisions.reject_reason = "every hunk of the proposal was rejected"
            run.log.stage_json(attempt, runlog.DECISIONS, decisions.to_json(), run.files)
        return ProposalRejected(decisions.reject_reason)
    olds = {change.path: change.old_text for change in session.effective.changes}
    # the originals, before TESTING: resuming TESTING re-applies, so they must exist first
    run_workspace.keep_originals(run.state.workspace, run.log.dir, sorted(resolved), run.files)
    run.log.write_json(attempt, runlog.APPLIED, {"files": resolved}, run.files)
    run.fresh_applied = (attempt, resolved)
    run.log.write_text(
        attempt,
        runlog.APPLIED_PATCH,
        render_patch((path, olds.get(path), text) for path, text in sorted(resolved.items())),
    )
    run.transition(RunState.TESTING)
    return None


def proposal_under_review(run: Run, attempt: int) -> Proposal:
    """The attempt's proposal: the one just generated, else proposal.json (a resume)."""
    fresh, run.fresh_proposal = run.fresh_proposal, None
    if fresh is not None and fresh.attempt == attempt:
        return fresh
    saved_proposal = run.log.read_json(attempt, runlog.PROPOSAL)
    if saved_proposal is None:
        where = f"{run.log.dir / runlog.attempt_dir_name(attempt) / runlog.PROPOSAL}"
        raise StateError(f"{where} is missing: the proposal under review cannot be shown")
    return Proposal.from_json(saved_proposal)
