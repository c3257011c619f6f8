"""Which files are tests, which exist before a run, and which hunks weaken them."""

from __future__ import annotations

from pathlib import Path

from orch_tui.core.domain.proposal import FileChange
from orch_tui.core.domain.test_files import is_test_file
from orch_tui.core.workspace.test_guard import existing_tests, weakening_hunks

TESTS = "import pytest\n\n\ndef test_one():\n    assert 1 == 1\n\n\ndef test_two():\n    assert 2 == 2\n"


def test_test_files_are_named_as_pytest_finds_them() -> None:
    assert is_test_file("tests/test_a.py") and is_test_file("pkg/a_test.py")
    assert is_test_file("conftest.py")
    assert not is_test_file("pkg/testing.py") and not is_test_file("tests/test_a.txt")


def test_existing_tests_skip_installed_and_cached_code(tmp_path: Path) -> None:
    for rel in (
        "tests/test_a.py",
        "b_test.py",
        ".venv/lib/test_site.py",
        ".git/test_x.py",
        "app.py",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    assert existing_tests(tmp_path) == ["b_test.py", "tests/test_a.py"]


def test_deleting_an_assert_or_a_test_function_is_weakening() -> None:
    no_assert = TESTS.replace("    assert 2 == 2\n", "    pass\n")
    assert weakening_hunks(FileChange("tests/test_a.py", TESTS, no_assert)) == {0}
    no_function = TESTS.replace("\n\ndef test_two():\n    assert 2 == 2\n", "")
    assert weakening_hunks(FileChange("tests/test_a.py", TESTS, no_function)) == {0}
    assert weakening_hunks(FileChange("tests/test_a.py", TESTS, None)) == {0}


def test_changing_an_assert_or_a_non_test_file_is_not_weakening() -> None:
    changed = TESTS.replace("assert 2 == 2", "assert 2 + 0 == 2")
    assert weakening_hunks(FileChange("tests/test_a.py", TESTS, changed)) == set()
    more = TESTS + "\n\ndef test_three():\n    assert 3\n"
    assert weakening_hunks(FileChange("tests/test_a.py", TESTS, more)) == set()
    assert weakening_hunks(FileChange("app.py", TESTS, "")) == set()
