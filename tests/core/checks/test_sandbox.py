"""Checks under bubblewrap: real bwrap, real processes, what a hostile test tries.

Each attack is a check command (a Python one-liner) that reports what it managed to do; the
same command without the sandbox shows the attack is real. The tests skip, saying why, only
where bubblewrap cannot run.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from orch_tui.core.checks.runner import CheckResult, CheckSpec, run_check
from orch_tui.core.checks.sandbox import NO_SANDBOX, Sandbox, SandboxError, resolve_sandbox
from tests.support.e2e_support import (
    FAST_CONFIG,
    Project,
    assert_clean_exit,
    attempt_turns,
    write_attempts_script,
)

BWRAP = resolve_sandbox("auto")
needs_bwrap = pytest.mark.skipif(
    not BWRAP.confined, reason=f"bubblewrap cannot run here: {BWRAP.why}"
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


def attack(script: str, workspace: Path, sandbox: Sandbox, *args: str) -> CheckResult:
    spec = CheckSpec("attack", [sys.executable, "-c", script, *args])
    return run_check(
        spec, workspace, workspace.parent / "reports", timeout_s=60, max_output_bytes=100_000,
        sandbox=sandbox,
    )  # fmt: skip


CONNECT = """\
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
    print("CONNECTED")
except OSError as exc:
    print("REFUSED", exc)
"""


@needs_bwrap
def test_a_sandboxed_check_cannot_reach_a_port_on_127_0_0_1(workspace: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = str(server.getsockname()[1])
        assert "CONNECTED" in attack(CONNECT, workspace, NO_SANDBOX, port).output
        result = attack(CONNECT, workspace, BWRAP, port)
    assert "REFUSED" in result.output and "CONNECTED" not in result.output


SEE_PARENT = """\
import os, sys
pid = int(sys.argv[1])
try:
    os.kill(pid, 0)
    print("SEES", open(f"/proc/{pid}/cmdline", "rb").read()[:40])
except ProcessLookupError:
    print("HIDDEN")
"""


@needs_bwrap
def test_a_sandboxed_check_cannot_see_the_orchestrator_process(workspace: Path) -> None:
    me = str(os.getpid())
    assert "SEES" in attack(SEE_PARENT, workspace, NO_SANDBOX, me).output
    assert "HIDDEN" in attack(SEE_PARENT, workspace, BWRAP, me).output


WRITE = """\
import sys
from pathlib import Path
for target in sys.argv[1:]:
    try:
        Path(target).write_text("pwned")
        print("WROTE", target)
    except OSError as exc:
        print("DENIED", target, exc.strerror)
Path("inside.txt").write_text("ok")
"""


@needs_bwrap
def test_a_sandboxed_check_writes_only_its_workspace_and_its_own_tmp(
    workspace: Path, tmp_path: Path
) -> None:
    token = uuid.uuid4().hex
    home = Path.home() / f"orch-sandbox-{token}"
    here = Path.cwd() / f"orch-sandbox-{token}"  # the repository: writable for us
    in_tmp = Path("/tmp") / f"orch-sandbox-{token}"
    beside = tmp_path / "beside-the-workspace.txt"
    targets = [home, here, in_tmp, beside]
    try:
        result = attack(WRITE, workspace, BWRAP, *map(str, targets))
        assert f"DENIED {home}" in result.output
        if not here.is_relative_to("/tmp"):  # a clone under /tmp is inside the private /tmp
            assert f"DENIED {here}" in result.output
        # Writes under /tmp land in the check's private /tmp and vanish with it.
        assert [target for target in targets if target.exists()] == []
        assert (workspace / "inside.txt").read_text() == "ok"
    finally:
        for target in targets:
            target.unlink(missing_ok=True)


@needs_bwrap
def test_a_read_only_folder_in_the_workspace_stays_read_only(workspace: Path) -> None:
    venv = workspace / ".venv"
    venv.mkdir()
    target = venv / "lib" / "evil.pth"
    (venv / "lib").mkdir()
    spec = CheckSpec("attack", [sys.executable, "-c", WRITE, str(target)])
    result = run_check(
        spec, workspace, workspace.parent / "reports", timeout_s=60, max_output_bytes=100_000,
        sandbox=BWRAP, read_only=[venv],
    )  # fmt: skip
    assert f"DENIED {target}" in result.output and not target.exists()
    assert (workspace / "inside.txt").read_text() == "ok"  # the rest stays writable


ESCAPE = """\
import os, subprocess, sys
subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(120)", sys.argv[1]],
    start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)
