"""The ``orch-tui`` executable: no garbage collection during start-up, collection after it."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from orch_tui.tui.cli.executable import start_collecting

DEMO_SPEC = Path(__file__).resolve().parents[3] / "core" / "demo" / "spec.md"

PROBE = """
import gc, json, sys, threading
import orch_tui.tui.cli.commands as cli
import orch_tui.tui.cli.executable as executable
import os
import orch_tui.tui.cli.spec_run as spec_run
from textual.app import App
from orch_tui.core.loop.engine import Engine
from orch_tui.tui.launch import OpeningApp

seen = {}
one_at_a_time = threading.Lock()  # the engine's thread reports too: one whole line each

def report(what):
    with one_at_a_time:
        seen[what] = {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}
        sys.stdout.write(json.dumps(seen) + "\\n")
        sys.stdout.flush()
    return 0

original_main = cli.main
def main(argv=None):
    seen["start-up"] = {"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}
    return original_main(argv)

cli.main = main
spec_run.has_terminal = lambda: True  # the review screen's path, without a terminal to draw on
OpeningApp.run = lambda self, *args, **kwargs: App.run(self, headless=True)
Engine.run = lambda self: os._exit(report("engine"))
sys.argv = ["orch-tui", *sys.argv[1:]]
executable.main()
"""


@pytest.mark.parametrize(
    ("args", "engine_collects"), [(["--auto"], True), ([], False)], ids=["auto", "review screen"]
)
def test_start_up_runs_without_the_collector_and_the_run_with_it(
    tmp_path: Path, args: list[str], engine_collects: bool
) -> None:
    """``--auto``'s engine runs with the collector on, what the start-up loaded frozen. The
    review screen's engine starts once the run is open, behind the first frame, with the
    collector still off: it comes on once the first diff is drawn (tests/tui/screens/review/
    test_launch_work.py)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(DEMO_SPEC), "--provider", "scripted", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )

    reports = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert reports, done.stdout + done.stderr
    seen = json.loads(reports[-1])
    assert seen["start-up"] == {"enabled": False, "frozen": 0}
    assert seen["engine"]["enabled"] is engine_collects
    if engine_collects:
        assert seen["engine"]["frozen"] > 10_000  # the imported modules, classes and functions
    else:
        assert seen["engine"]["frozen"] == 0


def test_start_collecting_leaves_an_enabled_collector_alone() -> None:
    """A caller other than the executable (these tests) keeps its collector as it is."""
    assert gc.isenabled()
    frozen = gc.get_freeze_count()

    start_collecting()

    assert gc.isenabled() and gc.get_freeze_count() == frozen
