"""What one attempt may not edit beyond the protected paths: the spec's data files, and, in a
plan task that names its files, anything outside them.

Each refusal goes back to the model as an editor-tool error naming what it may do instead.
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Sequence

from orch_tui.core.domain.test_files import is_test_file
from orch_tui.core.util.records import record

DATA_INPUT = (
    "Error: {path} is a data file given with the spec: read it with view; it cannot be "
    "changed. Write what you derive from it to other files."
)
OUTSIDE_TASK = (
    "Error: {path} is outside task {task}'s files: {files} (and their tests). "
    "Change only those in this task."
)


@record(frozen=True)
class EditRules:
    """The attempt's rules; the defaults refuse nothing."""

    data_inputs: frozenset[str] = frozenset()
    """Workspace paths of the spec's data files (``data/<name>``)."""
    task: str = ""
    """The plan task being built, when it names its files."""
    task_files: tuple[str, ...] = ()
    """The files (or glob patterns) the task may change; empty: any file."""

    def refusal(self, rel: str) -> str | None:
        """The error for an edit of the workspace-relative ``rel``, or None when it is allowed."""
        if rel in self.data_inputs:
            return DATA_INPUT.format(path=rel)
        if self.task_files and not in_task_files(rel, self.task_files):
            return OUTSIDE_TASK.format(path=rel, task=self.task, files=", ".join(self.task_files))
        return None


def in_task_files(rel: str, files: Sequence[str]) -> bool:
    """Whether ``rel`` is one of ``files`` (a path, a folder ending in ``/``, or a glob), or a
    test of one of them (``test_<name>*.py`` or ``<name>_test.py`` for a listed ``<name>.py``)."""
    for entry in files:
        if rel == entry or fnmatch.fnmatchcase(rel, entry):
            return True
        if entry.endswith("/") and rel.startswith(entry):
            return True
    return is_test_file(rel) and _tests_one_of(rel, files)


def _tests_one_of(rel: str, files: Sequence[str]) -> bool:
    name = posixpath.basename(rel)
    tested = name.removeprefix("test_").removesuffix(".py").removesuffix("_test")
    stems = {posixpath.splitext(posixpath.basename(entry))[0] for entry in files}
    return any(stem and (tested == stem or tested.startswith(f"{stem}_")) for stem in stems)
