"""``orch-tui batch`` whose batch folder runs out of space: a real full disk, a small tmpfs.

Mounting needs root; elsewhere the test is skipped (``tests/core/batch/test_driver.py`` covers
the same path with a failing write). The tmpfs holds the batch's files and the first run's
folder, then fills in the second run; the batch must say which folder is out of space, keep the
first run and ``batch.json`` whole (a stopped run resuming is proven in ``test_batch.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from orch_tui.core.batch.run_one import read_run_state
from tests.support.e2e_support import child_env, orch_tui
from tests.support.inbox_support import CALC, make_batch_project

pytestmark = pytest.mark.e2e
SMALL = "160k"
"""Room for the batch's files and one run (about 100 KiB each), not for a second run."""


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """``tmp_path/project/batches`` on a tmpfs of :data:`SMALL`."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mount = tmp_path / "project" / "batches"
    mount.mkdir(parents=True)
    made = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SMALL}", "tmpfs", str(mount)],
        capture_output=True, text=True,
    )  # fmt: skip
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "--lazy", str(mount)], check=False)


def batch(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [orch_tui(), "batch", "specs", "--jobs", "1", "--batch", "full", "--provider",
         "scripted", "--script", "script.json"],
        cwd=root, env=child_env(), capture_output=True, text=True, timeout=240,
    )  # fmt: skip


def test_a_full_batch_folder_is_named_and_what_finished_is_kept(small_disk: Path) -> None:
    root = make_batch_project(small_disk.parent)
    folder = small_disk / "full"

    full = batch(root)

    assert full.returncode == 1, full.stdout + full.stderr
    assert f"the batch folder {folder} is out of space (" in full.stderr
    assert "Traceback" not in full.stderr
    record = json.loads((folder / "batch.json").read_text())  # whole: written atomically
    one, two = record["runs"]
    assert (one["status"], one["state"]) == ("finished", "SUCCESS")
    assert two["status"] in ("running", "stopped")  # its last save, if any fit: resumed next
    shown = next(line for line in full.stdout.splitlines() if line.startswith("| two |"))
    assert "stopped: the batch folder is out of space" in shown and "No space left" in shown
    state = read_run_state(folder / "one")
    assert state is not None and str(state.state) == "SUCCESS"
    assert (folder / "one" / "workspace" / "calc.py").read_text() == CALC
    report = folder / "report.json"
    if report.exists():  # written after batch.json, from the same record, or not at all
        assert json.loads(report.read_text())["runs"] == record["runs"]
