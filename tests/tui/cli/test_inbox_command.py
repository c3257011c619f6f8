"""``orch-tui inbox`` without a terminal: the waiting runs as text or JSON, on a real batch."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.support.e2e_support import child_env, orch_tui
from tests.support.inbox_support import batch_project


def inbox(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [orch_tui(), "inbox", *args],
        cwd=root, env=child_env(), capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_without_a_terminal_the_inbox_lists_the_waiting_runs(tmp_path: Path) -> None:
    project = batch_project(tmp_path / "project")

    listing = inbox(project)
    as_json = inbox(project, "--json")

    assert listing.returncode == 0, listing.stderr
    header, *rows = listing.stdout.splitlines()
    assert header.split("\t") == ["run", "state", "attempt", "tests", "cost_usd", "folder"]
    assert sorted(row.split("\t")[0].split("/")[1] for row in rows) == ["one", "two"]
    assert all(row.split("\t")[1:4] == ["SUCCESS", "0", "1 passed"] for row in rows)
    runs = json.loads(as_json.stdout)
    assert sorted(run["name"] for run in runs) == ["one", "two"]
    assert all(Path(run["folder"]).is_dir() and run["tests_passed"] for run in runs)


def test_an_empty_inbox_and_a_damaged_batch_are_said_plainly(tmp_path: Path) -> None:
    assert inbox(tmp_path, "--json").stdout.strip() == "[]"
    (tmp_path / "batches" / "batch-x").mkdir(parents=True)
    (tmp_path / "batches" / "batch-x" / "batch.json").write_text("{nope")

    done = inbox(tmp_path)

    assert done.returncode == 0 and done.stdout.splitlines()[1:] == []
    assert "batch.json: cannot be read" in done.stderr and "Traceback" not in done.stderr
