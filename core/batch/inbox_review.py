"""One inbox run under review: its session for the review screen, and how the review ends.

Ending a review lands the accepted (and undecided) hunks in the person's project, sends the
rejected ones back to the model with the person's reason when one was given, and records the
review so the run leaves the inbox.
"""

from __future__ import annotations

from orch_tui.core.batch.inbox import InboxEntry
from orch_tui.core.batch.landing import Target, land
from orch_tui.core.batch.reviewed import ReviewRecord, load_decisions, save_decisions, save_review
from orch_tui.core.batch.run_change import RunChange, run_change
from orch_tui.core.batch.send_back import guidance_for, send_back
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.proposal import Decisions, resolve
from orch_tui.core.loop.review import ReviewSession
from orch_tui.core.util.records import record


@record(frozen=True)
class OpenedRun:
    entry: InboxEntry
    change: RunChange
    session: ReviewSession


def open_run(entry: InboxEntry) -> OpenedRun:
    """The run's whole change as a review session; decisions made earlier are found again."""
    paths = ProjectPaths(entry.folder)
    state = entry.state
    change = run_change(state, paths.logs / state.run_id)
    decisions = load_decisions(entry.folder, state.run_id, state.attempt)
    if decisions is None:
        decisions = Decisions.undecided(change.proposal)

    def persist(decided: Decisions) -> None:
        save_decisions(entry.folder, state.run_id, state.attempt, decided)

    session = ReviewSession(state.attempt, change.proposal, decisions, persist)
    return OpenedRun(entry, change, session)


def finish_review(opened: OpenedRun, target: Target, reason: str | None) -> ReviewRecord:
    """Land what was accepted in ``target``; with ``reason``, send the rejected hunks back."""
    session, state = opened.session, opened.entry.state
    decisions = session.decisions
    whole_reason = decisions.reject_reason
    message = f"orch-tui: reviewed hunks of {opened.entry.key} (run {state.run_id})"
    landing = land(target, resolve(session.proposal, decisions), opened.change.start, message)
    rejected = session.effective.hunk_count if whole_reason else session.counts()[1]
    reason = whole_reason or reason
    review = ReviewRecord(
        run_id=state.run_id,
        attempt=state.attempt,
        landed=landing.landed,
        conflicts=landing.conflicts,
        rejected_hunks=rejected,
        sent_back=reason or "",
        target=str(target),
    )
    if reason:
        if whole_reason:
            decisions = Decisions.from_json(decisions.to_json())
            for change in session.effective.changes:
                decisions.set_file(change.path, "rejected")
        text = guidance_for(session.effective, decisions, reason)
        send_back(opened.entry.folder, opened.entry.run_options, text)
    save_review(opened.entry.folder, review)
    return review


def describe_review(review: ReviewRecord) -> str:
    """One line for the person: what landed where, what conflicted, what went back."""
    said = f"{len(review.landed)} file(s) landed in {review.target}"
    if review.conflicts:
        said += f"; not written (your copy conflicts): {', '.join(review.conflicts)}"
    if review.sent_back:
        said += f"; {review.rejected_hunks} rejected hunk(s) went back to the model"
    elif review.rejected_hunks:
        said += f"; {review.rejected_hunks} rejected hunk(s) dropped"
    return said
