"""The notify command gets no secrets and leaves nothing running (issue 22, item 6)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from orch_tui.core.config.models import NotifyConfig
from orch_tui.core.domain.events import RunFinished
from orch_tui.core.domain.state import RunState
from orch_tui.core.loop import notify
from orch_tui.core.loop.notify import Notifier

SECRETS = {
    "AWS_SECRET_ACCESS_KEY": "aws-secret-value",
    "AWS_ACCESS_KEY_ID": "AKIAEXAMPLEEXAMPLE12",
    "GITHUB_TOKEN": "ghp_exampleexampleexample",
    "OPENAI_API_KEY": "sk-openai-secret",
    "ANTHROPIC_API_KEY": "sk-ant-secret",
    "MY_SERVICE_PASSWORD": "hunter2hunter2",
}


def finished() -> RunFinished:
    return RunFinished(
        state=RunState.FAILED,
        attempt=0,
        stop_reason="no progress",
        retryable=False,
        exit_code=1,
        tokens=1,
        cost_usd=0.0,
    )


def run_command(tmp_path: Path, code: str) -> None:
    command = [sys.executable, "-c", code, str(tmp_path)]
    Notifier(NotifyConfig(bell=False, desktop=False, command=command), interactive=True)(finished())


def test_the_command_gets_no_key_no_aws_and_no_github_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANG", "C.UTF-8")

    run_command(
        tmp_path,
        "import json, os, sys; open(sys.argv[1] + '/env.json', 'w').write(json.dumps(dict(os.environ)))",
    )

    env = json.loads((tmp_path / "env.json").read_text())
    assert not set(SECRETS) & set(env)
    assert not set(SECRETS.values()) & set(env.values())
    assert env["ORCH_STATE"] == "FAILED" and env["LANG"] == "C.UTF-8"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].startswith("Z")


def wait_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


SPAWN_CHILD = (
    "import subprocess, sys; "
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)']); "
    "open(sys.argv[1] + '/child.pid', 'w').write(str(child.pid))"
)


def test_a_child_the_command_leaves_behind_dies_with_it(tmp_path: Path) -> None:
    run_command(tmp_path, SPAWN_CHILD)

    assert wait_gone(int((tmp_path / "child.pid").read_text()))


def test_a_command_past_its_timeout_is_killed_with_its_children(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(notify._run, "__defaults__", (1.0,))
    started = time.monotonic()

    run_command(tmp_path, SPAWN_CHILD + "; import time; time.sleep(300)")

    assert time.monotonic() - started < 10
    assert wait_gone(int((tmp_path / "child.pid").read_text()))
