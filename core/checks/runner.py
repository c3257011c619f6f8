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

import codecs
import logging
import math
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orch_tui.core.checks.junit import TestCase, label_xpassed, parse_junit, trim_traceback
from orch_tui.core.checks.leftovers import recorded
from orch_tui.core.checks.process_guard import die_with_parent, guard_with_parent, guarded
from orch_tui.core.checks.pytest_config import is_pytest, pin_config
from orch_tui.core.checks.sandbox import NO_SANDBOX, Sandbox
from orch_tui.core.config.models import is_secret_env_name

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

log = logging.getLogger(__name__)

BASE_ENV_ALLOW: tuple[str, ...] = ("PATH", "HOME", "LANG", "LC_ALL", "PYTHONPATH")

# Set for every check. Unbuffered output is what makes the live test view live (a child's
# prints would otherwise sit in its buffer until it exits, or die with it on a timeout); no
# bytecode keeps ``__pycache__`` folders out of the workspace the person reviews. An allowlisted
# variable of the same name overrides these.
_FIXED_ENV = {"PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}

# pytest's exit codes other than 0 (all passed) and 1 (some failed), as sentences.
_PYTEST_EXIT_ERRORS = {
    2: None,  # interrupted, usually by collection errors: the report lists them
    3: "pytest hit an internal error (see the output)",
    4: "pytest was called wrongly (a usage error; see the output)",
    5: "pytest collected no tests",
}

# A test runner that exits 0 without the report it was asked for did not finish: a test or a
# conftest that calls os._exit(0) or sys.exit(0) would otherwise make a failing project pass.
_NO_REPORT = (
    "exited 0 without writing its JUnit report, so the run did not finish "
    "(does a test or conftest.py call os._exit or sys.exit?); counted as a failure"
)

_READ_CHUNK = 65536
_POLL_S = 0.05
# How long the output is still read after the process group was killed; bounds the wait when
# a process that left the group (setsid) keeps the pipe open.
_DRAIN_S = 2.0


@dataclass(frozen=True)
class CheckSpec:
    """One command that must succeed: ``name`` as shown to people, ``command`` as argv."""

    name: str
    command: list[str]


@dataclass
class CheckResult:
    name: str
    command: list[str]
    exit_code: int | None  # None: never started; negative: killed by that signal
    timed_out: bool
    duration_s: float
    output: str  # stdout and stderr interleaved, capped: head, "[... N bytes dropped ...]", tail
    dropped_bytes: int
    tests: list[TestCase] = field(default_factory=list)
    error: str | None = None  # a sentence for a person when something beyond failing tests broke

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and self.error is None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "command": list(self.command),
            "exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "duration_s": self.duration_s,
            "output": self.output,
            "dropped_bytes": self.dropped_bytes,
            "tests": [test.to_json() for test in self.tests],
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckResult:
        exit_code = data.get("exit_code")
        return cls(
            name=str(data["name"]),
            command=[str(arg) for arg in data.get("command") or []],
            exit_code=None if exit_code is None else int(exit_code),
            timed_out=bool(data.get("timed_out")),
            duration_s=float(data.get("duration_s") or 0.0),
            output=str(data.get("output") or ""),
            dropped_bytes=int(data.get("dropped_bytes") or 0),
            tests=[TestCase.from_json(test) for test in data.get("tests") or []],
            error=data.get("error"),
        )


@dataclass
class TestReport:
    """The results of one run of all checks."""

    __test__ = False  # not a pytest test class, despite the name

    checks: list[CheckResult]

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def failing(self) -> list[str]:
        """Sorted ids of failed and errored tests, plus ``check:<name>`` for a failed check that
        names no failing test (ruff, a timeout, no tests collected, a crash outside any test)."""
        ids: set[str] = set()
        for check in self.checks:
            bad = [t.id for t in check.tests if t.outcome in ("failed", "error")]
            ids.update(bad)
            if not check.passed and not bad:
                ids.add(f"check:{check.name}")
        return sorted(ids)

    @property
    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(("passed", "failed", "error", "skipped"), 0)
        for check in self.checks:
            for test in check.tests:
                counts[test.outcome] = counts.get(test.outcome, 0) + 1
        return counts

    def summary(self) -> str:
        """One short line: ``12 passed, 2 failed``, then what else went wrong, if anything."""
        parts = [f"{n} {outcome}" for outcome, n in self.counts.items() if n]
        line = ", ".join(parts) if parts else "no test results"
        problems = []
        for check in self.checks:
            if check.passed:
                continue
            if check.error:
                problems.append(f"{check.name}: {check.error}")
            elif not any(t.outcome in ("failed", "error") for t in check.tests):
                problems.append(f"{check.name} failed (exit code {check.exit_code})")
        return "; ".join([line, *problems])

    def to_json(self) -> dict[str, Any]:
        """The report as JSON data; ``passed``, ``counts`` and ``failing`` are there for
        readers of the logs and are recomputed by :meth:`from_json`."""
        return {
            "passed": self.passed,
            "counts": self.counts,
            "failing": self.failing,
            "checks": [check.to_json() for check in self.checks],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TestReport:
        return cls(checks=[CheckResult.from_json(check) for check in data.get("checks") or []])


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
) -> CheckResult:
    """Run one check; every way it can go wrong ends up in the result, not in an exception.

    ``on_output(text)`` is called from a reader thread with output as it arrives (the first
    ``max_output_bytes`` of it, then one line saying the rest is not shown live). A
    ``KeyboardInterrupt`` while waiting kills the process group before it propagates.
    ``sandbox`` wraps the command (``read_only``: folders in the workspace it keeps read-only);
    the result names the command unwrapped. ``running``: the folder where the check's process
    group is recorded while it runs.
    """
    if max_output_bytes <= 0:
        raise ValueError("max_output_bytes must be positive")
    report_dir = report_dir.resolve()
    junit_path = report_dir / f"{_file_safe(spec.name)}.junit.xml"
    command = pin_config([_expand(arg, junit_path, workspace) for arg in spec.command], workspace)

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
        argv, preexec = (
            guarded(sandbox.wrap(command, workspace, [report_dir], read_only)),
            guard_with_parent,
        )
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            argv,
            cwd=workspace,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            shell=False,
            start_new_session=True,
            preexec_fn=preexec,
        )
    except FileNotFoundError:
        return not_started(f"command not found: {command[0]}")
    except PermissionError:
        return not_started(f"command is not executable: {command[0]}")
    except OSError as exc:
        return not_started(f"could not start {command[0]}: {exc.strerror or exc}")

    _RUNNING.add(process.pid)
    capture = _OutputCapture(max_output_bytes, on_output)
    assert process.stdout is not None
    reader = threading.Thread(
        target=capture.read_until_eof,
        args=(process.stdout.fileno(),),
        name=f"check-output-{spec.name}",
        daemon=True,
    )
    reader.start()
    try:
        with recorded(running, process.pid):
            try:
                exited = _wait_for_exit(process.pid, started + timeout_s)
            finally:
                # The main process has exited (still a zombie, so its pid names the group) or
                # it is being given up on: either way nothing of the group may live on.
                _kill_group(process.pid)
    finally:
        _RUNNING.discard(process.pid)
        process.wait()
        capture.stop(drain_s=_DRAIN_S)
        reader.join()
        process.stdout.close()
    duration = time.monotonic() - started

    output, dropped = capture.text()
    timed_out = not exited
    wants_report = "{junit}" in " ".join(spec.command)
    tests = parse_junit(junit_path, workspace) if wants_report else None
    if tests:
        tests = label_xpassed(tests, output)
    error = _error_for(command, process.returncode, timed_out, timeout_s)
    if wants_report and tests is None and process.returncode == 0 and not timed_out:
        error = _NO_REPORT
    return CheckResult(
        name=spec.name,
        command=command,
        exit_code=process.returncode,
        timed_out=timed_out,
        duration_s=duration,
        output=output,
        dropped_bytes=dropped,
        tests=tests or [],
        error=error,
    )


