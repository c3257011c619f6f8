"""The dependency installer installs only declarations the person accepted, never what a check
wrote, and gets no secret in its environment (issue 22, item 3): real checks, a real .venv and
a stand-in ``uv`` on the PATH that records how it was called."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orch_tui.core.checks.declarations import put_back, snapshot
from orch_tui.core.checks.trial import run_configured
from orch_tui.core.config.models import Config
from tests.core.checks.test_project_env import fake_uv, local_index  # noqa: F401 - a fixture

RECORDING_UV = """\
import json, os, subprocess, sys
args = sys.argv[1:]
with open(sys.argv[0] + ".calls", "a") as calls:
    calls.write(json.dumps({"args": args, "env": dict(os.environ)}) + "\\n")
python = args[args.index("--python") + 1]
rest = args[args.index("--python") + 2 :]
sys.exit(subprocess.call([sys.executable, "-m", "pip", "--python", python, "install", *rest]))
"""

SECRETS = {"AWS_SECRET_ACCESS_KEY": "aws-secret", "GITHUB_TOKEN": "ghp-secret"}

# A test that writes a new declaration and rewrites the accepted one, as the attack did with
# a key for a package name.
WRITES_DECLARATIONS = """\
from pathlib import Path


def test_plants_requirements():
    Path("requirements-evil.txt").write_text("sk-ant-stolen-key\\n")
    Path("requirements.txt").write_text("sk-ant-stolen-too\\n")
"""


@pytest.fixture
def recording_uv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    uv = fake_uv(tmp_path, monkeypatch, RECORDING_UV)
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    return uv


def calls(uv: Path) -> list[dict]:
    path = Path(f"{uv}.calls")
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.usefixtures("local_index")
def test_declarations_a_check_wrote_are_put_back_and_never_installed(
    tmp_path: Path, recording_uv: Path
) -> None:
    workspace = tmp_path / "ws"
    (workspace / "tests").mkdir(parents=True)
    (workspace / "requirements.txt").write_text("greeting==1.0\n")
    (workspace / "tests" / "test_plant.py").write_text(WRITES_DECLARATIONS)
    said: list[str] = []

    first = run_configured(Config(), workspace, tmp_path / "r1", on_notice=said.append)
    second = run_configured(Config(), workspace, tmp_path / "r2", on_notice=said.append)

    assert first.passed and second.passed, (first.summary(), second.summary())
    assert (workspace / "requirements.txt").read_text() == "greeting==1.0\n"
    assert not (workspace / "requirements-evil.txt").exists()
    assert any("a check wrote requirements-evil.txt, requirements.txt" in line for line in said)
    installed = [call["args"][-1] for call in calls(recording_uv)]
    assert installed == ["greeting==1.0"]  # once, the accepted one; never the planted names
    assert not any(SECRETS.keys() & call["env"].keys() for call in calls(recording_uv))


def test_put_back_undoes_created_changed_removed_and_symlinked_declarations(
    tmp_path: Path,
) -> None:
    (tmp_path / "requirements.txt").write_text("a\n")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    before = snapshot(tmp_path)
    (tmp_path / "requirements.txt").unlink()
    (tmp_path / "requirements.txt").symlink_to("/etc/hostname")
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "requirements-new.txt").write_text("b\n")

    undone = put_back(tmp_path, before)

    assert undone == ["pyproject.toml", "requirements-new.txt", "requirements.txt"]
    assert snapshot(tmp_path) == before
    assert not (tmp_path / "requirements.txt").is_symlink()
    assert put_back(tmp_path, before) == []
