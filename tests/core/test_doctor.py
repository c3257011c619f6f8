"""``orch-tui doctor``: one line per check, a fail line for each problem, exit 0 only when all pass."""

from __future__ import annotations

import shutil
import socket
import sys
import venv
from pathlib import Path

import pytest

from orch_tui.core.checks import installer, sandbox
from orch_tui.core.config.models import Config, parse_config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.doctor import local_findings, model_findings, sandbox_finding
from tests.support.e2e_support import FAST_CONFIG, assert_clean_exit, make_project
from tests.support.fake_anthropic import Error, Turn
from tests.support.fake_openai import FakeOpenAI, Reply

MISSING_LINTER = 'extra = [{name = "lint", command = ["orch-no-such-linter-xyz", "."]}]\n'


def failed(findings) -> list[str]:
    return [finding.line() for finding in findings if not finding.ok]


def config_with(text: str) -> Config:
    import tomllib

    return parse_config(tomllib.loads(text), "orchestrator.toml")


def openai_config(base_url: str | None = None) -> Config:
    config = Config()
    config.model.provider = "openai"
    config.model.name = "gpt-4.1"
    config.model.base_url = base_url
    config.model.max_retries_sdk = 0
    return config


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- the local part -----------------------------------------------------------------------------


def test_a_default_project_passes_the_local_checks(tmp_path: Path) -> None:
    findings = local_findings(ProjectPaths(tmp_path), Config())
    assert failed(findings) == []
    venv = tmp_path / "workspace" / ".venv"
    assert f"ok    checks run in {venv} (made on the first check)" in [f.line() for f in findings]


def test_declared_dependencies_without_an_installer_fail_their_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "requirements.txt").write_text("requests\n")
    lines = [f.line() for f in local_findings(ProjectPaths(tmp_path), Config())]
    assert any("with the dependencies of requirements.txt installed by" in line for line in lines)
    monkeypatch.setattr(installer, "installer_command", lambda python: None)
    assert failed(local_findings(ProjectPaths(tmp_path), Config())) == [
        f"fail  checks run in {workspace / '.venv'} (made on the first check), with the "
        "dependencies of requirements.txt: nothing can install them: install uv, or pip 22.3 or "
        "later"
    ]
    pinned = Config()
    pinned.checks.python = sys.executable  # used as it is: nothing to install
    assert failed(local_findings(ProjectPaths(tmp_path), pinned)) == []


@pytest.mark.skipif(
    shutil.which("bwrap") is None, reason="bubblewrap (Debian: bubblewrap) is not installed"
)
def test_the_sandbox_line_names_bubblewrap_in_force() -> None:
    finding = sandbox_finding(Config())
    assert finding.ok and "sandbox in force: bwrap" in finding.line()


def test_checks_that_would_run_unconfined_fail_the_sandbox_line(monkeypatch) -> None:
    monkeypatch.setattr(sandbox, "_probe_bwrap", lambda: (None, "bwrap is not on the PATH"))
    auto = sandbox_finding(Config())
    assert not auto.ok and "bwrap is not on the PATH" in auto.line()
    assert "bubblewrap" in auto.line()
    opted_out = Config()
    opted_out.checks.sandbox = "none"
    assert sandbox_finding(opted_out).ok


def test_the_interpreter_python_stands_for_is_the_one_checked(tmp_path: Path) -> None:
    """``checks.python`` (or the workspace's .venv) runs the checks: that is what must exist."""
    config = config_with('[checks]\npython = "/nowhere/bin/python3"\n' + MISSING_LINTER)
    config.checks.extra[0].command = ["{python}", "-m", "ruff"]
    lines = failed(local_findings(ProjectPaths(tmp_path), config))
    assert lines == [
        f"fail  check {name!r} command '/nowhere/bin/python3' not found: install it or fix the "
        "command in orchestrator.toml"
        for name in ("tests", "lint")
    ]


def test_a_check_command_that_is_not_installed_fails_its_line(tmp_path: Path) -> None:
    config = config_with("[checks]\n" + MISSING_LINTER)
    lines = failed(local_findings(ProjectPaths(tmp_path), config))
    assert lines == [
        "fail  check 'lint' command 'orch-no-such-linter-xyz' not found: install it or fix the "
        "command in orchestrator.toml"
    ]


def test_a_test_interpreter_without_pytest_fails_its_line(tmp_path: Path) -> None:
    interpreter = tmp_path / "python-without-pytest"
    interpreter.write_text("#!/bin/sh\nexit 1\n")
    interpreter.chmod(0o755)
    config = config_with(f'[checks]\ntest_command = ["{interpreter}", "-m", "pytest"]\n')
    lines = failed(local_findings(ProjectPaths(tmp_path), config))
    assert lines == [
        f"fail  pytest importable by {interpreter}: install it: {interpreter} -m pip install pytest"
    ]


