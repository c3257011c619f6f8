"""What a run owes the folder it works in (DESIGN section 12).

The default ``workspace/`` belongs to orch-tui. An existing folder belongs to the person: the
run records where it started (``state.json``'s ``workspace``), and everything it does there can
be undone without touching anything it did not create.

- In a git work tree the run refuses a dirty tree (unless allowed), works on ``orch/<run_id>``
  and commits every applied attempt (:mod:`core.git`); reset checks the starting branch out.
  Git holds no copy of an untracked or ignored file: those the run changes are kept as
  originals as in a plain folder, and reset puts them back after the checkout (which would
  otherwise delete an untracked file the run had committed on its branch).
- In a plain existing folder the first time the run changes a file its original bytes are kept
  in ``logs/<run_id>/originals/`` (a file it creates is recorded as new); reset puts them back
  and removes what the run created.

Either way reset also removes the ``.venv`` orch-tui created there (:mod:`core.project_env`).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.state_records import GitRecord, WorkspaceRecord
from orch_tui.core.runlog.layout import MANIFEST, ORIGINALS
from orch_tui.core.util.atomic import Commit, json_bytes
from orch_tui.core.workspace.placement import WorkspacePlacementError, check_placement
from orch_tui.core.workspace.test_guard import existing_tests

if TYPE_CHECKING:  # git is imported where a workspace in a work tree needs it
    from orch_tui.core.workspace.git import Repo


class WorkspaceError(Exception):
    """The workspace cannot be used as it is; the message says what to do (exit 1)."""


def refuse_misplaced(paths: ProjectPaths) -> None:
    """WorkspaceError (exit 1) for a workspace that is or contains the project folder."""
    try:
        check_placement(paths)
    except WorkspacePlacementError as exc:
        raise WorkspaceError(str(exc)) from None


def new_record(
    paths: ProjectPaths,
    run_id: str,
    *,
    allow_dirty: bool,
    protect_tests: bool = False,
    follows: GitRecord | None = None,
) -> WorkspaceRecord:
    """Prepare the workspace for a fresh run and describe it for ``state.json``.

    In a git work tree this checks the tree is clean and creates the run's branch: from the
    branch of the run it ``follows`` (a change run) unless the checkout already holds that
    branch's work (merged, or that branch checked out), else from HEAD. With
    ``protect_tests``, an existing project's test files are recorded as protected.
    """
    workspace = paths.workspace
    if not paths.is_default_workspace and not workspace.is_dir():
        raise WorkspaceError(f"the workspace {workspace} is not a folder")
    refuse_misplaced(paths)
    record = WorkspaceRecord(path=str(workspace), default=paths.is_default_workspace)
    workspace.mkdir(parents=True, exist_ok=True)
    if protect_tests and not paths.is_default_workspace:
        record.protected_tests = existing_tests(workspace)
    if paths.is_default_workspace:
        return record
    # git only for a workspace that may be a work tree: not every run's start.
    from orch_tui.core.workspace.git import GitError, Repo, is_work_tree, run_branch_name

    if not is_work_tree(workspace):
        return record
    repo = Repo(workspace)
    changed = repo.tracked_changes()
    if changed and not allow_dirty:
        shown = ", ".join(changed[:5]) + (" ..." if len(changed) > 5 else "")
        raise WorkspaceError(
            f"{workspace} has uncommitted changes to tracked files ({shown}): commit or stash "
            "them first (`git stash`), or pass --allow-dirty to carry them into the run's branch"
        )
    if follows is not None:
        _onto_followed_branch(repo, follows.branch)
    branch = run_branch_name(run_id)
    record.git = GitRecord(
        branch=branch, start_branch=repo.current_branch(), start_commit=repo.head()
    )
    try:
        repo.start_branch(branch)
    except GitError as exc:
        raise WorkspaceError(f"cannot start the run's branch: {exc}") from None
    return record


def _onto_followed_branch(repo: Repo, branch: str) -> None:
    """Check out the followed run's branch when its head is not in the checkout yet: a change
    run builds on that run's work, never on a base that lacks it."""
    from orch_tui.core.workspace.git import GitError

    head = repo.branch_head(branch)
    if head is None or repo.contains(head):
        return
    try:
        repo.checkout(branch)
    except GitError as exc:
        raise WorkspaceError(
            f"cannot check out {branch}, the run this one follows: {exc}"
        ) from None


def same_workspace(record: WorkspaceRecord | None, paths: ProjectPaths) -> bool:
    """True when a saved run worked in the folder these paths name (a run before: ``workspace/``)."""
    if record is None:
        return paths.is_default_workspace
    return Path(record.path).resolve() == paths.workspace.resolve()


