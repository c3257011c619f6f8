"""``orch-tui batch --workspace REPO``: every run in its own git worktree on ``orch/<run_id>``,
the person's checkout (HEAD, branch, index and every file) byte-identical afterwards."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from orch_tui.core.batch.run_one import read_run_state
from orch_tui.core.workspace.git import git_command, git_env
from tests.support.e2e_support import child_env, orch_tui
from tests.support.inbox_support import CALC, make_batch_project, run_batch

pytestmark = pytest.mark.e2e


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        git_command(*args), cwd=repo, env=git_env(), capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def make_repo(path: Path) -> Path:
    path.mkdir()
    git(path, "init", "--quiet", "--initial-branch=trunk")
    (path / "README.md").write_text("# mine\n")
    (path / "notes.txt").write_text("committed\n")
    git(path, "add", ".")
    git(path, "-c", "user.name=p", "-c", "user.email=p@x", "commit", "--quiet", "-m", "start")
    (path / "notes.txt").write_text("my uncommitted edit\n")  # the person is mid-work
    (path / "scratch.py").write_text("print('untracked')\n")
    return path


def snapshot(repo: Path) -> dict[str, str]:
    """HEAD, the branch, the index and every file of the checkout, as bytes' digests."""
    seen = {
        "HEAD": (repo / ".git" / "HEAD").read_text(),
        "head": git(repo, "rev-parse", "HEAD"),
        "index": hashlib.sha256((repo / ".git" / "index").read_bytes()).hexdigest(),
    }
    for path in sorted(repo.rglob("*")):
        if ".git" not in path.relative_to(repo).parts and path.is_file():
            seen[path.relative_to(repo).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return seen


def test_each_run_works_in_its_own_worktree_and_the_persons_checkout_is_untouched(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "mine")
    before = snapshot(repo)
    project = make_batch_project(tmp_path / "project")

    run_batch(project, "--workspace", str(repo))

    assert snapshot(repo) == before
    (batch,) = (project / "batches").iterdir()
    branches = set(git(repo, "branch", "--format=%(refname:short)").split())
    for name in ("one", "two"):
        state = read_run_state(batch / name)
        assert state is not None and str(state.state) == "SUCCESS"
        tree = batch / name / "worktree"
        assert state.workspace is not None and Path(state.workspace.path) == tree
        assert f"orch/{state.run_id}" in branches
        assert git(tree, "rev-parse", "--abbrev-ref", "HEAD") == f"orch/{state.run_id}"
        assert (tree / "calc.py").read_text() == CALC
        assert (tree / "notes.txt").read_text() == "committed\n"  # from HEAD, not the edit
        shown = git(repo, "show", f"orch/{state.run_id}:calc.py") + "\n"
        assert shown == CALC
    assert len(branches) == 3  # trunk and one branch a run

    listed = subprocess.run(
        [orch_tui(), "inbox", "--json"], cwd=project, env=child_env(),
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert '"state": "SUCCESS"' in listed.stdout


def test_a_folder_that_is_no_repository_is_refused(tmp_path: Path) -> None:
    project = make_batch_project(tmp_path / "project")
    (tmp_path / "plain").mkdir()

    plain = subprocess.run(
        [orch_tui(), "batch", "specs", "--workspace", str(tmp_path / "plain")], cwd=project,
        env=child_env(), capture_output=True, text=True, timeout=60,
    )  # fmt: skip

    assert plain.returncode == 1 and "not a git repository" in plain.stderr
    assert not (project / "batches").exists()
