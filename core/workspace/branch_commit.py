"""Files committed onto a branch that is not checked out, without touching any work tree.

The commit is built in a scratch index (``GIT_INDEX_FILE``): the branch's tree read in, each
file's text written as a blob and set (a file keeps its mode; None removes it), the tree
written, a commit made on the branch's tip, and the branch moved only if it still points at
that tip. The person's checkout, index and files are never read or written; a branch that is
checked out is refused, since moving it would leave that checkout behind its own HEAD.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

from orch_tui.core.workspace.git import FALLBACK_IDENTITY, GitError, Repo, git_command, git_env


def commit_onto_branch(
    repo: Path, branch: str, files: Mapping[str, str | None], message: str
) -> str:
    """Commit ``files`` (path → text, None removes) on ``branch``; returns the new commit."""
    tip = Repo(repo).branch_head(branch)
    if tip is None:
        raise GitError(f"{repo} has no branch {branch}")
    checked_out = _git(repo, {}, "worktree", "list", "--porcelain").splitlines()
    if f"branch refs/heads/{branch}" in checked_out:
        raise GitError(
            f"{branch} is checked out: land in that work tree instead, or name a branch "
            "nobody has checked out"
        )
    with tempfile.TemporaryDirectory(prefix="orch-index-") as scratch:
        index = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        _git(repo, index, "read-tree", tip)
        for path, text in sorted(files.items()):
            if text is None:
                _git(repo, index, "update-index", "--force-remove", "--", path)
                continue
            blob = _git(repo, index, "hash-object", "-w", "--stdin", text=text)
            staged = _git(repo, index, "ls-files", "--stage", "--", path).split()
            mode = staged[0] if staged else "100644"
            _git(repo, index, "update-index", "--add", "--cacheinfo", f"{mode},{blob},{path}")
        tree = _git(repo, index, "write-tree")
    has_email = subprocess.run(
        git_command("config", "user.email"), cwd=repo, env=git_env(), capture_output=True
    ).stdout.strip()
    identity = () if has_email else FALLBACK_IDENTITY
    commit = _git(repo, {}, *identity, "commit-tree", tree, "-p", tip, "-m", message)
    _git(repo, {}, "update-ref", f"refs/heads/{branch}", commit, tip)
    return commit


def _git(repo: Path, extra: Mapping[str, str], *args: str, text: str | None = None) -> str:
    try:
        done = subprocess.run(
            git_command(*args),
            cwd=repo,
            env={**git_env(), **extra},
            input=(text or "").encode("utf-8"),
            capture_output=True,
            check=False,
        )
    except FileNotFoundError:
        raise GitError("the git command is not installed") from None
    if done.returncode != 0:
        detail = done.stderr.decode(errors="replace").strip().splitlines()
        raise GitError(f"git {args[0]} failed: {detail[-1] if detail else done.returncode}")
    return done.stdout.decode("utf-8", errors="replace").strip()