@pytest.mark.parametrize("has_pytest", [True, False], ids=["with-pytest", "without-pytest"])
def test_pytest_is_looked_for_in_the_checks_own_interpreter(
    tmp_path: Path, has_pytest: bool
) -> None:
    """Another interpreter than orch-tui's (a project's .venv) is asked in a process of its
    own: this one's interpreter reached through a link has pytest, a bare venv has not."""
    if has_pytest:
        interpreter = tmp_path / "linked-python"
        interpreter.symlink_to(sys.executable)
    else:
        venv.create(tmp_path / "bare", with_pip=False)
        interpreter = tmp_path / "bare" / "bin" / "python"
    config = config_with(f'[checks]\ntest_command = ["{interpreter}", "-m", "pytest"]\n')

    findings = {f.what: f.ok for f in local_findings(ProjectPaths(tmp_path), config)}

    assert findings[f"pytest importable by {interpreter}"] is has_pytest


def test_a_project_folder_that_cannot_be_written_fails_its_line(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    lines = failed(local_findings(ProjectPaths(missing), Config()))
    assert len(lines) == 1
    assert lines[0].startswith(f"fail  project folder {missing} writable: cannot write there")


# -- the model part -----------------------------------------------------------------------------


def test_a_missing_key_fails_its_line(tmp_path: Path) -> None:
    assert failed(model_findings(Config(), {})) == [
        "fail  ANTHROPIC_API_KEY set: export ANTHROPIC_API_KEY=... or put it in .env"
    ]
    assert failed(model_findings(openai_config(), {})) == [
        "fail  OPENAI_API_KEY set: export OPENAI_API_KEY=... or put it in .env"
    ]


def test_a_missing_claude_command_fails_its_line(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    config = Config()
    config.model.provider = "claude-code"
    (line,) = failed(model_findings(config, {}))
    assert line.startswith("fail  claude command found: install Claude Code")


def test_key_api_and_model_pass_against_the_fake_servers(fake_server) -> None:
    anthropic = fake_server([Turn.say("ok")])
    env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": anthropic.url}
    assert failed(model_findings(Config(), env)) == []
    assert anthropic.requests[0].body["max_tokens"] == 16
    with FakeOpenAI([Reply("ok")]) as fake:
        lines = [
            f.line()
            for f in model_findings(openai_config(fake.url), {"OPENAI_API_KEY": "test-key"})
        ]
    assert lines == [
        "ok    OPENAI_API_KEY set",
        "ok    openai API reachable and model 'gpt-4.1' accepted",
    ]


def test_an_unreachable_api_fails_its_line() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    lines = failed(model_findings(openai_config(url), {"OPENAI_API_KEY": "k"}))
    assert len(lines) == 1
    assert lines[0].startswith(
        "fail  openai API reachable and model 'gpt-4.1' accepted: cannot reach"
    )


def test_a_model_id_the_api_does_not_know_fails_its_line(fake_server) -> None:
    fake = fake_server([Error(404, "not_found_error", "model: claude-nope")])
    config = Config()
    config.model.name = "claude-nope"
    config.model.max_retries_sdk = 0
    env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.url}
    lines = failed(model_findings(config, env))
    assert len(lines) == 1 and "model 'claude-nope' was not found (404)" in lines[0]


def test_a_rejected_key_fails_its_line() -> None:
    with FakeOpenAI() as fake:
        lines = failed(model_findings(openai_config(fake.url), {"OPENAI_API_KEY": "wrong"}))
    assert len(lines) == 1 and "the API key was rejected (401)" in lines[0]


# -- the command line ---------------------------------------------------------------------------


def test_doctor_exits_0_when_everything_passes_and_1_otherwise(tmp_path: Path, fake_server) -> None:
    fake = fake_server([Turn.say("ok")])
    project = make_project(tmp_path / "ok", spec_text="# x\n", fake_url=fake.url)
    result = project.run("doctor")
    assert_clean_exit(result, 0)
    assert all(line.startswith("ok ") for line in result.stdout.splitlines()), result.stdout
    assert "anthropic API reachable and model 'claude-sonnet-5' accepted" in result.stdout

    broken = make_project(tmp_path / "broken", spec_text="# x\n", fake_url=fake.url, key=None)
    result = broken.run("doctor")
    assert_clean_exit(result, 1)
    assert "fail  ANTHROPIC_API_KEY set" in result.stdout


def test_a_run_refuses_before_any_model_request_with_the_doctor_line(
    tmp_path: Path, fake_server
) -> None:
    fake = fake_server([Turn.say("never sent")])
    project = make_project(
        tmp_path / "p",
        spec_text="# x\n",
        fake_url=fake.url,
        config=FAST_CONFIG.replace("[checks]\n", "[checks]\n" + MISSING_LINTER),
    )
    result = project.run_auto()
    assert_clean_exit(result, 1)
    assert "fail  check 'lint' command 'orch-no-such-linter-xyz' not found" in result.stderr
    assert fake.requests == []
    assert project.state() is None


def test_doctor_checks_the_provider_and_model_given_on_its_command_line(tmp_path: Path) -> None:
    """``doctor --provider P --model M`` checks what ``orch-tui spec.md --provider P --model M``
    would use, not the configured pair (issue 25, item 3)."""
    with FakeOpenAI([Reply("ok")]) as fake:
        project = make_project(tmp_path / "p", spec_text="# x\n", key=None)
        project.env["OPENAI_API_KEY"], project.env["OPENAI_BASE_URL"] = "k", fake.url
        result = project.run("doctor", "--provider", "openai", "--model", "gpt-test")
    assert "openai API reachable and model 'gpt-test' accepted" in result.stdout, result.stdout
    assert "ANTHROPIC" not in result.stdout
