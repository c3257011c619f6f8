"""``orch-tui reset``: undo what the current run did to its workspace, keeping ``logs/``.

The default ``workspace/`` is cleared; an existing folder gets its originals back (outside git)
or its starting branch checked out and then the originals of the untracked and ignored files
the run changed (in git), and loses the ``.venv`` orch-tui created there.
When the start cannot be checked out (a repository that had no commits, a checkout git refuses)
nothing is changed and :class:`ResetError` says why: the caller keeps ``state.json``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from orch_tui.core.checks.venv import discard_created_venv
from orch_tui.core.checks.venv_path import PROJECT_VENV
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.state_records import GitRecord, WorkspaceRecord
from orch_tui.core.runlog.layout import MANIFEST, ORIGINALS
from orch_tui.core.util.wording import plural
from orch_tui.core.workspace.git import GitError, Repo
from orch_tui.core.workspace.run_workspace import read_manifest


class ResetError(Exception):
    """The workspace could not be put back; nothing was changed (exit 1, state.json kept)."""


def reset_workspace(
    paths: ProjectPaths, record: WorkspaceRecord | None, log_dir: Path | None
) -> str:
    """Undo what the run did to its workspace; returns a sentence saying what was done."""
    if record is None or record.default:
        return _clear_default(paths.root / "workspace")
    root = Path(record.path)
    said = _undo_in_existing_folder(root, record.git, log_dir)
    if discard_created_venv(root):
        said += f"; removed the {PROJECT_VENV} orch-tui created there"
    return said


def _undo_in_existing_folder(root: Path, git: GitRecord | None, log_dir: Path | None) -> str:
    if git is not None:
        start = git.start_branch or git.start_commit
        if not start:
            raise ResetError(
                f"the run started in {root} before its first commit: there is no commit to "
                f"return to; the run's work is on branch {git.branch}. Check out what you "
                "want by hand; state.json is kept"
            )
        try:
            Repo(root).checkout(start)
        except GitError as exc:
            raise ResetError(
                f"cannot check out {start} in {root} ({exc}); nothing was changed and "
                f"state.json is kept: fix that (commit or stash), then reset again"
            ) from None
        said = f"checked out {start} in {root}; the run's branch {git.branch} is kept"
        if log_dir is not None and read_manifest(log_dir / ORIGINALS / MANIFEST):
            # Untracked and ignored files the run changed: git holds no copy of them.
            said += "; " + _restore_originals(root, log_dir / ORIGINALS)
        return said
    if log_dir is None:
        return f"left {root} as it is (no log of the run)"
    return _restore_originals(root, log_dir / ORIGINALS)


def _clear_default(workspace: Path) -> str:
    cleared = 0
    if workspace.is_dir():
        for child in workspace.iterdir():
            if child.name == ".gitkeep":
                continue
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
            cleared += 1
    return f"cleared {cleared} entries from workspace/"


def _restore_originals(root: Path, folder: Path) -> str:
    manifest = read_manifest(folder / MANIFEST)
    restored = removed = 0
    for rel, entry in sorted(manifest.items()):
        target = root / rel
        if entry["existed"]:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(folder / "files" / rel, target)
            restored += 1
        elif target.is_file() or target.is_symlink():
            target.unlink()
            removed += 1
    new_dirs = {folder for entry in manifest.values() for folder in entry["new_dirs"]}
    for new_dir in sorted(new_dirs, key=len, reverse=True):
        path = root / new_dir
        if path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    return (
        f"restored {plural(restored, 'changed file')} and removed "
        f"{plural(removed, 'created file')} in {root}"
    )