def resume_record(record: WorkspaceRecord | None, paths: ProjectPaths) -> None:
    """Make the workspace ready again; back on the run's branch if another one is checked out.

    Uncommitted changes to tracked files on that other branch are the person's work there:
    ``git checkout`` would carry them onto the run's branch, where the run would test them and
    commit them with its next attempt. That is refused (WorkspaceError), nothing moved."""
    refuse_misplaced(paths)
    if paths.is_default_workspace:
        paths.workspace.mkdir(parents=True, exist_ok=True)
    if record is None or record.git is None:
        return
    from orch_tui.core.workspace.git import GitError, Repo

    branch = record.git.branch
    repo = Repo(Path(record.path))
    current = repo.current_branch()
    if current != branch:
        changed = repo.tracked_changes()
        if changed:
            shown = ", ".join(changed[:5]) + (" ..." if len(changed) > 5 else "")
            raise WorkspaceError(
                f"{record.path} has uncommitted changes on {current or 'a detached HEAD'} "
                f"({shown}); the run works on {branch}, and checking it out would carry them "
                "there: commit or stash them (`git stash`), then run the same command again"
            )
        try:
            repo.checkout(branch)
        except GitError as exc:
            raise WorkspaceError(f"cannot return to the run's branch {branch}: {exc}") from None


def protected_tests(record: WorkspaceRecord | None) -> list[str]:
    """The test files the person had when the run started, when they are protected."""
    return list(record.protected_tests or []) if record else []


def keep_originals(
    record: WorkspaceRecord | None, log_dir: Path, files: list[str], commit: Commit | None = None
) -> None:
    """Keep the original of every file before the run first changes it: outside git every
    file, in git those git does not track (untracked or ignored: no commit holds them).

    A file already recorded keeps its first original, so re-applying after a crash and later
    attempts never overwrite it. Reset uses them in an existing folder, restore everywhere.
    The copies are durable before the manifest that names them; with ``commit`` both wait for
    it (the engine's move to TESTING), else the manifest is written at once.
    """
    if record is None:
        return
    root = Path(record.path)
    folder = log_dir / ORIGINALS
    manifest_path = folder / MANIFEST
    manifest = read_manifest(manifest_path)
    new = [rel for rel in files if rel not in manifest]
    if record.git is not None and new:
        from orch_tui.core.workspace.git import Repo

        new = Repo(root).untracked(new)
    if not new:
        return
    copies = commit or Commit()
    for rel in new:
        source = root / rel
        entry: dict[str, Any] = {"existed": source.is_file(), "new_dirs": _missing_dirs(root, rel)}
        if entry["existed"]:
            target = folder / "files" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
            copies.add(target)
            for parent in [target.parent, *target.parent.parents]:
                copies.add(parent)  # a folder made on the way: its entry in its parent
                if parent == folder:
                    break
        manifest[rel] = entry
    folder.mkdir(parents=True, exist_ok=True)
    copies.add(folder)
    if commit is None:
        copies.commit(manifest_path, json_bytes(manifest))
    else:
        commit.replace(manifest_path, json_bytes(manifest))


def commit_applied(
    record: WorkspaceRecord | None, run_id: str, attempt: int, files: list[str], summary: str
) -> str | None:
    """In git, commit the applied attempt (once, even when called again after a crash)."""
    if record is None or record.git is None:
        return None
    from orch_tui.core.workspace.git import Repo

    commit, _made = Repo(Path(record.path)).commit_attempt(run_id, attempt, files, summary)
    record.commits[str(attempt)] = commit
    return commit


def summary_line(turns: list[dict[str, Any]], attempt: int, width: int = 72) -> str:
    """The first line of the model's text in an attempt, for its commit message."""
    for turn in turns:
        for block in turn.get("content") or []:
            if block.get("type") != "text":
                continue
            for line in str(block.get("text", "")).splitlines():
                line = line.strip().lstrip("#").strip()
                if line:
                    return line if len(line) <= width else line[: width - 1] + "…"
    return f"attempt {attempt}"


def merge_hint(record: WorkspaceRecord | None) -> str | None:
    """How to look at and merge a successful run's branch; ``None`` outside git."""
    git = record.git if record else None
    if git is None:
        return None
    start, branch = git.start_branch or git.start_commit, git.branch
    return (
        f"the run's work is on branch {branch}: look at it with "
        f"`git log -p {start}..{branch}`, merge it with "
        f"`git checkout {start} && git merge {branch}`"
    )


def original_text(record: WorkspaceRecord, log_dir: Path, path: str) -> str | None:
    """``path`` as it was before the run: from the originals the run kept, else (in git) from
    the start commit; None when it did not exist (or git had no commit yet)."""
    entry = read_manifest(log_dir / ORIGINALS / MANIFEST).get(path)
    if record.git is not None and entry is None:
        from orch_tui.core.workspace.git import Repo

        start = record.git.start_commit
        return Repo(Path(record.path)).file_at(start, path) if start else None
    if not entry or not entry.get("existed"):
        return None
    return (log_dir / ORIGINALS / "files" / path).read_bytes().decode("utf-8", errors="replace")


def _missing_dirs(root: Path, rel: str) -> list[str]:
    """The parent folders of ``rel`` that do not exist yet (the run will create them)."""
    missing = []
    parent = Path(rel).parent
    while parent != Path("."):
        if not (root / parent).is_dir():
            missing.append(parent.as_posix())
        parent = parent.parent
    return missing


def read_manifest(path: Path) -> dict[str, Any]:
    """The originals' manifest: each changed path, whether it existed, the folders it needed."""
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}
