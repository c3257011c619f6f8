"""Where a change run's branch starts in git (DESIGN section 16): from the followed run's
branch head, or from the person's checkout when it already holds that work (merged)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.state import new_run_id
from orch_tui.core.domain.state_records import GitRecord
from orch_tui.core.workspace.run_workspace import new_record
from tests.core.workspace.test_existing_project import git

FOLLOWED = "orch/earlier-run"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """main with one commit; the followed run's branch one commit ahead; main checked out."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("a project\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start")
    git(repo, "checkout", "-q", "-b", FOLLOWED)
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the earlier run's work")
    git(repo, "checkout", "-q", "main")
    return repo


def start(tmp_path: Path, repo: Path) -> GitRecord:
    paths = ProjectPaths(tmp_path).with_workspace(repo)
    record = new_record(paths, new_run_id(), allow_dirty=False, follows=GitRecord(FOLLOWED))
    assert record.git is not None
    return record.git


def test_an_unmerged_followed_branch_is_where_the_change_run_starts(
    tmp_path: Path, repo: Path
) -> None:
    head = git(repo, "rev-parse", FOLLOWED)
    started = start(tmp_path, repo)
    assert (started.start_branch, started.start_commit) == (FOLLOWED, head)
    assert git(repo, "merge-base", "--is-ancestor", head, started.branch) == ""


def test_a_checkout_that_merged_the_followed_run_is_where_the_change_run_starts(
    tmp_path: Path, repo: Path
) -> None:
    git(repo, "merge", "-q", "--no-ff", "-m", "merged by the person", FOLLOWED)
    (repo / "NOTES.md").write_text("after the merge\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the person's own work")
    head = git(repo, "rev-parse", "HEAD")
    started = start(tmp_path, repo)
    assert (started.start_branch, started.start_commit) == ("main", head)  # not a stale base
