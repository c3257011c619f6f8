"""A workspace that is or contains the project folder is refused; the project's own files are
protected in the staging overlay (issue 22, item 13)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.workspace.boundary import ProtectedPath
from orch_tui.core.workspace.placement import (
    WorkspacePlacementError,
    check_placement,
    project_file_globs,
)
from orch_tui.core.workspace.staging import Staging
from orch_tui.tui.cli.commands import main


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "home" / "orch"
    folder.mkdir(parents=True)
    (folder / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    (folder / ".env").write_text("ANTHROPIC_API_KEY=sk-ant-from-dotenv\n")
    (folder / "orchestrator.toml").write_text('[checks]\nsandbox = "auto"\n')
    return folder


@pytest.mark.parametrize("chosen", [".", "..", "../..", "/"])
def test_a_workspace_that_is_or_holds_the_project_is_refused(project: Path, chosen: str) -> None:
    with pytest.raises(WorkspacePlacementError, match="project folder"):
        check_placement(ProjectPaths(project).with_workspace(chosen))


def test_a_symlink_to_the_project_folder_is_refused_too(project: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(project)

    with pytest.raises(WorkspacePlacementError, match="is the project folder itself"):
        check_placement(ProjectPaths(project).with_workspace(link))


@pytest.mark.parametrize("chosen", ["", "app", "../app"])
def test_a_folder_inside_or_beside_the_project_is_accepted(project: Path, chosen: str) -> None:
    (project / "app").mkdir()
    (project.parent / "app").mkdir()

    check_placement(ProjectPaths(project).with_workspace(chosen))


@pytest.mark.parametrize("chosen", ["--workspace=.", "--workspace=/"])
def test_the_cli_refuses_with_exit_1_and_writes_nothing(
    project: Path, chosen: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)  # --workspace is relative to where the person runs orch-tui
    script = project / "script.json"
    script.write_text(json.dumps({"attempts": []}))
    before = sorted(p.name for p in project.iterdir())

    code = main(
        [
            str(project / "spec.md"),
            "--auto",
            chosen,
            "--config",
            str(project / "orchestrator.toml"),
            "--provider",
            "scripted",
            "--script",
            str(script),
        ]
    )

    err = capsys.readouterr().err
    assert code == 1
    assert "project folder" in err and "Traceback" not in err
    assert not (project / "state.json").exists()
    assert sorted(p.name for p in project.iterdir() if p.name != "orch.lock") == before


def test_the_project_files_are_protected_like_git(project: Path) -> None:
    workspace = project / "app"
    (workspace / "sub").mkdir(parents=True)
    paths = ProjectPaths(project).with_workspace("app")
    staging = Staging(workspace, project_file_globs(paths))

    for name in ("orchestrator.toml", ".env", "state.json", "orch.lock", "sub/.env"):
        with pytest.raises(ProtectedPath):
            staging.write(name, "x")
    staging.write("sub/app.py", "x = 1\n")


def test_the_projects_logs_and_prompts_are_protected_where_reachable(project: Path) -> None:
    """A workspace that reaches the project's logs/ and prompts/ (one the placement check
    would refuse) still gets them protected; a workspace beside the project has no such globs."""
    (project / "logs" / "r1").mkdir(parents=True)
    (project / "prompts").mkdir()
    (project.parent / "app").mkdir()

    globs = project_file_globs(ProjectPaths(project).with_workspace(project))
    beside = project_file_globs(ProjectPaths(project).with_workspace("../app"))

    assert "logs" in globs and "prompts" in globs
    assert "logs" not in beside and "prompts" not in beside
    staging = Staging(project, globs)
    for name in ("logs/r1/conversation.json", "prompts/system.md"):
        with pytest.raises(ProtectedPath):
            staging.write(name, "x")