print("SPAWNED")
"""


def processes_with(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if token.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@needs_bwrap
def test_a_setsid_child_of_a_passing_sandboxed_check_does_not_survive(workspace: Path) -> None:
    token = f"orch-escape-{uuid.uuid4().hex}"

    result = attack(ESCAPE, workspace, BWRAP, token)

    assert result.passed and "SPAWNED" in result.output
    assert processes_with(token) == []  # gone when the check has ended: its sandbox is empty


@needs_bwrap
def test_the_junit_report_folder_stays_writable_in_the_sandbox(workspace: Path) -> None:
    script = "import sys; open(sys.argv[1], 'w').write('<testsuite><testcase classname=\"t\" name=\"a\"/></testsuite>')"
    spec = CheckSpec("tests", [sys.executable, "-c", script, "{junit}"])

    result = run_check(
        spec, workspace, workspace.parent / "reports", timeout_s=60, max_output_bytes=10_000,
        sandbox=BWRAP,
    )  # fmt: skip

    assert result.passed and [t.outcome for t in result.tests] == ["passed"]


def test_bwrap_required_but_missing_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from orch_tui.core.checks import sandbox

    sandbox._probe_bwrap.cache_clear()
    monkeypatch.setenv("PATH", "/nonexistent")
    try:
        with pytest.raises(SandboxError, match='checks.sandbox is "bwrap" but bwrap is not on'):
            resolve_sandbox("bwrap")
        fallback = resolve_sandbox("auto")
        assert not fallback.confined and "bubblewrap" in fallback.why
    finally:
        sandbox._probe_bwrap.cache_clear()


def without_bwrap(tmp_path: Path) -> str:
    """A PATH holding only python (for checks) and orch-tui: no bwrap."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    return str(bin_dir)


APP = "def add(a, b):\n    return a + b\n"
APP_TEST = "from app import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def run_calc(project: Project, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``orch-tui --auto`` with a scripted model writing a passing calc project."""
    edits = [("create", "app.py", APP), ("create", "tests/test_app.py", APP_TEST)]
    script = write_attempts_script(tmp_path / "script.json", [attempt_turns("Writing.", edits)])
    return project.run_auto("--provider", "scripted", "--script", str(script))


@needs_bwrap
def test_the_auto_line_run_log_and_status_say_which_sandbox_is_in_force(
    project_factory, tmp_path: Path
) -> None:
    project = project_factory(spec_text="# calc\n\n`add(a, b)` in app.py.\n")

    result = run_calc(project, tmp_path)

    assert_clean_exit(result, 0)
    assert "sandbox bwrap" in result.stdout.splitlines()[0]
    run_meta = json.loads((project.run_dir() / "run.json").read_text(encoding="utf-8"))
    assert run_meta["sandbox"] == "bwrap"
    started = next(e for e in project.events() if e["event"] == "run_started")
    assert started["sandbox"] == "bwrap"
    status = project.run("status")
    assert_clean_exit(status, 0)
    assert "sandbox   bwrap (no network" in status.stdout


def test_sandbox_auto_without_bubblewrap_runs_unconfined_with_a_notice(
    project_factory, tmp_path: Path
) -> None:
    project = project_factory(spec_text="# calc\n\n`add(a, b)` in app.py.\n")
    project.env["PATH"] = without_bwrap(tmp_path)

    result = run_calc(project, tmp_path)

    assert_clean_exit(result, 0)
    assert "sandbox none" in result.stdout.splitlines()[0]
    assert "note: checks run without a sandbox: bwrap is not on the PATH" in result.stdout


def test_sandbox_bwrap_without_bubblewrap_refuses_to_start_naming_the_key(
    project_factory, tmp_path: Path
) -> None:
    config = FAST_CONFIG.replace("[checks]\n", '[checks]\nsandbox = "bwrap"\n')
    project = project_factory(spec_text="# calc\n", config=config)
    env = {**project.env, "PATH": without_bwrap(tmp_path)}

    result = project.run(str(project.spec), "--auto", "--provider", "scripted", env=env)

    assert_clean_exit(result, 1)
    assert 'checks.sandbox is "bwrap" but bwrap is not on the PATH' in result.stderr
    assert "apt-get install bubblewrap" in result.stderr
    assert project.state() is None


@needs_bwrap
def test_an_interpreter_in_an_environment_under_tmp_stays_visible(workspace: Path) -> None:
    """CI may make its virtualenv under /tmp, which the sandbox's private /tmp would hide."""
    env = workspace.parent / "env"
    (env / "bin").mkdir(parents=True)
    (env / "bin" / "python").symlink_to(sys.executable)
    command = [str(env / "bin" / "python"), "-c", "print('ran')"]

    result = subprocess.run(
        BWRAP.wrap(command, workspace), capture_output=True, text=True, timeout=60
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ran"


def test_the_early_probe_is_the_one_resolve_sandbox_answers_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--auto`` starts bubblewrap's probe while its modules load; resolving the sandbox then
    waits for that probe instead of starting another, and answers as a probe of its own would."""
    from orch_tui.core.checks import sandbox

    sandbox._probe_bwrap.cache_clear()
    expected = resolve_sandbox("auto")
    sandbox._probe_bwrap.cache_clear()
    started: list[list[str]] = []
    real_run = sandbox.subprocess.run

    def counted(command, **kwargs):
        started.append(command)
        return real_run(command, **kwargs)

    monkeypatch.setattr(sandbox.subprocess, "run", counted)
    monkeypatch.setattr(sandbox, "_early_probe", None)
    try:
        sandbox.probe_early()
        sandbox.probe_early()  # once per process
        assert resolve_sandbox("auto") == expected
        assert len(started) == (1 if shutil.which("bwrap") else 0)
    finally:
        sandbox._probe_bwrap.cache_clear()
