"""The ``orch-tui`` executable: no garbage collection during start-up, collection after it."""

from __future__ import annotations

import gc
import json
import os
import pty
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


LONG_COMMAND_PROBE = """
import functools, gc, importlib, json, sys
import orch_tui.tui.cli.executable as executable

target, report_to = sys.argv[1:3]
module_name, path = target.split(":")
*owners, name = path.split(".")
owner = functools.reduce(getattr, owners, importlib.import_module(module_name))

def report(*args, **kwargs):
    with open(report_to, "w") as out:
        json.dump({"enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}, out)

setattr(owner, name, report)
sys.argv = ["orch-tui", *sys.argv[3:]]
executable.main()
"""


@pytest.mark.parametrize(
    ("target", "argv"),
    [
        ("orch_tui.tui.inbox_app:InboxApp.run", ["inbox"]),
        ("orch_tui.tui.cli.batch_command:_engine", ["batch", "specs"]),
    ],
    ids=["inbox", "batch"],
)
def test_the_inbox_and_a_batch_run_with_the_collector_on(
    tmp_path: Path, target: str, argv: list[str]
) -> None:
    """The inbox is open as long as a person reviews, and a batch may run for hours: both turn
    the collector on (start-up's objects frozen) before their long part (``target``, replaced
    by a report of the collector), as the review screen and ``--auto`` do."""
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "one.md").write_text("# one\n\nA calculator.\n", encoding="utf-8")
    report = tmp_path / "seen.json"
    main, terminal = pty.openpty()  # the inbox opens its screen on a terminal only
    try:
        subprocess.run(
            [sys.executable, "-c", LONG_COMMAND_PROBE, target, str(report), *argv],
            cwd=tmp_path,
            stdin=terminal,
            stdout=terminal,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    finally:
        os.close(main)
        os.close(terminal)

    assert report.is_file(), f"{argv[0]} never reached its long-running part"
    seen = json.loads(report.read_text(encoding="utf-8"))
    assert seen["enabled"] is True
    assert seen["frozen"] > 10_000  # the imported modules, classes and functions
