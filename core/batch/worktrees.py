"""``batch --workspace REPO``: each run in its own git worktree of the person's repository.

The worktree (``batches/<batch_id>/<name>/worktree``) starts detached at the repository's HEAD
when the batch opens; the run then starts its branch ``orch/<run_id>`` there, as a run in an
existing repository does. The person's checkout (HEAD, branch, index, files) is never switched
or written: ``git worktree add`` only records the new tree in the repository's metadata, and
every commit of a run is made inside its own worktree.
"""

from __future__ import annotations

from pathlib import Path

from orch_tui.core.batch.specs import BatchError
from orch_tui.core.workspace.git import GitError, Repo, is_work_tree

WORKTREE = "worktree"
"""The run's worktree, in its project folder; the run is started with ``--workspace worktree``."""


def repo_start(repo: Path) -> str:
    """The commit the batch's worktrees start from (the repository's HEAD); BatchError when
    ``repo`` is not a git repository with a commit."""
    if not repo.is_dir():
        raise BatchError(f"--workspace {repo}: no such folder")
    if not is_work_tree(repo):
        raise BatchError(
            f"--workspace {repo}: not a git repository (a batch gives each run its own git "
            "worktree; `git init` and commit first)"
        )
    head = Repo(repo).head()
    if head is None:
        raise BatchError(f"--workspace {repo}: the repository has no commit yet to start from")
    return head


def ensure_worktree(repo: Path, run_folder: Path, start: str) -> Path:
    """The run's worktree, added at ``start`` the first time (a resumed batch finds it)."""
    tree = run_folder / WORKTREE
    if (tree / ".git").exists():
        return tree
    try:
        Repo(repo).add_worktree(tree, start)
    except GitError as exc:
        raise BatchError(f"cannot make the run's worktree {tree}: {exc}") from None
    return tree