def _expand(arg: str, junit_path: Path, workspace: Path) -> str:
    return (
        arg.replace("{python}", sys.executable)
        .replace("{junit}", str(junit_path))
        .replace("{workspace}", str(workspace.resolve()))
    )


def _file_safe(name: str) -> str:
    return re.sub(r"[^\w.-]", "_", name) or "check"


def _wait_for_exit(pid: int, deadline: float) -> bool:
    """Wait until the process exits or the deadline passes; True if it exited.

    The process is left a zombie (``WNOWAIT``; a pidfd does not reap it either), so its pid,
    and so its process group id, cannot be reused by an unrelated process before the group
    is killed. A pidfd (Linux 5.3 and later) wakes this wait the moment the process exits;
    polling, where there is none, notices an exit up to :data:`_POLL_S` late, a lag that
    would be in every check's time.
    """
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):  # not Linux, or a kernel or seccomp policy without it
        return _poll_for_exit(pid, deadline)
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return bool(poller.poll(0))
            # In slices, so that a signal handled for the main thread (Ctrl+C, SIGTERM) runs
            # within one even when another thread took the signal.
            if poller.poll(math.ceil(min(remaining, _POLL_S) * 1000)):
                return True
    finally:
        os.close(pidfd)


def _poll_for_exit(pid: int, deadline: float) -> bool:
    """:func:`_wait_for_exit` without a pidfd: ask every few milliseconds, then every
    :data:`_POLL_S`."""
    delay = 0.001
    while True:
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
            return True
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, _POLL_S)


