"""Weakened tests by syntax tree: one test per pattern, and edits that weaken nothing."""

from __future__ import annotations

import textwrap

from orch_tui.core.domain.proposal import FileChange
from orch_tui.core.domain.test_weakening import (
    Weakening,
    WeakeningKind,
    find_weakenings,
    findings_by_hunk,
)
from orch_tui.core.workspace.test_guard import weakening_hunks

K = WeakeningKind

OLD = textwrap.dedent(
    """\
    import pytest

    from calc import add, div


    def test_add():
        assert add(2, 3) == 5
        assert add(0, 0) == 0


    @pytest.mark.parametrize("a, b, total", [(1, 2, 3), (2, 2, 4), (-1, 1, 0)])
    def test_add_cases(a, b, total):
        assert add(a, b) == total


    def test_div_by_zero():
        with pytest.raises(ZeroDivisionError):
            div(1, 0)


    class TestDiv:
        def test_half(self):
            assert div(1, 2) == 0.5

        def test_third(self):
            self.assertAlmostEqual(div(1, 3), 0.333, places=3)
    """
)


def kinds(findings: list[Weakening]) -> list[tuple[WeakeningKind, str]]:
    return [(f.kind, f.test) for f in findings]


def test_the_issues_example_an_assert_replaced_by_true_is_found_and_said_why() -> None:
    old = "def test_add():\n    assert add(2, 3) == 5\n"
    new = "def test_add():\n    assert True\n"
    (finding,) = find_weakenings(old, new)
    assert finding.kind is K.CONSTANT_ASSERT and finding.test == "test_add"
    assert finding.line == 2
    assert finding.describe() == "assert replaced by a constant in test_add"
    change = FileChange("tests/test_calc.py", old, new)
    assert weakening_hunks(change) == {0}
    assert findings_by_hunk(change) == {0: [finding]}


def test_asserts_of_any_constant_are_found() -> None:
    for constant in ("1", '"x"', "not False", "(True)"):
        new = OLD.replace("assert add(0, 0) == 0", f"assert {constant}")
        assert kinds(find_weakenings(OLD, new)) == [(K.CONSTANT_ASSERT, "test_add")], constant


def test_a_removed_assert_is_found_at_its_old_line() -> None:
    new = OLD.replace("    assert add(0, 0) == 0\n", "")
    (finding,) = find_weakenings(OLD, new)
    assert (finding.kind, finding.test, finding.old_line) == (K.REMOVED_ASSERT, "test_add", 8)


def test_removing_an_assert_true_is_still_removing_an_assert() -> None:
    old = "def test_b():\n    assert True\n"
    (finding,) = find_weakenings(old, "def test_b():\n    pass\n")
    assert (finding.kind, finding.old_line) == (K.REMOVED_ASSERT, 2)
    both = "def test_a():\n    assert f() == 1\n    assert g() == 2\n"
    one_constant = "def test_a():\n    assert 1\n"
    assert sorted(f.describe() for f in find_weakenings(both, one_constant)) == [
        "assert removed in test_a",
        "assert replaced by a constant in test_a",
    ]


def test_a_removed_unittest_assert_method_is_found() -> None:
    new = OLD.replace("self.assertAlmostEqual(div(1, 3), 0.333, places=3)", "div(1, 3)")
    assert kinds(find_weakenings(OLD, new)) == [(K.REMOVED_ASSERT, "TestDiv::test_third")]


def test_an_added_skip_mark_is_found_on_the_test_its_class_or_the_module() -> None:
    for mark in ("@pytest.mark.skip", "@pytest.mark.skip(reason='later')", "@pytest.mark.xfail"):
        new = OLD.replace("def test_add():", f"{mark}\ndef test_add():")
        (finding,) = find_weakenings(OLD, new)
        assert (finding.kind, finding.test, finding.line) == (K.SKIP_ADDED, "test_add", 6)
    new = OLD.replace("def test_add():", "@pytest.mark.skipif(True, reason='x')\ndef test_add():")
    assert kinds(find_weakenings(OLD, new)) == [(K.SKIP_ADDED, "test_add")]
    on_class = OLD.replace("class TestDiv:", "@pytest.mark.skip\nclass TestDiv:")
    assert sorted(kinds(find_weakenings(OLD, on_class))) == [
        (K.SKIP_ADDED, "TestDiv::test_half"),
        (K.SKIP_ADDED, "TestDiv::test_third"),
    ]
    module = OLD.replace("import pytest\n", "import pytest\npytestmark = pytest.mark.skip\n")
    assert kinds(find_weakenings(OLD, module)) == [(K.SKIP_ADDED, "")]


def test_an_added_skip_or_xfail_call_is_found() -> None:
    for call in ("pytest.skip('flaky')", "pytest.xfail('later')"):
        new = OLD.replace("    assert add(0, 0) == 0\n", f"    assert add(0, 0) == 0\n    {call}\n")
        assert kinds(find_weakenings(OLD, new)) == [(K.SKIP_ADDED, "test_add")], call
    unittest_skip = OLD.replace(
        "assert div(1, 2) == 0.5", "self.skipTest('x')\n        assert div(1, 2) == 0.5"
    )
    assert kinds(find_weakenings(OLD, unittest_skip)) == [(K.SKIP_ADDED, "TestDiv::test_half")]


