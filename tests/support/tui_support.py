"""Helpers for the TUI's Pilot and tmux tests: a small project, scripted model turns, waiting.

The project is a buggy ``calc.py`` in the workspace and a spec asking for a working one. The
model's first attempt fixes both bugs (two hunks in ``calc.py``) and adds a test file (one
hunk), so a review has three hunks over two files: ``calc.py`` #0, #1, ``tests/test_calc.py``.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest
from textual.app import App
from textual.screen import Screen

from orch_tui.core.config.models import Config, load_config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.spec import Spec, read_spec
from orch_tui.core.loop.engine import RunOptions
from orch_tui.core.providers.base import Provider
from orch_tui.core.providers.scripted import ScriptedProvider
from orch_tui.tui.app import OrchApp, RunRequest
from orch_tui.tui.screens.history.run import RunScreen
from orch_tui.tui.screens.history.runs_list import RunsScreen
from orch_tui.tui.screens.review.screen import ReviewScreen
from orch_tui.tui.screens.review.trial import TRIAL_RUNNING
from tests.support.e2e_support import attempt_turns, write_attempts_script, write_tree
from tests.support.fake_anthropic import Turn

SPEC_TEXT = """\
# calc

A tiny calculator module, `calc.py`:

- `add(a, b)` returns the sum.
- `mul(a, b)` returns the product.
- Tests with pytest under `tests/`.
"""

CALC_BUGGY = '''\
"""A tiny calculator."""


def add(a, b):
    return a - b


def sub(a, b):
    return a - b


def div(a, b):
    return a / b


def mul(a, b):
    return a + b
'''

CALC_TESTS = """\
from calc import add, mul


def test_add():
    assert add(2, 3) == 5


def test_mul():
    assert mul(2, 3) == 6
"""

FIX_ADD = (
    "str_replace",
    "calc.py",
    "def add(a, b):\n    return a - b",
    "def add(a, b):\n    return a + b",
)
FIX_MUL = (
    "str_replace",
    "calc.py",
    "def mul(a, b):\n    return a + b",
    "def mul(a, b):\n    return a * b",
)
ADD_TESTS = ("create", "tests/test_calc.py", CALC_TESTS)

FIRST_ATTEMPT = attempt_turns("I fix add and mul and add tests.", [FIX_ADD, FIX_MUL, ADD_TESTS])
"""Attempt 0: three hunks; accepted as a whole, every test passes."""

CALC_FIXED = CALC_BUGGY.replace("return a - b", "return a + b", 1).replace(
    "def mul(a, b):\n    return a + b", "def mul(a, b):\n    return a * b"
)

CONFIG_TEXT = f"""\
[checks]
sandbox = "none"
timeout_seconds = 60
env_allow = ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
python = {json.dumps(sys.executable)}
"""
"""Checks run by this interpreter: no project .venv to make (seconds) in every Pilot test."""

SIZE = (140, 45)
"""Terminal size of the Pilot tests and snapshots."""


def frozen_clock() -> float:
    """A clock that never moves: the header's elapsed time stays 0:00."""
    return 0.0


@dataclass
class TuiProject:
    root: Path
    script: Path

    @property
    def paths(self) -> ProjectPaths:
        return ProjectPaths(self.root)

    @property
    def workspace(self) -> Path:
        return self.root / "workspace"

    def config(self) -> Config:
        return load_config(self.paths.config)

    def spec(self) -> Spec:
        return read_spec(self.root / "spec.md")

    def provider(self) -> Provider:
        return ScriptedProvider.from_path(self.script)

    def app(self, provider: Provider | None = None, max_retries: int = 3) -> OrchApp:
        """A fresh app on this project, as ``orch-tui spec.md`` would open it."""
        return OrchApp(
            self.paths,
            self.config(),
            RunRequest(
                self.spec(), provider or self.provider(), RunOptions(max_retries=max_retries)
            ),
            clock=frozen_clock,
        )

    def read(self, relative: str) -> str | None:
        path = self.workspace / relative
        return path.read_text(encoding="utf-8") if path.exists() else None

    def run_dir(self) -> Path:
        (run,) = [p for p in (self.root / "logs").iterdir() if p.is_dir()]
        return run

    def log_json(self, attempt: int, name: str) -> Any:
        path = self.run_dir() / f"attempt-{attempt:02d}" / name
        return json.loads(path.read_text(encoding="utf-8"))

    def state(self) -> dict[str, Any]:
        return json.loads((self.root / "state.json").read_text(encoding="utf-8"))


def make_tui_project(
    root: Path,
    attempts: Sequence[Sequence[Turn]] = (FIRST_ATTEMPT,),
    *,
    config_text: str = CONFIG_TEXT,
    seed: dict[str, str] | None = None,
) -> TuiProject:
    """A project folder with the calc spec, a seeded workspace and a model script."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "orchestrator.toml").write_text(config_text, encoding="utf-8")
    (root / "spec.md").write_text(SPEC_TEXT, encoding="utf-8")
    write_tree(root / "workspace", {"calc.py": CALC_BUGGY} if seed is None else seed)
    script = write_attempts_script(root / "script.json", attempts)
    return TuiProject(root, script)


def review_screen(app: OrchApp) -> ReviewScreen:
    assert app.review_screen is not None
    return app.review_screen


async def wait_for(
    pilot: Any, condition: Callable[[], object], what: str, timeout: float = 30
) -> None:
    """Let the app run until ``condition()`` is true; fail naming ``what`` after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


