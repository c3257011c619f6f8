"""The retry decision, called directly: every outcome of next_after_failure from a Standing."""

from __future__ import annotations

from dataclasses import FrozenInstanceError, replace

import pytest

from orch_tui.core.loop.retry import (
    Ask,
    BudgetSpent,
    ChecksFailed,
    NoChange,
    Patch,
    ProposalRejected,
    RepeatedProposal,
    Standing,
    Stuck,
    budget_stop,
    next_after_failure,
)

FAILING = ("tests/test_calc.py::test_add", "tests/test_calc.py::test_sub")
CHECKS_FAILED = ChecksFailed(summary="1 passed, 2 failed", failing=FAILING)


def standing(**changes: object) -> Standing:
    """Attempt 1 of a run with 3 retries, no budget, failing like CHECKS_FAILED before."""
    base = Standing(
        attempt=1,
        base_attempt=0,
        max_retries=3,
        cost_usd=0.5,
        max_cost_usd=None,
        ask_when_stuck=False,
        last_failing=FAILING,
        earlier_failing=((),),
    )
    return replace(base, **changes)  # type: ignore[arg-type]


# -- retries left: the next attempt -----------------------------------------------------------


def test_failed_checks_with_retries_left_patch_the_next_attempt() -> None:
    assert next_after_failure(CHECKS_FAILED, standing()) == Patch(attempt=2)


def test_a_rejected_proposal_with_retries_left_patches_the_next_attempt() -> None:
    decision = next_after_failure(ProposalRejected("use a dict"), standing(attempt=2))
    assert decision == Patch(attempt=3)


def test_in_plan_mode_retries_count_from_the_tasks_first_attempt() -> None:
    # attempt 7 is the task's 3rd patch of 3 when the task began at 4: no retry left
    assert isinstance(next_after_failure(CHECKS_FAILED, standing(attempt=7, base_attempt=4)), Stuck)
    # the same attempt number in a task that began at 5 still has one
    decision = next_after_failure(
        CHECKS_FAILED, standing(attempt=7, base_attempt=5, earlier_failing=((), ()))
    )
    assert decision == Patch(attempt=8)


# -- no retries left: stuck, failing or asking --------------------------------------------------


def test_no_retries_left_is_stuck_with_the_reason() -> None:
    decision = next_after_failure(CHECKS_FAILED, standing(attempt=3))
    assert decision == Stuck(
        "retries exhausted: checks failed: 1 passed, 2 failed after 3 patch attempts"
    )


def test_no_retries_left_after_a_rejection_names_the_rejection() -> None:
    decision = next_after_failure(ProposalRejected("wrong approach"), standing(attempt=3))
    assert decision == Stuck(
        "retries exhausted: proposal rejected: wrong approach after 3 patch attempts"
    )


def test_no_retries_left_asks_a_person_when_asked_to_on_being_stuck() -> None:
    decision = next_after_failure(CHECKS_FAILED, standing(attempt=3, ask_when_stuck=True))
    assert isinstance(decision, Ask)
    question = decision.question
    assert question.source == "stuck"
    assert "retries exhausted: checks failed: 1 passed, 2 failed after 3 patch attempts" in (
        question.text
    )
    assert "These tests still fail: " + ", ".join(FAILING) in question.text


def test_a_rejection_with_no_retries_left_asks_about_the_tests_failing_before() -> None:
    decision = next_after_failure(
        ProposalRejected("no"), standing(attempt=3, ask_when_stuck=True, last_failing=("t::a",))
    )
    assert isinstance(decision, Ask)
    assert "These tests still fail: t::a." in decision.question.text


def test_the_stuck_question_about_failing_tests_offers_to_explain_them() -> None:
    decision = next_after_failure(CHECKS_FAILED, standing(attempt=3, ask_when_stuck=True))
    assert isinstance(decision, Ask)
    question = decision.question
    assert question.options == [
        "Explain what the tests expect",
        "Relax or fix the tests",
        "Give up on this run",
    ]
    assert "failing tests" in question.recommendation


@pytest.mark.parametrize(
    ("failure", "last_failing"),
    [
        # the checks crashed: a non-zero exit with no test result at all
        (ChecksFailed(summary="pytest exited 4", failing=()), ()),
        # a proposal with no change after the final checks failed (the tests passed)
        (NoChange(), ()),
        # rejected before any test existed
        (ProposalRejected("not like this"), ()),
    ],
)
def test_the_stuck_question_names_no_tests_when_none_fail(
    failure: object, last_failing: tuple[str, ...]
) -> None:
    decision = next_after_failure(
        failure,  # type: ignore[arg-type]
        standing(attempt=3, ask_when_stuck=True, last_failing=last_failing),
    )
    assert isinstance(decision, Ask)
    question = decision.question
    assert "These test" not in question.text  # neither "tests still fail" nor "files"
    assert not any("test" in option for option in question.options)
    assert "test" not in question.recommendation
    assert question.options[-1] == "Give up on this run"  # still option 3 (--guidance 3)


def test_a_collection_error_is_named_as_a_test_file_that_does_not_load() -> None:
    broken = ChecksFailed(summary="1 error", failing=("tests/test_calc.py",))
    decision = next_after_failure(broken, standing(attempt=3, ask_when_stuck=True))
    assert isinstance(decision, Ask)
    question = decision.question
    assert "These test files do not load: tests/test_calc.py." in question.text
    assert "These tests still fail" not in question.text
    assert "Relax or fix the tests" not in question.options


def test_retries_spent_come_before_a_spent_budget() -> None:
    decision = next_after_failure(CHECKS_FAILED, standing(attempt=3, max_cost_usd=0.1))
    assert isinstance(decision, Stuck)


