"""Tests the person already had: protected from the model, and weakening edits marked.

In an existing project the test files present when a run starts are added to the protected paths
(``safety.protect_existing_tests``), so an edit to one goes back to the model as an editor-tool
error. Whatever the setting, :func:`weakening_hunks` tells the review screen which hunks of a
test file weaken it (a syntax-tree comparison, ``core.domain.test_weakening``), so the person
sees them before accepting.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from orch_tui.core.domain.test_files import is_test_file
from orch_tui.core.workspace.boundary import SKIPPED_DIRS

if TYPE_CHECKING:
    from orch_tui.core.domain.proposal import FileChange

NOT_SEARCHED = frozenset({".venv", "venv", "node_modules", ".tox", ".nox", "build", "dist"})
"""Folders of installed or built code, never the person's own tests."""


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
    """Indexes of the hunks of a test file that weaken it (see :mod:`core.domain.test_weakening`:
    removed or constant asserts, added skips, broadened ``pytest.raises``, deleted tests and
    parametrize cases, a file that no longer parses)."""
    if not is_test_file(change.path):
        return set()
    # The syntax-tree comparison is the review's: a run's start lists the tests without it.
    from orch_tui.core.domain.test_weakening import findings_by_hunk

    return set(findings_by_hunk(change))
