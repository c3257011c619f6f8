"""The guard in front of a sandboxed check (``process_guard.guarded``), run for real."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from orch_tui.core.checks.process_guard import guard_with_parent, guarded

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")

LEAVES_A_CHILD = """\
import subprocess, sys
subprocess.Popen(
    [sys.executable, "-c", "import pathlib, sys, time; time.sleep(0.5); pathlib.Path(sys.argv[1]).write_text('ended')", sys.argv[1]],
    start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
)
sys.exit(3)
"""


def test_the_guard_ends_after_what_its_command_left_and_keeps_the_commands_exit_code(
    tmp_path: Path,
) -> None:
    """As bubblewrap's outer process exits before its init has emptied the PID namespace, the
    command here exits at once and leaves a child in a session of its own that ends 0.5 s
    later: the guard, its subreaper, exits only after it, with the command's exit code."""
    marker = tmp_path / "child-ended"
    command = [sys.executable, "-c", LEAVES_A_CHILD, str(marker)]

    finished = subprocess.run(guarded(command), preexec_fn=guard_with_parent, timeout=30)

    assert finished.returncode == 3
    assert marker.read_text() == "ended"
