"""A change run (DESIGN section 16): a spec edited after a run changes that run's project.

The new run keeps the workspace as it stands (hand edits included), records ``follows``
(the run before), and its first prompt carries the spec's edit (:func:`spec_edit`) and the
project map instead of "build the project". ``--fresh`` still starts from an empty workspace.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from orch_tui.core.attempt.project_map import AGENTS_FILE
from orch_tui.core.checks.venv_path import PROJECT_VENV
from orch_tui.core.domain.spec import spec_diff
from orch_tui.core.domain.state import State
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.workspace import run_workspace

if TYPE_CHECKING:  # the plan runner, which Run holds, reads the spec's edit from here
    from orch_tui.core.loop.run import Run


def changes_project(run: Run, saved: State) -> bool:
    """The saved run's spec was edited and its workspace holds a project: change it.

    Edited means the same spec file (by name: the command may be run from another folder)
    with other text; another spec file is another project, started from an empty workspace.
    """
    return (
        not run.options.fresh
        and Path(saved.spec_path).name == run.spec.path.name
        and saved.spec_hash != run.spec.digest
        and run_workspace.same_workspace(saved.workspace, run.paths)
        and run.paths.workspace.is_dir()
        and not workspace_is_empty(run.paths.workspace)
    )


KEPT_IN_WORKSPACE = frozenset({".gitkeep", AGENTS_FILE})
"""Files ``--fresh`` leaves in the workspace: they are the person's, not the old run's."""


def workspace_is_empty(workspace: Path) -> bool:
    """No project file yet: the placeholder, AGENTS.md and the checks' .venv are not the project."""
    ignored = KEPT_IN_WORKSPACE | {PROJECT_VENV}
    return not any(child.name not in ignored for child in workspace.iterdir())


def previous_spec(logs: Path, previous_run: str) -> str | None:
    """The spec ``previous_run`` was built from (its copy in logs/); None when gone or unreadable."""
    try:
        return (logs / previous_run / runlog.SPEC_COPY).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def spec_edit(logs: Path, previous_run: str, spec_text: str, name: str) -> str | None:
    """The diff from the spec ``previous_run`` was built from to ``spec_text``; None when
    that copy is gone or unreadable."""
    old = previous_spec(logs, previous_run)
    return None if old is None else spec_diff(old, spec_text, name)


def record_spec_edit(run: Run) -> None:
    """Keep the change run's spec edit in its log (``spec.diff``), for the history."""
    follows = run.state.follows
    if follows is None or (run.log.dir / runlog.SPEC_DIFF).exists():
        return
    diff = spec_edit(run.paths.logs, follows, run.spec.text, run.spec.path.name)
    if diff is not None:
        run.log.write_text(None, runlog.SPEC_DIFF, diff)
