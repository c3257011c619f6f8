"""End to end: the installed ``orch-tui --auto --workspace`` on a real git repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.workspace.test_existing_project import git
from tests.e2e.test_e2e_auto import ADD_TEST, BUGGY_APP, FIXED_APP, SPEC
from tests.support.e2e_support import FAST_CONFIG, assert_clean_exit, attempt_turns

pytestmark = pytest.mark.e2e


def test_auto_run_on_a_git_repository_commits_on_its_branch_and_reset_returns(
    project_factory, fake_server, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "--quiet", "-b", "trunk")
    (repo / "README.md").write_text("# mine\n")
    git(repo, "add", "README.md")
    git(repo, "commit", "--quiet", "-m", "start")
    (repo / "scratch.txt").write_text("untracked, mine\n")
    fake = fake_server(
        [
            *attempt_turns(
                "Write app and its test.",
                [("create", "app.py", BUGGY_APP), ("create", "tests/test_app.py", ADD_TEST)],
            ),
            *attempt_turns("Fix the sign in add.", [("str_replace", "app.py", "a - b", "a + b")]),
        ]
    )
    # The checks run in the project's own .venv, which orch-tui makes (FAST_CONFIG's python out).
    config = "\n".join(line for line in FAST_CONFIG.splitlines() if not line.startswith("python"))
    project = project_factory(spec_text=SPEC, fake_url=fake.url, config=config)

    result = project.run_auto("--workspace", str(repo))

    assert_clean_exit(result, 0)
    state = project.state()
    branch = f"orch/{state['run_id']}"
    assert state["workspace"]["git"]["start_branch"] == "trunk"
    assert git(repo, "branch", "--show-current") == branch
    subjects = git(repo, "log", "--reverse", "--format=%s", f"trunk..{branch}").splitlines()
    assert subjects == [
        f"orch-tui {state['run_id']} attempt 0: Write app and its test.",
        f"orch-tui {state['run_id']} attempt 1: Fix the sign in add.",
    ]
    assert (repo / "app.py").read_text() == FIXED_APP
    assert "creating the project's environment" in result.stdout
    assert (repo / ".venv" / "bin" / "python").exists()
    assert git(repo, "status", "--porcelain") == "?? scratch.txt"  # the .venv ignores itself
    assert ".venv" not in git(repo, "log", "--name-only", "--format=", f"trunk..{branch}")
    assert f"git checkout trunk && git merge {branch}" in result.stdout
    assert not project.workspace.exists()

    reset = project.run("reset")
    assert_clean_exit(reset, 0)
    assert f"checked out trunk in {repo}" in reset.stdout
    assert git(repo, "branch", "--show-current") == "trunk"
    assert git(repo, "branch", "--list", branch)
    assert (repo / "scratch.txt").read_text() == "untracked, mine\n"
    assert "removed the .venv orch-tui created" in reset.stdout and not (repo / ".venv").exists()
    assert (repo / ".git").is_dir() and not (repo / "app.py").exists()
