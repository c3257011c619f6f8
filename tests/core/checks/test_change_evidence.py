"""Do the tests test the change: added tests that pass without it, locked tests rewritten to pass."""

from __future__ import annotations

from orch_tui.core.checks.change_evidence import (
    FAILS_WITHOUT,
    NOT_RUN,
    PASSES_WITHOUT,
    added_test_evidence,
    added_tests,
    node_ids_in,
    rewritten_to_pass,
)
from orch_tui.core.checks.junit import TestCase
from orch_tui.core.domain.proposal import FileChange

OLD_TESTS = (
    "from calc import add\n\n\n"
    "def test_add():\n    assert add(2, 3) == 5\n\n\n"
    "class TestMore:\n    def test_zero(self):\n        assert add(0, 0) == 0\n"
)
NEW_TESTS = OLD_TESTS.replace("== 5", "== 6") + "\n\ndef test_sub():\n    assert sub(3, 2) == 1\n"
F = "tests/test_calc.py"


def case(test: str, outcome: str) -> TestCase:
    return TestCase(test, outcome)


def test_the_tests_an_attempt_adds_are_the_new_names_in_test_files() -> None:
    changes = [
        FileChange(F, OLD_TESTS, NEW_TESTS),
        FileChange("tests/test_new.py", None, "def test_a():\n    assert 1 == 1\n"),
        FileChange("calc.py", None, "def test_not_a_test_file():\n    pass\n"),
        FileChange("tests/test_gone.py", "def test_b():\n    pass\n", None),
    ]
    assert added_tests(changes) == [f"{F}::test_sub", "tests/test_new.py::test_a"]
    assert node_ids_in(F, OLD_TESTS) == [f"{F}::test_add", f"{F}::TestMore::test_zero"]
    assert node_ids_in(F, "def test_(:\n") == []


def test_an_added_test_that_passes_on_the_old_code_is_labelled() -> None:
    before = [
        case(f"{F}::test_sub", "passed"),
        case("tests/test_new.py::test_a", "failed"),
        case(f"{F}::test_param[1]", "passed"),
        case(f"{F}::test_param[2]", "failed"),
        case(f"{F}::test_all[1]", "passed"),
        case(f"{F}::test_all[2]", "passed"),
        case("tests/test_broken.py", "error"),  # the file did not import on the old code
        case(f"{F}::test_skipped", "skipped"),
    ]
    added = [
        f"{F}::test_sub",
        "tests/test_new.py::test_a",
        f"{F}::test_param",
        f"{F}::test_all",
        "tests/test_broken.py::test_c",
        f"{F}::test_skipped",
        f"{F}::test_missing",
    ]
    labels = {e.test: e.label for e in added_test_evidence(added, before)}
    assert labels == {
        f"{F}::test_sub": PASSES_WITHOUT,
        "tests/test_new.py::test_a": FAILS_WITHOUT,
        f"{F}::test_param": FAILS_WITHOUT,
        f"{F}::test_all": PASSES_WITHOUT,
        "tests/test_broken.py::test_c": FAILS_WITHOUT,
        f"{F}::test_skipped": NOT_RUN,
        f"{F}::test_missing": NOT_RUN,
    }
    assert PASSES_WITHOUT == "passes without this change"
    evidence = added_test_evidence(["tests/test_new.py::test_a"], before)
    assert [e.tests_the_change for e in evidence] == [True]


def test_a_locked_test_failing_in_its_old_form_and_passing_in_its_new_one_is_named() -> None:
    old_form = [  # the tests as they stood, against the new code (add now returns 6)
        case(f"{F}::test_add", "failed"),
        case(f"{F}::TestMore::test_zero", "passed"),
    ]
    new_form = [
        case(f"{F}::test_add", "passed"),
        case(f"{F}::TestMore::test_zero", "passed"),
        case(f"{F}::test_sub", "passed"),
    ]
    (rewritten,) = rewritten_to_pass({F: OLD_TESTS}, old_form, new_form)
    assert rewritten.test == f"{F}::test_add" and rewritten.old_outcome == "failed"
    assert rewritten.describe() == (
        "test_add was rewritten to pass: its old form failed, the new one passes"
    )


def test_a_locked_test_that_fails_both_ways_or_passes_both_ways_is_not_rewritten() -> None:
    both_pass = [case(f"{F}::test_add", "passed"), case(f"{F}::TestMore::test_zero", "passed")]
    assert rewritten_to_pass({F: OLD_TESTS}, both_pass, both_pass) == []
    both_fail = [case(f"{F}::test_add", "failed")]
    assert rewritten_to_pass({F: OLD_TESTS}, both_fail, both_fail) == []
    file_error = [case(F, "error")]  # the old file no longer imports against the new code
    (rewritten, other) = rewritten_to_pass({F: OLD_TESTS}, file_error, both_pass)
    assert (rewritten.test, rewritten.old_outcome) == (f"{F}::test_add", "error")
    assert other.test == f"{F}::TestMore::test_zero"
