"""Where the retry is decided: after a failed attempt, patch again, stop, or ask a person.

:func:`next_after_failure` is a pure function of what went wrong (:data:`Failure`) and where
the run stands (:class:`Standing`); the engine reads both from the state and the logs, and
acts on the :data:`Decision` returned. In order (DESIGN.md sections 1 and 11):

- no retries left (``max_retries`` patches of the run, or of the task in plan mode): stuck;
- the same failing tests after two patches in a row (both since the last reopen or escalation:
  ``Standing.window_base``), or a proposal with no change or one identical to an earlier
  attempt's: stuck, for no progress;
- the cost budget spent: :class:`BudgetSpent`;
- else :class:`Patch`, the next attempt (the judge, if one is set, may still ask a person).

Stuck is :class:`Ask` (a question naming the failing tests) when the person is asked on
being stuck (the TUI, or ``loop.on_stuck = "ask"``), else :class:`Stuck`: the run fails.
"""

from __future__ import annotations

from orch_tui.core.domain.asking import Question, stuck_question
from orch_tui.core.loop.budget import budget_spent
from orch_tui.core.util.records import record
from orch_tui.core.util.wording import plural

# -- what went wrong ----------------------------------------------------------------------


@record(frozen=True)
class ChecksFailed:
    """The checks ran on the applied change and did not pass."""

    summary: str
    failing: tuple[str, ...]


@record(frozen=True)
class ProposalRejected:
    """The reviewer rejected the whole proposal (or every hunk of it)."""

    reason: str


@record(frozen=True)
class NoChange:
    """The model proposed no change where one was needed."""


@record(frozen=True)
class RepeatedProposal:
    """The attempt's proposal is identical to the one of attempt ``earlier``."""

    earlier: int


Failure = ChecksFailed | ProposalRejected | NoChange | RepeatedProposal

# -- where the run stands ------------------------------------------------------------------


@record(frozen=True)
class Standing:
    """What the decision reads of the run, taken from ``state.json`` and the attempt logs."""

    attempt: int
    """The attempt that failed."""
    base_attempt: int
    """Where the run (or, in plan mode, the current task) began: its generation."""
    max_retries: int
    cost_usd: float
    max_cost_usd: float | None
    ask_when_stuck: bool
    """Ask a person instead of failing when stuck (the TUI, or ``loop.on_stuck = "ask"``)."""
    last_failing: tuple[str, ...] = ()
    """The failing tests of the last checks run (``state.json``'s ``last_test``)."""
    earlier_failing: tuple[tuple[str, ...] | None, ...] = ()
    """The failing tests of the attempts before this one, latest first; None: no report."""
    window_base: int = 0
    """Where the no-progress window opens: the attempt a stop reopened (``--continue``,
    ``--guidance``) or the last before a stronger model took over; only failures from it on
    count, so a reopened run gets the patches it was given. Below ``base_attempt``: ignored."""


# -- what happens next ---------------------------------------------------------------------


@record(frozen=True)
class Patch:
    """Ask the model for the next attempt."""

    attempt: int


@record(frozen=True)
class Stuck:
    """Stop: the run fails (exit 1) with ``reason``."""

    reason: str


@record(frozen=True)
class Ask:
    """Stop at NEEDS_HELP (exit 4) with ``question`` for a person."""

    question: Question


@record(frozen=True)
class BudgetSpent:
    """Stop: the cost budget is spent (exit 1). Decided between attempts, unlike the
    exception of the same name in :mod:`orch_tui.core.domain.budget`, raised mid-request."""

    reason: str


Decision = Patch | Stuck | Ask | BudgetSpent


def next_after_failure(failure: Failure, standing: Standing) -> Decision:
    """What the run does after ``failure`` of ``standing.attempt``."""
    attempt = standing.attempt
    if isinstance(failure, NoChange):
        return _stuck("no progress: the model proposed no change", standing.last_failing, standing)
    if isinstance(failure, RepeatedProposal):
        return _stuck(
            f"no progress: the proposal of attempt {attempt} is identical to attempt "
            f"{failure.earlier}'s",
            standing.last_failing,
            standing,
        )
    if isinstance(failure, ChecksFailed):
        why, failing = f"checks failed: {failure.summary}", failure.failing
    else:
        why, failing = f"proposal rejected: {failure.reason}", ()
    if attempt - standing.base_attempt >= standing.max_retries:
        return _stuck(
            f"retries exhausted: {why} after {plural(standing.max_retries, 'patch attempt')}",
            failing or standing.last_failing,
            standing,
        )
    if failing and _same_failures_twice(failing, standing):
        return _stuck(
            f"no progress: the same {plural(len(failing), 'failing test')} after two patches in a row",
            failing,
            standing,
        )
    return budget_stop(standing.cost_usd, standing.max_cost_usd) or Patch(attempt + 1)


def budget_stop(spent: float, budget: float | None) -> BudgetSpent | None:
    """:class:`BudgetSpent` when ``spent`` has reached the cost budget, else None.

    Also asked before every model step, whatever happened to the attempt before.
    """
    if not budget_spent(spent, budget):
        return None
    return BudgetSpent(f"cost budget spent: ${spent:.4f} of ${budget:.4f}")


def _same_failures_twice(failing: tuple[str, ...], standing: Standing) -> bool:
    """The two attempts before this one, both in the no-progress window, failed alike."""
    if standing.attempt - max(standing.base_attempt, standing.window_base) < 2:
        return False
    earlier = standing.earlier_failing[:2]
    return len(earlier) == 2 and all(
        found is not None and sorted(found) == sorted(failing) for found in earlier
    )


def _stuck(reason: str, failing: tuple[str, ...], standing: Standing) -> Stuck | Ask:
    if standing.ask_when_stuck:
        return Ask(stuck_question(reason, list(failing)))
    return Stuck(reason)
