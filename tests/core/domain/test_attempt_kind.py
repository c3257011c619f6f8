"""Each attempt labelled as what it is (issue 25, item 9)."""

from __future__ import annotations

from orch_tui.core.domain.attempt_kind import attempt_kinds


def test_the_attempt_after_the_models_question_repeats_the_asking_attempts_kind() -> None:
    kinds = attempt_kinds(range(4), firsts=(), model_asked={0, 2}, answered={1, 3})
    assert kinds == {0: "generate", 1: "generate + answer", 2: "patch", 3: "patch + answer"}


def test_after_a_stuck_or_judge_question_the_answer_goes_into_a_patch() -> None:
    kinds = attempt_kinds(range(3), firsts=(), model_asked=(), answered={2})
    assert kinds == {0: "generate", 1: "patch", 2: "patch + answer"}


def test_a_tasks_first_attempt_is_a_generation() -> None:
    assert attempt_kinds([1, 2, 3], firsts={1, 3}, model_asked=(), answered=()) == {
        1: "generate",
        2: "patch",
        3: "generate",
    }