def test_pytest_raises_broadened_to_exception_is_found() -> None:
    for broad in ("Exception", "BaseException", "(ValueError, Exception)"):
        new = OLD.replace("pytest.raises(ZeroDivisionError)", f"pytest.raises({broad})")
        (finding,) = find_weakenings(OLD, new)
        assert (finding.kind, finding.test, finding.line) == (
            K.RAISES_BROADENED,
            "test_div_by_zero",
            17,
        )
    narrower = OLD.replace("pytest.raises(ZeroDivisionError)", "pytest.raises(ArithmeticError)")
    assert find_weakenings(OLD, narrower) == []


def test_a_deleted_test_function_or_method_is_found() -> None:
    new = OLD.replace(
        "def test_div_by_zero():\n    with pytest.raises(ZeroDivisionError):\n        div(1, 0)\n",
        "",
    )
    (finding,) = find_weakenings(OLD, new)
    assert (finding.kind, finding.test, finding.old_line) == (
        K.TEST_DELETED,
        "test_div_by_zero",
        16,
    )
    assert finding.describe() == "test deleted: test_div_by_zero"
    method = OLD.replace("    def test_half(self):\n        assert div(1, 2) == 0.5\n\n", "")
    assert kinds(find_weakenings(OLD, method)) == [(K.TEST_DELETED, "TestDiv::test_half")]
    assert {f.test for f in find_weakenings(OLD, None)} == {
        "test_add",
        "test_add_cases",
        "test_div_by_zero",
        "TestDiv::test_half",
        "TestDiv::test_third",
    }


def test_a_removed_parametrize_case_is_found() -> None:
    new = OLD.replace("(1, 2, 3), (2, 2, 4), (-1, 1, 0)", "(1, 2, 3), (2, 2, 4)")
    (finding,) = find_weakenings(OLD, new)
    assert (finding.kind, finding.test, finding.old_line) == (
        K.PARAMETRIZE_CASE_REMOVED,
        "test_add_cases",
        11,
    )
    assert finding.detail == "a, b, total: (-1, 1, 0)"
    added = OLD.replace("(-1, 1, 0)", "(-1, 1, 0), (5, 5, 10)")
    assert find_weakenings(OLD, added) == []


def test_a_file_that_does_not_parse_is_a_finding_not_a_crash() -> None:
    (finding,) = find_weakenings(OLD, OLD.replace("def test_add():", "def test_add(:"))
    assert finding.kind is K.UNPARSABLE and finding.line == 6
    assert finding.describe().startswith("the test file does not parse")
    assert find_weakenings("def broken(:\n", "def test_a():\n    assert 1 == 1\n") == []
    change = FileChange("tests/test_calc.py", OLD, OLD.replace("import pytest", "import pytest("))
    assert weakening_hunks(change) == {0}


def test_renames_added_asserts_and_reformatting_are_not_weakening() -> None:
    renamed = OLD.replace("def test_half(", "def test_one_half(")
    assert find_weakenings(OLD, renamed) == []
    more = OLD.replace(
        "    assert add(0, 0) == 0\n", "    assert add(0, 0) == 0\n    assert add(1, 1) == 2\n"
    )
    assert find_weakenings(OLD, more) == []
    reformatted = OLD.replace("assert add(2, 3) == 5", "assert (\n        add(2,3)  ==  5\n    )")
    reformatted = reformatted.replace(
        "[(1, 2, 3), (2, 2, 4), (-1, 1, 0)]",
        "[\n    (1, 2, 3),\n    (2, 2, 4),\n    (-1, 1, 0),\n]",
    )
    assert find_weakenings(OLD, reformatted) == []
    changed_value = OLD.replace("assert add(2, 3) == 5", "assert add(3, 2) == 5")
    assert find_weakenings(OLD, changed_value) == []
    new_test = OLD + "\n\ndef test_new():\n    assert True\n"
    assert find_weakenings(OLD, new_test) == []
    assert find_weakenings(None, OLD) == []


def test_a_rename_that_also_drops_an_assert_is_still_found() -> None:
    new = OLD.replace("def test_add():", "def test_addition():").replace(
        "    assert add(0, 0) == 0\n", ""
    )
    assert kinds(find_weakenings(OLD, new)) == [(K.REMOVED_ASSERT, "test_addition (was test_add)")]


def test_findings_map_to_the_hunk_that_holds_them() -> None:
    new = OLD.replace("assert add(0, 0) == 0", "assert True").replace(
        "pytest.raises(ZeroDivisionError)", "pytest.raises(Exception)"
    )
    change = FileChange("tests/test_calc.py", OLD, new)
    assert len(change.hunks) == 2
    by_hunk = findings_by_hunk(change)
    assert [f.kind for f in by_hunk[0]] == [K.CONSTANT_ASSERT]
    assert [f.kind for f in by_hunk[1]] == [K.RAISES_BROADENED]
    assert weakening_hunks(change) == {0, 1}
    assert weakening_hunks(FileChange("calc.py", OLD, new)) == set()