# -- no progress -----------------------------------------------------------------------------


def test_the_same_failing_set_after_two_patches_in_a_row_is_stuck_for_no_progress() -> None:
    # the two attempts before failed alike, in another order
    earlier = (tuple(reversed(FAILING)), FAILING)
    decision = next_after_failure(CHECKS_FAILED, standing(attempt=2, earlier_failing=earlier))
    assert decision == Stuck("no progress: the same 2 failing tests after two patches in a row")


def test_one_failing_test_and_one_patch_attempt_are_worded_in_the_singular() -> None:
    one = ChecksFailed(summary="1 failed", failing=FAILING[:1])
    earlier = (FAILING[:1], FAILING[:1])
    stuck = next_after_failure(one, standing(attempt=2, earlier_failing=earlier))
    spent = next_after_failure(one, standing(attempt=1, max_retries=1))
    assert stuck == Stuck("no progress: the same 1 failing test after two patches in a row")
    assert isinstance(spent, Stuck) and spent.reason.endswith("after 1 patch attempt")


def test_the_same_failing_set_asks_a_person_when_asked_to_on_being_stuck() -> None:
    decision = next_after_failure(
        CHECKS_FAILED,
        standing(attempt=2, earlier_failing=(FAILING, FAILING), ask_when_stuck=True),
    )
    assert isinstance(decision, Ask)
    assert "no progress: the same 2 failing tests" in decision.question.text


@pytest.mark.parametrize(
    ("attempt", "earlier"),
    [
        (1, (FAILING,)),  # only one patch so far
        (2, (FAILING, FAILING[:1])),  # the attempt before the last failed otherwise
        (2, (FAILING, None)),  # an attempt before had no checks report (rejected)
        (2, (FAILING,)),  # only one earlier attempt known
    ],
)
def test_the_same_failures_need_two_earlier_patches_failing_alike(
    attempt: int, earlier: tuple[tuple[str, ...] | None, ...]
) -> None:
    decision = next_after_failure(CHECKS_FAILED, standing(attempt=attempt, earlier_failing=earlier))
    assert decision == Patch(attempt=attempt + 1)


def test_a_reopened_run_gets_the_patches_it_was_given_before_no_progress() -> None:
    """--continue (or --guidance, or a stronger model) at attempt 4: the window opens there.

    Attempts 3 and 4 failed alike before the stop; the first patch after it (5) failing the
    same way is not yet "two patches in a row", the second (6) is."""
    reopened = standing(attempt=5, max_retries=7, earlier_failing=(FAILING, FAILING), window_base=4)
    assert next_after_failure(CHECKS_FAILED, reopened) == Patch(attempt=6)
    second = replace(reopened, attempt=6)
    assert next_after_failure(CHECKS_FAILED, second) == Stuck(
        "no progress: the same 2 failing tests after two patches in a row"
    )
    # without the window, the stop's own failures would stop the first patch after it
    spanning = replace(reopened, window_base=0)
    assert isinstance(next_after_failure(CHECKS_FAILED, spanning), Stuck)


def test_a_window_before_the_tasks_first_attempt_counts_from_the_task() -> None:
    task = standing(attempt=6, base_attempt=5, earlier_failing=(FAILING,), window_base=2)
    assert next_after_failure(CHECKS_FAILED, task) == Patch(attempt=7)


def test_no_failing_tests_is_never_the_same_failures() -> None:
    """Checks that failed without a failing test (a crash, a missing report) are no repeat."""
    failed = ChecksFailed(summary="no tests ran", failing=())
    decision = next_after_failure(failed, standing(attempt=2, earlier_failing=((), ())))
    assert decision == Patch(attempt=3)


def test_an_identical_proposal_is_stuck_for_no_progress() -> None:
    decision = next_after_failure(RepeatedProposal(earlier=1), standing(attempt=3))
    assert decision == Stuck("no progress: the proposal of attempt 3 is identical to attempt 1's")


def test_an_identical_proposal_asks_a_person_when_asked_to_on_being_stuck() -> None:
    decision = next_after_failure(
        RepeatedProposal(earlier=0), standing(attempt=1, ask_when_stuck=True)
    )
    assert isinstance(decision, Ask)
    assert "identical to attempt 0's" in decision.question.text
    assert "These tests still fail: " + ", ".join(FAILING) in decision.question.text


def test_no_change_is_stuck_for_no_progress_even_with_retries_left() -> None:
    decision = next_after_failure(NoChange(), standing(attempt=1))
    assert decision == Stuck("no progress: the model proposed no change")


# -- the budget ------------------------------------------------------------------------------


def test_a_spent_budget_stops_with_what_was_spent() -> None:
    decision = next_after_failure(CHECKS_FAILED, standing(cost_usd=0.25, max_cost_usd=0.25))
    assert decision == BudgetSpent("cost budget spent: $0.2500 of $0.2500")


def test_a_rejection_also_stops_on_a_spent_budget() -> None:
    decision = next_after_failure(ProposalRejected("no"), standing(cost_usd=1.0, max_cost_usd=0.5))
    assert decision == BudgetSpent("cost budget spent: $1.0000 of $0.5000")


@pytest.mark.parametrize(("spent", "budget"), [(0.24, 0.25), (100.0, None)])
def test_a_budget_not_spent_or_none_lets_the_run_patch(spent: float, budget: float | None) -> None:
    decision = next_after_failure(CHECKS_FAILED, standing(cost_usd=spent, max_cost_usd=budget))
    assert decision == Patch(attempt=2)
    assert budget_stop(spent, budget) is None


def test_decisions_are_values() -> None:
    decision = Patch(attempt=2)
    with pytest.raises(FrozenInstanceError):
        decision.attempt = 3  # type: ignore[misc]
