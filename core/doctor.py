"""``orch-tui doctor``: is this project ready to run, and if not, what to do.

Every finding is one line: ok or fail, what was checked, and (on a fail) what to do. The local
part (every check command found, pytest importable by the test interpreter, the project folder
writable) needs no network; a run makes it before its first model request and refuses with the
same lines. The model part checks the key and makes one cheap request, which proves the API is
reachable and accepts the model id.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from orch_tui.core.attempt.prompt_templates import override_problems
from orch_tui.core.checks.declarations import DeclarationError, declared_requirements
from orch_tui.core.checks.pytest_config import is_pytest
from orch_tui.core.checks.report import configured_checks
from orch_tui.core.checks.sandbox import SandboxError, resolve_sandbox
from orch_tui.core.checks.venv_path import PROJECT_VENV, venv_python
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.util.records import record

if TYPE_CHECKING:
    from orch_tui.core.config.models import Config
    from orch_tui.core.config.plain import PlainConfig

KEY_NAMES = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
PING_MAX_TOKENS = 16
IMPORT_TIMEOUT_S = 60.0


@record(frozen=True)
class Finding:
    """One line of the doctor's report."""

    ok: bool
    what: str
    todo: str = ""

    def line(self) -> str:
        status = "ok  " if self.ok else "fail"
        return f"{status}  {self.what}" + ("" if self.ok else f": {self.todo}")


def _command_finding(name: str, command: list[str], workspace: Path) -> Finding:
    """Whether the program of ``command`` exists (config validation made sure it has one)."""
    program = command[0]
    if os.sep in program:
        path = Path(program) if Path(program).is_absolute() else workspace / program
        found = path.is_file() and os.access(path, os.X_OK)
    else:
        found = shutil.which(program) is not None
    what = f"check {name!r} command {program!r}"
    if found:
        return Finding(True, f"{what} found")
    return Finding(False, f"{what} not found", "install it or fix the command in orchestrator.toml")


PYTEST_PROBE = "import importlib.util, sys; sys.exit(importlib.util.find_spec('pytest') is None)"
"""Exits 0 where the interpreter finds pytest: 10 ms, where importing it took 100 ms on every
launch (a project's ``.venv`` is another interpreter than orch-tui's own)."""


