"""Where a workspace may be: never the project folder, nor a folder that holds it.

A workspace that is or contains the project folder (``--workspace .``, ``paths.workspace = "/"``
or ``"../.."``) would let the model read ``.env`` and rewrite ``orchestrator.toml`` (turning the
sandbox off for the next run), ``state.json``, the logs and the prompt templates. Such a
workspace is refused before a run starts (:func:`check_placement`, a :class:`WorkspaceError`:
exit 1). :func:`project_file_globs` names the project's own files for the staging overlay's
protected paths, like ``.git``, wherever they would be reachable from the workspace.
"""

from __future__ import annotations

import os
from pathlib import Path

from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.workspace.lock import LOCK_NAME

PROJECT_FILES = ("orchestrator.toml", ".env", "state.json", LOCK_NAME)
"""The project's own files: no workspace file of these names is the model's to write."""
PROJECT_FOLDERS = ("logs", "prompts")
"""The project's own folders: protected where the project's are reachable from the workspace."""


class WorkspacePlacementError(Exception):
    """The workspace is or contains the project folder; the message says what to do."""


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def check_placement(paths: ProjectPaths) -> None:
    """Refuse a workspace that is the project folder or holds it (symlinks resolved)."""
    workspace, project = _real(paths.workspace), _real(paths.root)
    if workspace == project:
        raise WorkspacePlacementError(
            f"the workspace {paths.workspace} is the project folder itself, which holds "
            "orchestrator.toml, .env, state.json and logs/: point --workspace (or "
            "paths.workspace) at the project's code in a folder of its own"
        )
    if workspace in project.parents:
        raise WorkspacePlacementError(
            f"the workspace {paths.workspace} contains the project folder {paths.root}, whose "
            "orchestrator.toml, .env, state.json and logs/ the model could then read and "
            "rewrite: choose a folder beside the project folder, or inside it"
        )


def project_file_globs(paths: ProjectPaths) -> list[str]:
    """Protected-path globs (relative to the workspace) for the project's own files: their
    names at any depth, and the project's ``logs/`` and ``prompts/`` wherever the workspace
    reaches them."""
    globs = [f"**/{name}" for name in PROJECT_FILES]
    workspace = _real(paths.workspace)
    for name in PROJECT_FOLDERS:
        folder = _real(paths.root / name)
        if folder == workspace or workspace in folder.parents:
            globs.append(folder.relative_to(workspace).as_posix() if folder != workspace else "*")
    return globs
