"""Run the checks (the tests, then ruff or whatever else the config names) on the workspace.

Generated code is untrusted, so every check runs:

- with ``shell=False`` and ``cwd`` the workspace, stdin closed;
- in its own session, hence its own process group: when the main process exits, and on a
  timeout or a Ctrl+C, the whole group gets SIGKILL, so a forked child that keeps the output
  pipe open can neither outlive the check nor hang us;
- with captured output capped (the head and the tail are kept, the middle is counted);
- with an environment built from an allowlist (:func:`build_env`): API keys never get there;
- with a parent-death signal (behind a guard process in the sandbox, see ``process_guard``),
  and its process group recorded on disk while it runs (``running``, see ``leftovers``), so
  neither a kill -9 nor a SIGHUP of orch-tui leaves it running.

Placeholders in a check's command: ``{python}`` (this interpreter), ``{junit}`` (the JUnit XML
report path for this check, in ``report_dir``, outside the workspace) and ``{workspace}``.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from orch_tui.core.checks.junit import TestCase, trim_traceback
from orch_tui.core.checks.process_guard import die_with_parent, guard_with_parent, guarded
from orch_tui.core.checks.processes import Launch, kill_running_checks, run_process
from orch_tui.core.checks.pytest_config import pin_config
from orch_tui.core.checks.report import CheckResult, CheckSpec, TestReport
from orch_tui.core.checks.sandbox import NO_SANDBOX, Sandbox
from orch_tui.core.checks.verdict import Ended, judge
from orch_tui.core.config.plain import is_secret_env_name

__all__ = [
    "BASE_ENV_ALLOW",
    "CheckResult",
    "CheckSpec",
    "TestCase",
    "TestReport",
    "build_env",
    "kill_running_checks",
    "run_check",
    "run_checks",
    "trim_traceback",
]

BASE_ENV_ALLOW: tuple[str, ...] = ("PATH", "HOME", "LANG", "LC_ALL", "PYTHONPATH")

# Set for every check. Unbuffered output is what makes the live test view live (a child's
# prints would otherwise sit in its buffer until it exits, or die with it on a timeout); no
# bytecode keeps ``__pycache__`` folders out of the workspace the person reviews. An allowlisted
# variable of the same name overrides these.
_FIXED_ENV = {"PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}


def build_env(extra_allow: Sequence[str] = ()) -> dict[str, str]:
    """The environment for a check: allowlisted variables copied from ours, plus the fixed ones.

    Raises ``ValueError`` if ``extra_allow`` names a variable that may hold an API key.
    """
    refused = [name for name in extra_allow if is_secret_env_name(name)]
    if refused:
        raise ValueError(
            f"refusing to pass {', '.join(refused)} to checks: API keys never reach generated code"
        )
    env = dict(_FIXED_ENV)
    for name in (*BASE_ENV_ALLOW, *extra_allow):
        value = os.environ.get(name)
        if value is not None:
            env[name] = value
    return env


def run_checks(
    specs: Sequence[CheckSpec],
    workspace: Path,
    report_dir: Path,
    *,
    timeout_s: float,
    max_output_bytes: int,
    extra_env_allow: Sequence[str] = (),
    on_output: Callable[[str, str], None] | None = None,
    sandbox: Sandbox = NO_SANDBOX,
    running: Path | None = None,
    read_only: Sequence[Path] = (),
    allow_all_skipped: bool = False,
) -> TestReport:
    """Run every check in order (a failing one does not stop the rest).

    ``on_output(check_name, text)`` gets each check's output live, in chunks, from a reader
    thread; ``timeout_s`` and ``max_output_bytes`` apply to each check on its own.
    ``read_only``: folders in the workspace the sandbox keeps read-only.
    """
    results = []
    for spec in specs:
        forward = None
        if on_output is not None:
            forward = _named(on_output, spec.name)
        results.append(
            run_check(
                spec,
                workspace,
                report_dir,
                timeout_s=timeout_s,
                max_output_bytes=max_output_bytes,
                extra_env_allow=extra_env_allow,
                on_output=forward,
                sandbox=sandbox,
                running=running,
                read_only=read_only,
                allow_all_skipped=allow_all_skipped,
            )
        )
    return TestReport(checks=results)


def _named(on_output: Callable[[str, str], None], name: str) -> Callable[[str], None]:
    return lambda text: on_output(name, text)


def run_check(
    spec: CheckSpec,
    workspace: Path,
    report_dir: Path,
    *,
    timeout_s: float,
    max_output_bytes: int,
    extra_env_allow: Sequence[str] = (),
    on_output: Callable[[str], None] | None = None,
    sandbox: Sandbox = NO_SANDBOX,
    running: Path | None = None,
    read_only: Sequence[Path] = (),
    allow_all_skipped: bool = False,
) -> CheckResult:
    """Run one check; every way it can go wrong ends up in the result, not in an exception.

    ``on_output(text)`` is called from a reader thread with output as it arrives (the first
    ``max_output_bytes`` of it, then one line saying the rest is not shown live). A
    ``KeyboardInterrupt`` while waiting kills the process group before it propagates.
    ``sandbox`` wraps the command (``read_only``: folders in the workspace it keeps read-only);
    the result names the command unwrapped. ``running``: the folder where the check's process
    group is recorded while it runs. The verdict is :func:`verdict.judge`'s.
    """
    if max_output_bytes <= 0:
        raise ValueError("max_output_bytes must be positive")
    report_dir = report_dir.resolve()
    junit_path = report_dir / f"{_file_safe(spec.name)}.junit.xml"
    placeholders = _placeholders(junit_path, workspace)
    command = pin_config([_expand(arg, placeholders) for arg in spec.command], workspace)

    def not_started(error: str) -> CheckResult:
        return CheckResult(spec.name, command, None, False, 0.0, "", 0, [], error)

    if not command:
        return not_started("the check has an empty command")
    if not workspace.is_dir():
        return not_started(f"the workspace folder does not exist: {workspace}")
    try:
        env = build_env(extra_env_allow)
    except ValueError as exc:
        return not_started(str(exc))
    if sandbox.confined and shutil.which(command[0], path=env.get("PATH")) is None:
        return not_started(f"command not found: {command[0]}")
    report_dir.mkdir(parents=True, exist_ok=True)
    junit_path.unlink(missing_ok=True)  # never read a report left by an earlier run

    argv, preexec = command, die_with_parent
    if sandbox.confined:
        argv = guarded(sandbox.wrap(command, workspace, [report_dir], read_only))
        preexec = guard_with_parent
    launch = Launch(argv, workspace, env, preexec, spec.name)
    try:
        finished = run_process(
            launch,
            timeout_s=timeout_s,
            max_output_bytes=max_output_bytes,
            on_output=on_output,
            running=running,
        )
    except FileNotFoundError:
        return not_started(f"command not found: {command[0]}")
    except PermissionError:
        return not_started(f"command is not executable: {command[0]}")
    except OSError as exc:
        return not_started(f"could not start {command[0]}: {exc.strerror or exc}")

    wants_report = "{junit}" in " ".join(spec.command)
    ended = Ended(command, finished.exit_code, finished.timed_out, timeout_s, finished.output)
    verdict = judge(ended, junit_path if wants_report else None, workspace, allow_all_skipped)
    return CheckResult(
        name=spec.name,
        command=command,
        exit_code=finished.exit_code,
        timed_out=finished.timed_out,
        duration_s=finished.duration_s,
        output=finished.output,
        dropped_bytes=finished.dropped_bytes,
        tests=verdict.tests,
        error=verdict.error,
    )


def _placeholders(junit_path: Path, workspace: Path) -> dict[str, str]:
    """What a check's command may name, the workspace resolved once (not once per argument)."""
    return {
        "{python}": sys.executable,
        "{junit}": str(junit_path),
        "{workspace}": str(workspace.resolve()),
    }


def _expand(arg: str, placeholders: dict[str, str]) -> str:
    for placeholder, value in placeholders.items():
        if placeholder in arg:
            arg = arg.replace(placeholder, value)
    return arg


def _file_safe(name: str) -> str:
    return re.sub(r"[^\w.-]", "_", name) or "check"
