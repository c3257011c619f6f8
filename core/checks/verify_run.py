"""``orch-tui verify [--mutation]``: the checks again on the finished workspace, in a fresh copy.

:func:`fresh_copy` copies the workspace without ``.git``, ``.venv`` and tool caches
(``copy_tree``) into a temporary folder named like a trial copy (``leftovers`` clears one a
killed process left). :func:`verify_checks` runs the configured checks there exactly as the
run did: sandboxed, with the project's interpreter.

The ``.venv`` is reused, read-only, not recreated: it lies outside the copy, the sandbox binds
everything outside the copy read-only, and it is the environment the run's own checks used
(``prepare_env`` first brings it up to date with what the project declares, as before every
check). Recreating it would need the network and minutes for the same packages; the price is
that a package installed into it by hand but never declared would go unnoticed.

With ``--mutation``, ``core.checks.mutation`` then runs mutmut in the same copy on the Python
lines the run changed outside its tests (:meth:`RunChanges.mutable_lines`; the changes are
:func:`run_changes`: each file the run's attempts applied, from the text before the run to the
text now).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from orch_tui.core.checks.coverage_map import changed_lines
from orch_tui.core.checks.leftovers import trial_prefix
from orch_tui.core.checks.runner import TestReport
from orch_tui.core.checks.trial import run_configured
from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.proposal import FileChange
from orch_tui.core.domain.state import StateError, StateStore
from orch_tui.core.domain.state_records import WorkspaceRecord
from orch_tui.core.domain.test_files import is_test_file
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.util.records import record
from orch_tui.core.workspace.apply import copy_tree
from orch_tui.core.workspace.run_workspace import original_text


class NoRun(Exception):
    """There is no run to verify here; the message says so and what to do."""


@record(frozen=True)
class RunChanges:
    run_id: str
    workspace: Path
    changes: tuple[FileChange, ...]
    """Every file the run applied, from its text before the run to its text now."""

    def mutable_lines(self) -> dict[str, list[int]]:
        """The changed lines of the Python files that are not tests, by path."""
        return {
            change.path: changed_lines(change)
            for change in self.changes
            if change.path.endswith(".py") and not is_test_file(change.path) and change.new_text
        }


def run_changes(paths: ProjectPaths) -> RunChanges:
    """What the project's last run changed; :class:`NoRun` when there is none to verify."""
    try:
        state = StateStore(paths.state).load()
    except StateError as exc:
        raise NoRun(str(exc)) from None
    if state is None:
        raise NoRun(
            f"no run in {paths.root} (no {paths.state.name}): nothing to verify; "
            "start one with `orch-tui SPEC`"
        )
    log_dir = paths.logs / state.run_id
    if not log_dir.is_dir():
        raise NoRun(f"the run {state.run_id} has no log folder {log_dir}: nothing to verify")
    record = state.workspace or WorkspaceRecord(path=str(paths.workspace))
    workspace = Path(record.path)
    if not workspace.is_dir():
        raise NoRun(f"the run's workspace {workspace} does not exist")
    touched: set[str] = set()
    for folder in sorted(log_dir.glob("attempt-*")):
        applied = folder / runlog.APPLIED
        if applied.is_file():
            touched.update(json.loads(applied.read_text(encoding="utf-8")).get("files") or {})
    changes = []
    for path in sorted(touched):
        before = original_text(record, log_dir, path)
        now = workspace / path
        after = now.read_text(encoding="utf-8", errors="replace") if now.is_file() else None
        if before != after and (before is not None or after is not None):
            changes.append(FileChange(path, before, after))
    return RunChanges(state.run_id, workspace, tuple(changes))


# -- the checks in a fresh copy ---------------------------------------------------------------


@contextmanager
def fresh_copy(workspace: Path) -> Iterator[tuple[Path, Path]]:
    """A copy of ``workspace`` (no .git, .venv or caches) and a reports folder beside it;
    both are removed afterwards."""
    with tempfile.TemporaryDirectory(prefix=trial_prefix(workspace)) as tmp:
        copy = Path(tmp) / "workspace"
        copy_tree(workspace, copy)
        reports = Path(tmp) / "reports"
        reports.mkdir()
        yield copy, reports


def verify_checks(
    config: Config,
    workspace: Path,
    copy: Path,
    reports: Path,
    on_output: Callable[[str, str], None] | None = None,
    on_notice: Callable[[str], None] | None = None,
) -> TestReport:
    """The configured checks on ``copy`` with the workspace's environment (see the module)."""
    return run_configured(
        config, copy, reports, on_output=on_output, on_notice=on_notice, project=workspace
    )
