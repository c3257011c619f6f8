"""kill -9 the installed ``orch-tui --auto`` at random moments; the same command must finish.

Each run is killed once or twice, at a seeded random point: either a random delay after the
start, or a random delay after ``state.json`` first shows a chosen step (so kills land in
every state, including mid-stream through the fake server). Then the same command runs to the
end. Every time: ``state.json`` parses whenever it exists, the rerun exits 0, the run is the
same run (one folder in ``logs/``), and the workspace is exactly the expected project, with
the patch's appended line there once.
"""

from __future__ import annotations

import json
import random
import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_support import (
    FAST_CONFIG,
    Project,
    assert_clean_exit,
    attempt_turns,
    make_project,
    write_attempts_script,
)
from tests.fake_anthropic import FakeAnthropic, Turn

pytestmark = pytest.mark.e2e

SPEC = "# items\n\n`app.py` holds `ITEMS`, the letters a and b, one per line.\n"
FAILURE_MARK = "NEEDS_B"
CHECK = f"""\
import time

time.sleep(0.15)  # a test that takes a moment, so kills land while it runs
from app import ITEMS

raise SystemExit(0 if ITEMS == ["a", "b"] else "ITEMS is " + repr(ITEMS) + ": {FAILURE_MARK}")
"""
FIRST_APP = 'ITEMS = [\n    "a",\n]\n'
FINAL_APP = 'ITEMS = [\n    "a",\n    "b",\n]\n'
EXPECTED = {"app.py": FINAL_APP, "check.py": CHECK}
ATTEMPTS = [
    attempt_turns(
        "Writing app.py.", [("create", "app.py", FIRST_APP), ("create", "check.py", CHECK)]
    ),
    attempt_turns(
        "Appending b.", [("str_replace", "app.py", '    "a",\n', '    "a",\n    "b",\n')]
    ),
]
CRASH_CONFIG = FAST_CONFIG.replace(
    "[checks]\n", '[checks]\ntest_command = ["{python}", "check.py"]\n'
)

STEP_ORDER = {
    "INIT": 0, "GENERATING": 1, "PATCHING": 1, "REVIEWING": 2, "TESTING": 3, "SUCCESS": 4,
    "FAILED": 4,
}  # fmt: skip
KILL_TARGETS = (None, 1, 2, 3, 11, 12, 13)
"""Where to kill: ``None`` a random delay after the start, else ``attempt * 10 + step``."""


def read_state(project: Project) -> dict[str, Any] | None:
    """state.json, which must parse whenever it exists (it is replaced atomically)."""
    try:
        text = project.state_path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return json.loads(text)


def progress(state: dict[str, Any] | None) -> int:
    if state is None:
        return -1
    return state["attempt"] * 10 + STEP_ORDER[state["state"]]


def kill_at_random(
    project: Project, args: Sequence[str], rng: random.Random, seen: set[str]
) -> int | None:
    """Start the command, kill -9 it at a random point; its exit code if it finished first."""
    target = rng.choice(KILL_TARGETS)
    process = project.start(*args)
    try:
        if target is None:
            time.sleep(rng.uniform(0.0, 0.6))
        else:
            deadline = time.monotonic() + 30
            while process.poll() is None and time.monotonic() < deadline:
                if progress(read_state(project)) >= target:
                    break
                time.sleep(0.003)
            time.sleep(rng.uniform(0.0, 0.08))
        if process.poll() is None:
            state = read_state(project)
            seen.add(state["state"] if state else "(none)")
            process.send_signal(signal.SIGKILL)
            process.wait()
            return None
        return process.returncode
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def crash_and_finish(
    project: Project, extra_args: Sequence[str], rng: random.Random, seen: set[str]
) -> None:
    command = [str(project.spec), "--auto", *extra_args]
    for _ in range(rng.choice((1, 1, 2))):
        finished = kill_at_random(project, command, rng, seen)
        read_state(project)  # parses, or is absent
        if finished is not None:
            assert finished == 0, (project.root / "stderr.txt").read_text()

    result = project.run_auto(*extra_args, timeout=60)

    assert_clean_exit(result, 0)
    assert project.workspace_files() == EXPECTED
    assert project.workspace_files()["app.py"].count('"b"') == 1
    assert len(project.run_dirs()) == 1, "a killed run must resume, not start over"
    state = read_state(project)
    assert state is not None and (state["state"], state["attempt"]) == ("SUCCESS", 1)


def run_crash_series(
    tmp_path: Path, runs: int, seed: int, extra_args: Sequence[str], **kw: Any
) -> set[str]:
    rng = random.Random(seed)
    seen: set[str] = set()
    for number in range(runs):
        project = make_project(
            tmp_path / f"run-{number:02d}", spec_text=SPEC, config=CRASH_CONFIG, **kw
        )
        crash_and_finish(project, extra_args, rng, seen)
    return seen


def test_kill_9_at_random_moments_with_the_scripted_provider(tmp_path):
    script = write_attempts_script(tmp_path / "script.json", ATTEMPTS)
    args = ["--provider", "scripted", "--script", str(script)]

    seen = run_crash_series(tmp_path, runs=26, seed=20261121, extra_args=args)

    print(f"states killed in: {sorted(seen)}")


def answer(body: dict[str, Any]) -> Turn:
    """The fake model: which attempt and turn the request is, from its own messages."""
    patching = FAILURE_MARK in json.dumps(body["messages"][0])
    turn = sum(1 for message in body["messages"] if message["role"] == "assistant")
    return ATTEMPTS[1 if patching else 0][turn]


def test_kill_9_at_random_moments_through_the_fake_server(tmp_path):
    with FakeAnthropic(answer, event_delay_s=0.01) as fake:
        seen = run_crash_series(tmp_path, runs=5, seed=7, extra_args=[], fake_url=fake.url)

    print(f"states killed in: {sorted(seen)}")
