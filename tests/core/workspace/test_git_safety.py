"""orch-tui's own git commands run nothing a check planted (issue 22, item 7): real git, real
hooks and a real fsmonitor program in a real repository."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from orch_tui.core.workspace.git import Repo, git_env
from tests.core.workspace.test_existing_project import git

SECRETS = {
    "ANTHROPIC_API_KEY": "sk-ant-secret",
    "OPENAI_API_KEY": "sk-openai-secret",
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "GITHUB_TOKEN": "ghp-secret",
}


def plant(path: Path, marker: Path) -> None:
    """An executable script that records that it ran, and the environment it ran with."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\nenv >> "{marker}"\necho ran >> "{marker}"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Path]:
    """A repository with one commit, then hooks and an fsmonitor a check could have planted."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "--quiet", "--initial-branch=main")
    git(repo, "config", "user.email", "person@example.com")
    git(repo, "config", "user.name", "Person")
    (repo / "app.py").write_text("x = 1\n")
    git(repo, "add", "app.py")
    git(repo, "commit", "--quiet", "-m", "start")
    marker = tmp_path / "ran.txt"
    for hook in (
        "pre-commit",
        "post-commit",
        "post-checkout",
        "commit-msg",
        "reference-transaction",
    ):
        plant(repo / ".git" / "hooks" / hook, marker)
    plant(tmp_path / "fsmonitor.sh", marker)
    git(repo, "config", "core.fsmonitor", str(tmp_path / "fsmonitor.sh"))
    return repo, marker


def test_orch_tui_s_git_commands_run_no_planted_hook_or_fsmonitor(
    planted: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo_path, marker = planted
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    repo = Repo(repo_path)

    assert repo.tracked_changes() == []  # git status: where fsmonitor runs
    repo.start_branch("orch/run-1")  # post-checkout
    (repo_path / "app.py").write_text("x = 2\n")
    commit, made = repo.commit_attempt("run-1", 1, ["app.py"], "change x")  # the commit hooks
    repo.checkout("main")
    assert repo.file_at(commit, "app.py") == "x = 2\n"

    assert made
    assert not marker.exists(), marker.read_text()
    # The same hooks do run for a plain git: the attack is real.
    (repo_path / "app.py").write_text("x = 3\n")
    git(repo_path, "commit", "--quiet", "-am", "by hand")
    assert "ran" in marker.read_text()


def test_git_gets_no_api_key_nor_other_token(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("GIT_DIR", "/elsewhere/.git")
    monkeypatch.setenv("LANG", "C.UTF-8")

    env = git_env()

    assert not set(SECRETS) & set(env)
    assert "GIT_DIR" not in env
    assert env["LANG"] == "C.UTF-8" and env["PATH"] == os.environ["PATH"]