def count_layouts(screen: Screen[Any], monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Every layout of ``screen`` from now on (True: a full one, False: a scroll's)."""
    layouts: list[bool] = []
    original = screen._refresh_layout  # type: ignore[attr-defined]

    def refresh_layout(*args: object, scroll: bool = False, **kwargs: object) -> None:
        layouts.append(not scroll)
        original(*args, scroll=scroll, **kwargs)

    monkeypatch.setattr(screen, "_refresh_layout", refresh_layout)
    return layouts


ScreenT = TypeVar("ScreenT", bound=Screen[Any])


async def wait_for_screen(pilot: Any, app: App[Any], kind: type[ScreenT], what: str) -> ScreenT:
    """Wait until a ``kind`` screen is on top *and mounted*, so its widgets can be queried.

    The screen stack changes when a screen is pushed; its compose runs a moment later, so a
    test that only waits for ``isinstance(app.screen, kind)`` can query an empty screen.
    """
    await wait_for(pilot, lambda: isinstance(app.screen, kind) and app.screen.is_mounted, what)
    screen = app.screen
    assert isinstance(screen, kind)
    return screen


HistoryT = TypeVar("HistoryT", RunsScreen, RunScreen)


async def wait_for_history(pilot: Any, app: App[Any], kind: type[HistoryT], what: str) -> HistoryT:
    """Wait until a ``kind`` history screen is on top and has what it shows: it reads the
    logs in a thread worker, and says "loading…" until the worker posts them back."""
    screen = await wait_for_screen(pilot, app, kind, what)
    await wait_for(pilot, lambda: screen.loaded, f"{what} to load")
    return screen


async def wait_for_review(pilot: Any, app: OrchApp, attempt: int = 0) -> ReviewScreen:
    """Wait until the proposal of ``attempt`` is under review; returns the review screen."""
    await wait_for(pilot, lambda: app.review_screen is not None, "the review screen")
    screen = review_screen(app)
    await wait_for(
        pilot,
        lambda: screen.session is not None and screen.session.attempt == attempt,
        f"the proposal of attempt {attempt}",
    )
    await pilot.pause()
    return screen


async def wait_for_trial(pilot: Any, screen: ReviewScreen) -> None:
    """Wait until the trial run of the checks has reported on the proposal."""
    await wait_for(
        pilot, lambda: screen.trial_text not in ("", TRIAL_RUNNING), "the trial run's outcome"
    )


async def wait_for_finish(pilot: Any, app: OrchApp) -> str:
    """Wait for the run to reach SUCCESS or FAILED; returns the final state."""
    screen = review_screen(app)
    await wait_for(pilot, lambda: screen.finished is not None, "the run to finish")
    assert screen.finished is not None
    await pilot.pause()
    return screen.finished.state


def status_text(screen: ReviewScreen) -> str:
    return str(screen.query_one("#review-status").render())


class TmuxTui:
    """The installed ``orch-tui`` in a real terminal: a tmux server of its own (``-L``) for
    each command started.

    The command's exit code is written to ``exit-code`` in the project folder when it ends.
    """

    def __init__(self, root: Path, env: dict[str, str], size: tuple[int, int] = (160, 50)) -> None:
        self.root = root
        # COLUMNS and LINES (pytest-xdist workers have them) would override the pane's size.
        self.env = {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES")}
        self.size = size
        self.sockets: list[str] = []

    @property
    def socket(self) -> str:
        """The server of the command started last."""
        return self.sockets[-1]

    def tmux(self, *args: str) -> str:
        result = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=15,
            check=True,
        )
        return result.stdout

    def start(self, command: Sequence[str]) -> None:
        """Start ``command`` on a new server: the last command's server exits once its
        session ends, and a session asked of it meanwhile fails ("server exited
        unexpectedly", seen on a loaded CI machine)."""
        self.sockets.append(f"orch-test-{uuid.uuid4().hex[:12]}")
        (self.root / "exit-code").unlink(missing_ok=True)
        shell = " ".join(shlex.quote(part) for part in command) + "; echo $? > exit-code"
        width, height = self.size
        self.tmux(
            "new-session", "-d", "-s", "orch", "-x", str(width), "-y", str(height),
            "-c", str(self.root), shell,
        )  # fmt: skip

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "orch")

    def keys(self, *keys: str) -> None:
        """Key names as tmux knows them (``Enter``, ``C-s``, ``]``), one after the other."""
        for key in keys:
            self.tmux("send-keys", "-t", "orch", key)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "orch", "-l", text)

    def wait_for(self, *texts: str, timeout: float = 60) -> str:
        """Poll the screen until every one of ``texts`` is on it; returns the screen."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if all(text in screen for text in texts):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{texts} not on screen after {timeout} s:\n{screen}")
            time.sleep(0.1)

    def wait_gone(self, text: str, timeout: float = 60) -> str:
        """Poll the screen until ``text`` has left it; returns the screen."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if text not in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} still on screen after {timeout} s:\n{screen}")
            time.sleep(0.1)

    def wait_for_exit(self, timeout: float = 30) -> int:
        path = self.root / "exit-code"
        deadline = time.monotonic() + timeout
        while not path.exists() or not path.read_text().strip():
            if time.monotonic() > deadline:
                raise AssertionError(f"orch-tui did not exit:\n{self.screen()}")
            time.sleep(0.1)
        return int(path.read_text())

    def close(self) -> None:
        """Kill this test's tmux servers and remove their socket files."""
        folder = Path(self.env.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
        for socket in self.sockets:
            subprocess.run(
                ["tmux", "-L", socket, "kill-server"],
                env=self.env,
                capture_output=True,
                timeout=15,
            )
            (folder / socket).unlink(missing_ok=True)
