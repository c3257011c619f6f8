"""kill -9 the installed ``orch-tui`` at random moments; the same command must finish cleanly.

Each run is killed once or twice, at a seeded random point: either a random delay after the
start, or a random delay after ``state.json`` first shows a chosen step (so kills land in
every state, including mid-stream through the fake server), or, in the TUI, while the review's
trial run has its check running. Then the same command runs to the end. Every time:
``state.json`` parses whenever it exists, the rerun exits 0, the run is the same run (one
folder in ``logs/``), the workspace is exactly the expected project with the patch's appended
line there once (no lost or doubled edit), no process of the run is left (after each kill as
well), and no temp file is left behind: none in the project folder, nothing at all in the
temporary folder (each project has its own, ``TMPDIR``: trial copies, the checks' report folders).

The campaign is split into several tests so that pytest-xdist spreads it over the workers.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from orch_tui.core.checks.leftovers import trial_prefix
from orch_tui.core.runlog.reader import read_events
from tests.support.e2e_support import (
    FAST_CONFIG,
    Project,
    assert_clean_exit,
    attempt_turns,
    make_project,
    orch_tui,
    write_attempts_script,
)
from tests.support.fake_anthropic import FakeAnthropic, Turn
from tests.support.tui_support import TmuxTui

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
SLOW_CHECK = CHECK.replace("time.sleep(0.15)", "time.sleep(1.5)")
"""The check of the trial run test: a kill lands surely while it runs."""


def attempts_with(check: str) -> list[list[Turn]]:
    return [
        attempt_turns(
            "Writing app.py.", [("create", "app.py", FIRST_APP), ("create", "check.py", check)]
        ),
        attempt_turns(
            "Appending b.", [("str_replace", "app.py", '    "a",\n', '    "a",\n    "b",\n')]
        ),
    ]


ATTEMPTS = attempts_with(CHECK)
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
            assert_no_process_left(project)
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

    finish_and_check(project, extra_args)


def finish_and_check(project: Project, extra_args: Sequence[str], check: str = CHECK) -> None:
    """Run the same command to the end; the project must be exactly as if nothing was killed."""
    result = project.run_auto(*extra_args, timeout=60)

    assert_clean_exit(result, 0)
    assert project.workspace_files() == {"app.py": FINAL_APP, "check.py": check}
    assert project.workspace_files()["app.py"].count('"b"') == 1
    assert len(project.run_dirs()) == 1, "a killed run must resume, not start over"
    (run_dir,) = project.run_dirs()
    assert read_events(run_dir / "events.jsonl").problems == []  # a torn line lost no event
    state = read_state(project)
    assert state is not None and (state["state"], state["attempt"]) == ("SUCCESS", 1)
    assert_no_process_left(project)
    assert leftover_files(project) == []


TEMP_NAME = re.compile(r"\..+\.([a-z0-9_]{8}\.tmp|[0-9a-f]{8}\.orch-tmp)")
"""Temp files of atomic writes (``core.atomic``) and of applying a change (``core.workspace``)."""


def crash_project(root: Path, **kw: Any) -> Project:
    """A project whose runs have a temporary folder of their own, beside it."""
    project = make_project(root, spec_text=SPEC, config=CRASH_CONFIG, **kw)
    own_temp = root.with_name(root.name + "-tmp")
    own_temp.mkdir()
    project.env["TMPDIR"] = str(own_temp)
    return project


def leftover_files(project: Project) -> list[str]:
    """Temp files in the project folder, and whatever its runs left in their temporary folder."""
    temps = [str(p) for p in project.root.rglob("*") if TEMP_NAME.fullmatch(p.name)]
    own_temp = Path(project.env["TMPDIR"])
    return sorted([*temps, *map(str, own_temp.iterdir())])


def processes_of(project: Project) -> list[str]:
    """Processes that name the project (or a trial copy of it) in their command line or cwd."""
    marks = (str(project.root), trial_prefix(project.workspace))
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(entry / "cwd")
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if cmdline and any(mark in cmdline or mark in cwd for mark in marks):
            found.append(f"{entry.name}: {cmdline}")
    return found


def assert_no_process_left(project: Project, within_s: float = 10) -> None:
    """After a kill -9, every process of the run goes (a parent-death signal is delivered at
    once; the wait only lets the kernel finish); an orphan stays and fails this."""
    deadline = time.monotonic() + within_s
    while (left := processes_of(project)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert left == [], f"orphans of a killed orch-tui: {left}"


def run_crash_series(
    tmp_path: Path, runs: int, seed: int, extra_args: Sequence[str], **kw: Any
) -> set[str]:
    rng = random.Random(seed)
    seen: set[str] = set()
    for number in range(runs):
        project = crash_project(tmp_path / f"run-{number:02d}", **kw)
        crash_and_finish(project, extra_args, rng, seen)
    return seen


def scripted_args(tmp_path: Path, attempts: list[list[Turn]] = ATTEMPTS) -> list[str]:
    script = write_attempts_script(tmp_path / "script.json", attempts)
    return ["--provider", "scripted", "--script", str(script)]


@pytest.mark.parametrize("seed", [20261121, 11])
def test_kill_9_at_random_moments_with_the_scripted_provider(tmp_path, seed):
    seen = run_crash_series(tmp_path, runs=7, seed=seed, extra_args=scripted_args(tmp_path))

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


def orch_tui_pid(tui: TmuxTui) -> int:
    """The orch-tui process in the tmux pane (a child of the pane's shell)."""
    shell = int(tui.tmux("list-panes", "-t", "orch", "-F", "#{pane_pid}").split()[0])
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except (OSError, ValueError):
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == shell:
            return int(entry.name)
    raise AssertionError("no orch-tui under the tmux pane")


def wait_for_trial_check(tui: TmuxTui, project: Project) -> None:
    """Wait until the trial run's check runs in a trial copy, pressing ``t`` at most once.

    In the sandbox the trial starts by itself; ``t`` would stop it and start another, so it
    is pressed only when no trial showed, and never again: a second press could stop the
    trial whose check was just seen, and the kill would land between two trials.
    """
    mark = trial_prefix(project.workspace)

    def check_running() -> bool:
        return any(mark in line and "check.py" in line for line in processes_of(project))

    for press in (False, True):
        if press:
            tui.keys("t")
        deadline = time.monotonic() + (5 if not press else 60)
        while time.monotonic() < deadline:
            if check_running():
                return
            time.sleep(0.002)
    raise AssertionError(f"the trial run's check never showed:\n{tui.screen()}")


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_kill_9_of_the_tui_during_a_trial_run(tmp_path):
    """The review screen's trial run (a scratch copy with its own check) killed mid-check."""
    args = scripted_args(tmp_path, attempts_with(SLOW_CHECK))
    project = crash_project(tmp_path / "project")
    rng = random.Random(20261123)
    tui = TmuxTui(project.root, project.env)
    try:
        for _ in range(3):
            tui.start([orch_tui(), str(project.spec), *args])
            tui.wait_for("REVIEWING", "app.py")
            pid = orch_tui_pid(tui)
            wait_for_trial_check(tui, project)
            time.sleep(rng.uniform(0.0, 0.5))
            os.kill(pid, signal.SIGKILL)
            assert tui.wait_for_exit() == 128 + signal.SIGKILL
            assert_no_process_left(project)
            assert leftover_files(project), "the kill landed in the trial: its copy is left"
    finally:
        tui.close()

    finish_and_check(project, args, check=SLOW_CHECK)  # its start removes the trial copy


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_closing_the_terminal_mid_review_ends_orch_tui_at_once_and_the_run_resumes(tmp_path):
    """The terminal goes away (tmux closes the pane's pty: SIGHUP): nothing can be shown or
    restored, so orch-tui ends at once, its lock with it, and the same command resumes."""
    args = scripted_args(tmp_path)
    project = crash_project(tmp_path / "project")
    tui = TmuxTui(project.root, project.env)
    try:
        tui.start([orch_tui(), str(project.spec), *args])
        tui.wait_for("REVIEWING", "app.py")
        pid = orch_tui_pid(tui)
        tui.tmux("kill-session", "-t", "orch")
        deadline = time.monotonic() + 5
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        alive = Path(f"/proc/{pid}").exists()
    finally:
        tui.close()

    assert not alive, "orch-tui outlived its terminal"
    assert json.loads((project.root / "state.json").read_text())["state"] == "REVIEWING"
    finish_and_check(project, args)
