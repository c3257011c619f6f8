"""Tests the person already had: protected from the model, and weakening edits marked.

In an existing project the test files present when a run starts are added to the protected paths
(``safety.protect_existing_tests``), so an edit to one goes back to the model as an editor-tool
error. Whatever the setting, :func:`weakening_hunks` tells the review screen which hunks of a
test file delete an ``assert`` or a test function, so the person sees them before accepting.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from orch_tui.core.domain.proposal import FileChange
from orch_tui.core.workspace.boundary import SKIPPED_DIRS

NOT_SEARCHED = frozenset({".venv", "venv", "node_modules", ".tox", ".nox", "build", "dist"})
"""Folders of installed or built code, never the person's own tests."""

_ASSERT = re.compile(r"^\s*(assert\b|self\.assert\w*\(|pytest\.raises\()")
_TEST_FUNCTION = re.compile(r"^\s*(async\s+)?def\s+test\w*\s*\(")


def is_test_file(rel: str) -> bool:
    """pytest's default test file names (``test_*.py``, ``*_test.py``) and ``conftest.py``."""
    name = posixpath.basename(rel)
    return name.endswith(".py") and (
        name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
    )


def existing_tests(root: Path) -> list[str]:
    """The test files under ``root`` (relative posix paths, sorted)."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS and d not in NOT_SEARCHED]
        for name in files:
            rel = Path(folder, name).relative_to(root).as_posix()
            if is_test_file(rel):
                found.append(rel)
    return sorted(found)


def weakening_hunks(change: FileChange) -> set[int]:
    """Indexes of the hunks of a test file that remove more asserts or test functions than they add."""
    if not is_test_file(change.path):
        return set()
    old, new = change.old_lines, change.new_lines
    weakening = set()
    for hunk in change.hunks:
        removed = old[hunk.old_start : hunk.old_end]
        added = new[hunk.new_start : hunk.new_end]
        for pattern in (_ASSERT, _TEST_FUNCTION):
            if _count(pattern, removed) > _count(pattern, added):
                weakening.add(hunk.index)
    return weakening


def _count(pattern: re.Pattern[str], lines: list[str]) -> int:
    return sum(1 for line in lines if pattern.match(line))