# Process groups of checks running right now, so a process that must leave at once
# (the TUI quitting mid-test) can take them down with it.
_RUNNING: set[int] = set()


def kill_running_checks() -> None:
    """Kill the process group of every check still running (from any thread)."""
    for pgid in list(_RUNNING):
        _kill_group(pgid)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass  # nothing left in the group (PermissionError: macOS, for a group of zombies)


def _error_for(
    command: list[str], exit_code: int | None, timed_out: bool, timeout_s: float
) -> str | None:
    if timed_out:
        return f"timed out after {timeout_s:g} s (the whole process group was killed)"
    if exit_code is not None and exit_code < 0:
        try:
            signal_name = signal.Signals(-exit_code).name
        except ValueError:
            signal_name = f"signal {-exit_code}"
        return f"{command[0]} was killed by {signal_name}"
    if exit_code is not None and is_pytest(command):
        return _PYTEST_EXIT_ERRORS.get(exit_code)
    return None


class _OutputCapture:
    """Collects a process's output from a pipe: the first and last bytes, and how many were
    dropped in between; forwards decoded text to a live callback."""

    def __init__(self, max_bytes: int, on_output: Callable[[str], None] | None) -> None:
        self._head_cap = max_bytes // 2
        self._tail_cap = max_bytes - self._head_cap
        self._stream_cap = max_bytes
        self._head = bytearray()
        self._tail = bytearray()
        self._total = 0
        self._streamed = 0
        self._stream_ended = False
        self._on_output = on_output
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._stopping = threading.Event()
        self._drain_deadline = 0.0

    def read_until_eof(self, fd: int) -> None:
        """Reader thread: read until end of file, or until told to stop and nothing is left."""
        poller = select.poll()  # not select.select: it fails on descriptors above 1023
        poller.register(fd, select.POLLIN)
        while True:
            ready = poller.poll(_POLL_S * 1000)
            if ready:
                data = os.read(fd, _READ_CHUNK)
                if not data:
                    return
                self._keep(data)
                self._stream(data)
            if self._stopping.is_set() and (not ready or time.monotonic() > self._drain_deadline):
                return

    def stop(self, drain_s: float) -> None:
        self._drain_deadline = time.monotonic() + drain_s
        self._stopping.set()

    def text(self) -> tuple[str, int]:
        """The kept output and the number of bytes dropped from its middle."""
        dropped = self._total - len(self._head) - len(self._tail)
        if not dropped:
            return (self._head + self._tail).decode("utf-8", errors="replace"), 0
        head = self._head.decode("utf-8", errors="replace")
        tail = self._tail.decode("utf-8", errors="replace")
        return f"{head}\n[... {dropped} bytes dropped ...]\n{tail}", dropped

    def _keep(self, data: bytes) -> None:
        self._total += len(data)
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if data:
            self._tail += data
            excess = len(self._tail) - self._tail_cap
            if excess > 0:
                del self._tail[:excess]

    def _stream(self, data: bytes) -> None:
        if self._on_output is None or self._stream_ended:
            return
        room = self._stream_cap - self._streamed
        text = self._decoder.decode(data[:room])
        self._streamed += min(len(data), room)
        if len(data) > room:
            text += f"\n[... output beyond {self._stream_cap} bytes is not shown live ...]\n"
            self._stream_ended = True
        try:
            if text:
                self._on_output(text)
        except Exception:
            # A broken display must not stop the draining of the pipe (the check would block on
            # a full pipe and time out); the output is still captured.
            log.exception("live output callback failed; no more output is shown live")
            self._on_output = None
