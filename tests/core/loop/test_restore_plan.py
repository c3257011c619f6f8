"""What a restore says before and after: the files it changes and the attempts it undoes."""

from __future__ import annotations

import pytest

from orch_tui.core.loop.restore import RestorePlan, attempt_span


@pytest.mark.parametrize(
    ("numbers", "said"),
    [
        ((3,), "attempt 3"),
        ((3, 4), "attempts 3–4"),
        ((5, 1, 3, 4), "attempts 1, 3–5"),
        ((1, 3), "attempts 1, 3"),
    ],
)
def test_attempts_are_named_as_runs_of_numbers(numbers: tuple[int, ...], said: str) -> None:
    assert attempt_span(numbers) == said


def test_the_question_and_the_message_name_the_files_and_the_attempts() -> None:
    plan = RestorePlan(2, (3, 4), ("a.py", "b.py", "c.py"))
    assert (
        plan.question()
        == "Restore attempt 2? This will undo 3 files from attempts 3–4 (a.py, b.py, c.py)."
    )
    assert plan.done() == "restored attempt 2: undid 3 files from attempts 3–4 (a.py, b.py, c.py)"


def test_many_files_are_counted_past_the_first_five() -> None:
    plan = RestorePlan(0, (1,), tuple(f"f{n}.py" for n in range(7)))
    assert plan.done().endswith("(f0.py, f1.py, f2.py, f3.py, f4.py and 2 more)")


def test_a_restore_that_changes_nothing_says_so() -> None:
    plan = RestorePlan(4, (), ())
    assert (
        plan.done()
        == "restored attempt 4: nothing to change: the workspace holds that result already"
    )
    forward = RestorePlan(3, (), ("a.py",))  # back to a later attempt after a restore
    assert forward.done() == "restored attempt 3: undid 1 file (a.py)"
