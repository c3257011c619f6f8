"""End to end: ``orch-tui batch`` runs many specs against the local fake Messages API.

Each spec names a module; the fake answers an attempt's first request with that module and a
passing test, so every run reaches SUCCESS on its first attempt unless a test says otherwise.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.e2e_support import FAST_CONFIG, child_env, orch_tui
from tests.support.fake_anthropic import FakeAnthropic, SlowDrip, Turn

pytestmark = pytest.mark.e2e

MODULES = ("alpha", "beta", "gamma")


def spec_text(module: str) -> str:
    return f"# {module}\n\nMODULE: {module}. A module `{module}.py` with `VALUE = 1`, and a test.\n"


def module_of(body: dict[str, Any]) -> str:
    found = re.search(r"MODULE: (\w+)", json.dumps(body))
    assert found, "every request carries its spec"
    return found.group(1)


class BatchModel:
    """The fake model of a batch: writes each spec's module; ``hang`` holds one module's first
    request open (an SSE stream that never finishes) so a test can kill that run mid-step."""

    def __init__(self, hang: str | None = None) -> None:
        self.hang = hang
        self.first_requests: list[str] = []
        self.hanging = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Turn | SlowDrip:
        module = module_of(body)
        if len(body["messages"]) > 1:
            return Turn.say("Done.")
        with self._lock:
            self.first_requests.append(module)
            if module == self.hang:
                self.hang = None
                self.hanging.set()
                return SlowDrip(pings=600, interval_s=0.1)
        test = f"from {module} import VALUE\n\n\ndef test_value():\n    assert VALUE == 1\n"
        return Turn.edits(
            "Writing it.",
            [
                ("create", f"{module}.py", "VALUE = 1\n"),
                ("create", f"tests/test_{module}.py", test),
            ],
        )


def make_batch_project(root: Path) -> Path:
    root.mkdir()
    (root / "orchestrator.toml").write_text(FAST_CONFIG)
    specs = root / "specs"
    specs.mkdir()
    for module in MODULES:
        (specs / f"{module}.md").write_text(spec_text(module))
    return root


def batch(root: Path, fake: FakeAnthropic, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [orch_tui(), "batch", "specs", *args],
        cwd=root,
        env=child_env(fake.url),
        capture_output=True,
        text=True,
        timeout=240,
    )


@contextmanager
def batch_in_background(root: Path, fake: FakeAnthropic) -> Iterator[subprocess.Popen[str]]:
    """``orch-tui batch specs --jobs 1`` running in a process group of its own; on leaving, a
    batch still running is interrupted (then killed), by its group."""
    process = subprocess.Popen(
        [orch_tui(), "batch", "specs", "--jobs", "1"],
        cwd=root,
        env=child_env(fake.url),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGINT)
            try:
                process.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.communicate()


def the_batch(root: Path) -> Path:
    (folder,) = (root / "batches").iterdir()
    return folder


def test_three_specs_two_at_a_time_each_in_its_own_folder_and_the_same_command_again_asks_nothing(
    tmp_path: Path,
) -> None:
    root = make_batch_project(tmp_path / "project")
    model = BatchModel()
    with FakeAnthropic(model) as fake:
        result = batch(root, fake, "--jobs", "2")
        served = len(fake.requests)
        again = batch(root, fake, "--jobs", "2")

        assert len(fake.requests) == served

    assert result.returncode == 0, result.stdout + result.stderr
    folder = the_batch(root)
    for module in MODULES:
        run = folder / module
        state = json.loads((run / "state.json").read_text())
        assert state["state"] == "SUCCESS"
        assert (run / "workspace" / f"{module}.py").read_text() == "VALUE = 1\n"
        assert (run / "logs" / state["run_id"] / "events.jsonl").exists()
    assert sorted(model.first_requests) == sorted(MODULES)
    report = json.loads((folder / "report.json").read_text())
    assert report["totals"]["solved"] == 3 and report["totals"]["solved_after"]["1"] == 3
    assert "| alpha | SUCCESS | 1 |" in (folder / "report.md").read_text()
    # The verdict's evidence line of each run, as its own --auto printed it, in both reports.
    for run in report["runs"]:
        assert "rewritten" in run["evidence"] and "run by no test" in run["evidence"]
        assert run["evidence"] in (folder / "report.md").read_text()
    assert "solved: 3 of 3" in result.stdout
    assert not (root / "workspace").exists() or not any((root / "workspace").iterdir())
    assert again.returncode == 0, again.stderr
    assert "resuming batch" in again.stderr and "0 of 3 runs to go" in again.stderr


def test_json_tags_every_event_with_its_run(tmp_path: Path) -> None:
    root = make_batch_project(tmp_path / "project")
    with FakeAnthropic(BatchModel()) as fake:
        result = batch(root, fake, "--jobs", "3", "--json")

    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert {e["run"] for e in events} == set(MODULES)
    finished = [e for e in events if e.get("event") == "run_finished"]
    assert sorted(e["run"] for e in finished) == sorted(MODULES)


def test_a_killed_worker_is_resumed_by_the_next_command(tmp_path: Path) -> None:
    root = make_batch_project(tmp_path / "project")
    model = BatchModel(hang="beta")
    with FakeAnthropic(model) as fake:
        with batch_in_background(root, fake) as process:
            assert model.hanging.wait(120), "the beta run never asked the model"
            folder = the_batch(root)
            worker = int((folder / "beta" / "orch.lock").read_text().split()[0])
            os.kill(worker, signal.SIGKILL)
            out, err = process.communicate(timeout=180)

        assert process.returncode == 1, out + err
        record = json.loads((folder / "batch.json").read_text())
        statuses = {r["name"]: r["status"] for r in record["runs"]}
        assert statuses == {"alpha": "finished", "beta": "stopped", "gamma": "finished"}

        again = batch(root, fake, "--jobs", "1")

    assert again.returncode == 0, again.stdout + again.stderr
    assert "1 of 3 runs to go" in again.stderr
    assert json.loads((folder / "beta" / "state.json").read_text())["state"] == "SUCCESS"
    assert model.first_requests.count("beta") == 2 and model.first_requests.count("alpha") == 1


def test_a_second_batch_on_the_same_folder_is_refused_naming_the_holder(tmp_path: Path) -> None:
    root = make_batch_project(tmp_path / "project")
    model = BatchModel(hang="alpha")
    with FakeAnthropic(model) as fake:
        with batch_in_background(root, fake) as process:
            assert model.hanging.wait(120)
            second = batch(root, fake, "--jobs", "1")

    assert second.returncode == 1
    assert f"pid {process.pid}" in second.stderr and "batch" in second.stderr


def test_the_batch_budget_is_shared_out_between_the_runs(tmp_path: Path) -> None:
    root = make_batch_project(tmp_path / "project")
    with FakeAnthropic(BatchModel()) as fake:
        result = batch(root, fake, "--jobs", "1", "--max-cost-usd", "0.06")

    assert result.returncode == 0, result.stdout + result.stderr
    runs = json.loads((the_batch(root) / "batch.json").read_text())["runs"]
    caps = [r["cap_usd"] for r in runs]
    assert caps[0] == pytest.approx(0.02)  # a third of the budget for the first of three
    assert caps[1] > caps[0]  # the first run's unspent share is shared out again
    assert sum(r["cost_usd"] for r in runs) <= 0.06


def test_a_budget_too_small_for_a_run_starts_nothing_and_asks_nothing(tmp_path: Path) -> None:
    root = make_batch_project(tmp_path / "project")
    with FakeAnthropic(BatchModel()) as fake:
        result = batch(root, fake, "--jobs", "2", "--max-cost-usd", "0.02")

        assert fake.requests == []
    assert result.returncode == 1
    runs = json.loads((the_batch(root) / "batch.json").read_text())["runs"]
    assert {r["status"] for r in runs} == {"skipped"}
    assert "budget is spent" in (the_batch(root) / "report.md").read_text()


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["empty"], "no specs in this folder"),
        (["notes.json"], "not a spec"),
        (["specs", "more/alpha.md"], "two specs are named 'alpha'"),
        (["specs", "--engine", "ray", "--address", "127.0.0.1:1"], "ray"),
    ],
)
def test_bad_input_is_a_clear_error_and_starts_nothing(
    tmp_path: Path, arguments: list[str], says: str
) -> None:
    root = make_batch_project(tmp_path / "project")
    (root / "empty").mkdir()
    (root / "notes.json").write_text("{}")
    (root / "more").mkdir()
    (root / "more" / "alpha.md").write_text(spec_text("alpha"))
    started = time.monotonic()
    result = subprocess.run(
        [orch_tui(), "batch", *arguments],
        cwd=root,
        env=child_env("http://127.0.0.1:9"),
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode == 1
    assert says in result.stderr.lower() or says in result.stderr
    assert time.monotonic() - started < 60
    runs = (
        [p for p in (root / "batches").glob("*/*/state.json")]
        if (root / "batches").exists()
        else []
    )
    assert runs == []
