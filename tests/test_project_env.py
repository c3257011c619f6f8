"""The checks run with the project's own interpreter: ``.venv`` in the workspace, or checks.python."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from orch_tui.core.engine import EXIT_SUCCESS
from orch_tui.core.project_env import check_python
from tests.scripting import attempt, create
from tests.test_engine import GOOD, TEST, fast_config
from tests.test_existing_project import make_engine


@pytest.fixture(autouse=True)
def _no_plugin_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def wrapper(path: Path, word: str) -> Path:
    """An interpreter that says ``word`` on stderr, then is this Python."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho {word} >&2\nexec "{sys.executable}" "$@"\n')
    path.chmod(0o755)
    return path


def run_once(project: Path, folder: Path, config=None) -> str:
    engine = make_engine(
        project, folder, [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))]
    )
    if config is not None:
        engine.config = config
    assert engine.run() == EXIT_SUCCESS
    return (project / "logs" / engine.state.run_id / "attempt-00" / "test-output.txt").read_text()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "orch"
    folder.mkdir()
    (folder / "spec.md").write_text("# calc\n")
    return folder


def test_a_workspace_venv_runs_the_checks(project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    wrapper(folder / ".venv" / "bin" / "python", "project-venv-python")
    assert check_python(fast_config(), folder) == str(folder / ".venv" / "bin" / "python")
    assert "project-venv-python" in run_once(project, folder)


def test_checks_python_overrides_the_interpreter(project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    wrapper(folder / ".venv" / "bin" / "python", "project-venv-python")
    config = fast_config()
    config.checks.sandbox = "none"  # the sandbox's /tmp is private: this tmp_path is not in it
    config.checks.python = str(wrapper(tmp_path / "other" / "python", "configured-python"))
    output = run_once(project, folder, config)
    assert "configured-python" in output and "project-venv-python" not in output


def test_without_a_venv_the_running_interpreter_is_used(tmp_path: Path) -> None:
    assert check_python(fast_config(), tmp_path) == sys.executable
