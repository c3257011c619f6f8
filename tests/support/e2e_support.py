"""Helpers for end-to-end tests: the installed ``orch-tui`` in a throwaway project folder.

The tests run the console script found on PATH (what ``pip install .`` put there), never
the source tree, so they check what a user gets. Each project folder gets its own
``orchestrator.toml`` that keeps SDK retries and timeouts short and runs the checks with this
interpreter, its pytest plugins not auto-loaded (a second per run, saved).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.fake_anthropic import Turn, item_to_json

REPO_ROOT = Path(__file__).resolve().parents[2]
DEMO_DIR = REPO_ROOT / "core" / "demo"
TEST_KEY = "test-key"

FAST_CONFIG = f"""\
[model]
max_retries_sdk = 2
timeout_seconds = 15
stream_retries = 1

[checks]
timeout_seconds = 60
env_allow = ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
python = {json.dumps(sys.executable)}
"""
"""SDK retries that finish in milliseconds (the fake asks for 10 ms back-off), short timeouts,
and checks run by this interpreter: no project ``.venv`` to make (seconds) in every test."""

IGNORED_NAMES = frozenset({"__pycache__", ".pytest_cache", ".benchmarks", ".hypothesis", ".venv"})
"""Tool caches and the project's environment a run may leave in a workspace; not part of the
generated project."""


def orch_tui() -> str:
    """The installed console script; fails the test with the fix when it is missing."""
    found = shutil.which("orch-tui")
    if found is None:
        pytest.fail(
            "the orch-tui command is not on PATH: install the project first "
            "(`pip install .`, or `pip install -e .` while developing)",
            pytrace=False,
        )
    return found


def child_env(fake_url: str | None = None, key: str | None = TEST_KEY) -> dict[str, str]:
    """Our environment without any ANTHROPIC_* variable, pointed at ``fake_url`` with ``key``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    env["PYTHONFAULTHANDLER"] = "1"  # a hung orch-tui told to abort prints every thread's stack
    if fake_url is not None:
        env["ANTHROPIC_BASE_URL"] = fake_url
    if key is not None:
        env["ANTHROPIC_API_KEY"] = key
    return env


def tree_files(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (relative posix path → text), tool caches left out."""
    if not folder.is_dir():
        return {}
    files = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if IGNORED_NAMES.intersection(relative.parts) or not path.is_file():
            continue
        files[relative.as_posix()] = path.read_text(encoding="utf-8")
    return files


def write_tree(folder: Path, files: Mapping[str, str]) -> None:
    for relative, text in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def attempt_turns(text: str, edits: Iterable[tuple[Any, ...]]) -> list[Turn]:
    """One whole attempt: a turn of editor calls, then a closing turn."""
    return [Turn.edits(text, edits), Turn.say("Done.")]


def write_attempts_script(path: Path, attempts: Sequence[Sequence[Turn]]) -> Path:
    """A script for ``--provider scripted --script FILE``: the same turns the fake would serve."""
    data = {"attempts": [[item_to_json(turn) for turn in turns] for turns in attempts]}
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def first_requests(bodies: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The request bodies that open an attempt (a single user message): one per model attempt."""
    return [body for body in bodies if len(body["messages"]) == 1]


def _ctrl_c_as_in_a_terminal() -> None:
    """In the child: SIGINT back to its default, as for a command typed at a terminal.

    A suite started in the background by a non-interactive shell (``pytest &``, as CI runners
    and scripts do) inherits SIGINT *ignored*, and Python keeps an ignored SIGINT ignored, so
    orch-tui would never see the Ctrl+C these tests send.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@dataclass
class Project:
    """A project folder (``orchestrator.toml``, spec, later state, workspace and logs)."""

    root: Path
    spec: Path
    env: dict[str, str]

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    @property
    def state_path(self) -> Path:
        return self.root / "state.json"

    def command(self, *args: str) -> list[str]:
        return [orch_tui(), *args]

    def run(
        self, *args: str, env: Mapping[str, str] | None = None, timeout: float = 90
    ) -> subprocess.CompletedProcess[str]:
        """Run ``orch-tui ARGS`` here to the end, capturing stdout and stderr."""
        return subprocess.run(
            self.command(*args),
            cwd=self.root,
            env=dict(env if env is not None else self.env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def run_auto(self, *args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
        """``orch-tui SPEC --auto ARGS``."""
        return self.run(str(self.spec), "--auto", *args, timeout=timeout)

    def start(self, *args: str) -> subprocess.Popen[str]:
        """Start ``orch-tui ARGS`` here without waiting; output goes to files under the root."""
        out = (self.root / "stdout.txt").open("a", encoding="utf-8")
        err = (self.root / "stderr.txt").open("a", encoding="utf-8")
        with out, err:
            return subprocess.Popen(
                self.command(*args),
                cwd=self.root,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                text=True,
                preexec_fn=_ctrl_c_as_in_a_terminal,
            )

    def signal_once(self, flag: Path, sig: int, *args: str) -> int:
        """Start ``orch-tui ARGS``, send ``sig`` once ``flag`` exists; returns the exit code."""
        process = self.start(*args)
        try:
            deadline = time.monotonic() + 60
            while not flag.exists() and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert flag.exists(), (self.root / "stdout.txt").read_text()
            process.send_signal(sig)
            try:
                return process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.send_signal(signal.SIGABRT)  # the fault handler dumps the stacks
                process.wait(timeout=10)
                stderr = (self.root / "stderr.txt").read_text()
                raise AssertionError(f"orch-tui did not stop after {sig!r}:\n{stderr}") from None
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()

    def state(self) -> dict[str, Any] | None:
        if not self.state_path.exists():
            return None
        return json.loads(self.state_path.read_text(encoding="utf-8"))

    def workspace_files(self) -> dict[str, str]:
        return tree_files(self.workspace)

    def run_dirs(self) -> list[Path]:
        logs = self.root / "logs"
        return sorted(p for p in logs.iterdir() if p.is_dir()) if logs.is_dir() else []

    def run_dir(self) -> Path:
        """The log folder of the only run here."""
        runs = self.run_dirs()
        assert len(runs) == 1, f"expected one run in logs/, found {[p.name for p in runs]}"
        return runs[0]

    def attempt_dir(self, attempt: int) -> Path:
        return self.run_dir() / f"attempt-{attempt:02d}"

    def events(self) -> list[dict[str, Any]]:
        lines = (self.run_dir() / "events.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines]


def make_project(
    root: Path,
    *,
    spec_text: str,
    fake_url: str | None = None,
    key: str | None = TEST_KEY,
    config: str = FAST_CONFIG,
) -> Project:
    """A project folder at ``root`` with ``spec.md`` and ``orchestrator.toml`` written."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "orchestrator.toml").write_text(config, encoding="utf-8")
    spec = root / "spec.md"
    spec.write_text(spec_text, encoding="utf-8")
    return Project(root=root, spec=spec, env=child_env(fake_url, key))


def assert_clean_exit(result: subprocess.CompletedProcess[str], code: int) -> None:
    """The process exited with ``code`` and printed no Python traceback."""
    output = result.stdout + result.stderr
    assert result.returncode == code, f"exit {result.returncode}, wanted {code}:\n{output}"
    assert "Traceback" not in output, output