def _pytest_finding(command: list[str]) -> Finding | None:
    if not is_pytest(command) or "python" not in Path(command[0]).name:
        return None
    interpreter = command[0]
    what = f"pytest importable by {interpreter}"
    if interpreter == sys.executable:  # our own interpreter: no process needed
        found = importlib.util.find_spec("pytest") is not None
        return Finding(found, what, f"install it: {interpreter} -m pip install pytest")
    try:
        done = subprocess.run(
            [interpreter, "-c", PYTEST_PROBE],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=IMPORT_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None  # the command line above already says the interpreter cannot be run
    if done.returncode == 0:
        return Finding(True, what)
    return Finding(False, what, f"install it: {interpreter} -m pip install pytest")


def _writable_finding(root: Path) -> Finding:
    """A file made and removed in ``root``: by name, as ``tempfile`` would (``os.urandom``'s,
    not ``tempfile`` with ``random``, which a run's start would import for this one file)."""
    what = f"project folder {root} writable"
    probe = root / f".orch-doctor-{os.urandom(6).hex()}"
    try:
        os.close(
            os.open(
                probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600
            )
        )
        probe.unlink()
    except OSError as exc:
        return Finding(False, what, f"cannot write there ({exc.strerror}); fix its permissions")
    return Finding(True, what)


def sandbox_finding(config: Config | PlainConfig) -> Finding:
    """Which sandbox confines the checks; a check that could run unconfined fails this line.

    Only ``doctor`` asks it: a run without bubblewrap still works (it says so in its header).
    """
    mode = config.checks.sandbox
    try:
        sandbox = resolve_sandbox(mode)
    except SandboxError as exc:
        return Finding(False, "sandbox bwrap", str(exc))
    what = f"sandbox in force: {sandbox.describe()}"
    if sandbox.confined or mode == "none":
        return Finding(True, what)
    return Finding(False, what, 'install bubblewrap, or set checks.sandbox = "none" to accept it')


def project_env_finding(config: Config | PlainConfig, workspace: Path) -> Finding | None:
    """Where the checks run (``core.project_env``) and, when the project declares dependencies,
    whether something can install them; None when checks.python names the interpreter."""
    if config.checks.python:
        return None
    venv = workspace / PROJECT_VENV
    where = f"checks run in {venv}" + (
        "" if venv_python(workspace) else " (made on the first check)"
    )
    try:
        declared = declared_requirements(workspace).files
    except DeclarationError:
        declared = []  # the checks say what is wrong with the file, to the model
    if not declared:
        return Finding(True, where)
    from orch_tui.core.checks.installer import installer_command

    installer = installer_command(venv / "bin" / "python")
    what = f"{where}, with the dependencies of {', '.join(declared)}"
    if installer is None:
        return Finding(False, what, "nothing can install them: install uv, or pip 22.3 or later")
    tool = "uv" if Path(installer[0]).name.startswith("uv") else "pip"
    return Finding(True, f"{what} installed by {tool}")


def local_findings(paths: ProjectPaths, config: Config | PlainConfig) -> list[Finding]:
    """The checks that need no network: commands, pytest, the environment, the folder."""
    # {python} as the checks will run it: checks.python, else the workspace's .venv once it is
    # made, else this interpreter, which the .venv is made from.
    python = config.checks.python or str(venv_python(paths.workspace) or sys.executable)
    checks = configured_checks(config, python)
    findings = [_command_finding(c.name, c.command, paths.workspace) for c in checks]
    pytest_finding = _pytest_finding(checks[0].command)
    if pytest_finding is not None:
        findings.append(pytest_finding)
    env_finding = project_env_finding(config, paths.workspace)
    if env_finding is not None:
        findings.append(env_finding)
    findings.append(_writable_finding(paths.root))
    findings += [
        Finding(False, "prompt templates in prompts/ fill in", problem)
        for problem in override_problems(paths.prompts)
    ]
    return findings


def local_report(paths: ProjectPaths, config: Config | PlainConfig) -> list[Finding]:
    """:func:`local_findings`, then :func:`sandbox_finding`: bubblewrap's probe runs beside the
    local checks' own process (the test interpreter asked for pytest), not after it."""
    sandbox: list[Finding] = []
    probe = threading.Thread(target=lambda: sandbox.append(sandbox_finding(config)))
    probe.start()
    try:
        findings = local_findings(paths, config)
    finally:
        probe.join()
    return [*findings, *sandbox]


def offline_model_findings(provider_name: str) -> list[Finding] | None:
    """The model part of a provider that needs no API (scripted, claude-code), else None."""
    if provider_name == "scripted":
        return [Finding(True, "provider scripted: no key or API needed")]
    if provider_name == "claude-code":
        from orch_tui.core.providers.claude_code import INSTALL_HINT

        found = shutil.which("claude") is not None
        return [Finding(found, "claude command found", INSTALL_HINT)]
    return None


def model_findings(config: Config, env: Mapping[str, str]) -> list[Finding]:
    """The key, and one cheap request proving the API is reachable and knows the model id."""
    offline = offline_model_findings(config.model.provider)
    if offline is not None:
        return offline
    from orch_tui.core.domain.spec import Spec
    from orch_tui.core.providers.base import ModelError, TurnRequest
    from orch_tui.core.providers.factory import choose_provider
    from orch_tui.core.providers.scripted import ScriptError

    provider_name = config.model.provider
    findings = []
    key_name = KEY_NAMES.get(provider_name)
    if key_name is not None:
        local = provider_name == "openai" and (env.get("OPENAI_BASE_URL") or config.model.base_url)
        if env.get(key_name):
            findings.append(Finding(True, f"{key_name} set"))
        elif not local:
            findings.append(
                Finding(False, f"{key_name} set", f"export {key_name}=... or put it in .env")
            )
            return findings
    spec = Spec(path=Path("doctor"), text="")
    model = config.model.name
    what = f"{provider_name} API reachable and model {model!r} accepted"
    try:
        provider = choose_provider(config, spec, None, env).provider
        provider.complete(
            TurnRequest(
                model=model,
                system=[],
                tools=[],
                messages=[{"role": "user", "content": "Reply with the word ok."}],
                max_tokens=PING_MAX_TOKENS,
            ),
            lambda text: None,
        )
    except (ModelError, ScriptError) as exc:
        return [*findings, Finding(False, what, str(exc))]
    return [*findings, Finding(True, what)]


def refusal(findings: list[Finding]) -> str | None:
    """The message a run refuses with when a local finding failed, else None."""
    failed = [finding.line() for finding in findings if not finding.ok]
    if not failed:
        return None
    return "not ready to run (see orch-tui doctor):\n" + "\n".join(failed)
