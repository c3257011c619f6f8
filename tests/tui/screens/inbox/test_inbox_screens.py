"""The inbox in Pilot, on real batch folders made by ``orch-tui batch`` (scripted provider).

Each run wrote ``calc.py``, ``extra.py`` and ``tests/test_calc.py``: the person accepts the
first and last, rejects ``extra.py``; their project gets only the accepted files, and with a
reason the rejected hunk goes back to the model as a new attempt.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList

from orch_tui.core.batch.inbox import waiting_runs
from orch_tui.core.batch.landing import Target
from orch_tui.core.batch.reviewed import read_review
from orch_tui.core.batch.run_one import read_run_state
from orch_tui.core.checks.coverage_map import CoverageMap, FileCoverage, coverage_record
from orch_tui.core.config.models import load_config
from orch_tui.core.domain.state import RunState
from orch_tui.core.runlog.layout import COVERAGE
from orch_tui.core.workspace.git import git_command, git_env
from orch_tui.tui.inbox_app import InboxApp
from orch_tui.tui.screens.dialogs import FeedbackScreen
from orch_tui.tui.screens.inbox.review import InboxReviewScreen
from orch_tui.tui.screens.inbox.runs import InboxScreen
from orch_tui.tui.widgets.diff.view import DiffView
from tests.e2e.test_batch_workspace import make_repo
from tests.support.inbox_support import (
    CALC,
    EXTRA_AGAIN,
    TEST,
    batch_project,
    make_batch_project,
    run_batch,
)
from tests.support.tui_support import wait_for, wait_for_screen

pytestmark = pytest.mark.anyio
SIZE = (120, 40)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return batch_project(tmp_path / "project")


def app_for(project: Path) -> InboxApp:
    config = load_config(project / "orchestrator.toml")
    return InboxApp(project, config, lambda entry: Target(project / "workspace"))


def listed(app: InboxApp) -> list[str]:
    screen = app.screen
    assert isinstance(screen, InboxScreen)
    return [entry.name for entry in screen.shown]


def run_folder(project: Path, name: str) -> Path:
    (batch,) = (project / "batches").iterdir()
    return batch / name


def batch_run(project: Path, name: str) -> dict[str, object]:
    """The run's entry in its batch's ``batch.json``."""
    record = json.loads((run_folder(project, name).parent / "batch.json").read_text())
    return next(run for run in record["runs"] if run["name"] == name)


async def open_first(pilot, app: InboxApp) -> InboxReviewScreen:  # type: ignore[no-untyped-def]
    await wait_for_screen(pilot, app, InboxScreen, "the inbox list")
    await pilot.press("enter")
    screen = await wait_for_screen(pilot, app, InboxReviewScreen, "the run's review")
    await wait_for(pilot, lambda: screen.session is not None, "the run's change")
    return screen


async def test_the_list_shows_the_finished_runs_and_filters_as_you_type(project: Path) -> None:
    app = app_for(project)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_screen(pilot, app, InboxScreen, "the inbox list")
        assert sorted(listed(app)) == ["one", "two"]
        assert app.screen.query_one(OptionList).option_count == 2
        # counted as batch.json and the report count them, not as the attempt's index
        line = str(app.screen.query_one(OptionList).get_option_at_index(0).prompt)
        attempts = batch_run(project, listed(app)[0])["attempts"]
        assert attempts == 1 and " 1 attempt " in line and "attempt 0" not in line
        await pilot.press("t", "w", "o")
        assert app.screen.query_one(Input).value == "two"
        assert listed(app) == ["two"]
        await pilot.press("backspace", "backspace", "backspace", "z", "z")
        assert listed(app) == []
        assert "0 of 2 runs waiting" in str(app.screen.query_one("#inbox-note").render())


async def test_accepted_hunks_land_and_rejected_ones_go_back_with_the_reason(
    project: Path,
) -> None:
    app = app_for(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_first(pilot, app)
        name = screen.opened.entry.name
        header = str(screen.query_one("#inbox-header").render())
        assert "tests ✓ 1 passed" in header and str(project / "workspace") in header
        assert screen.query_one(DiffView).change.path == "calc.py"
        await pilot.press("y", "n", "y", "enter")
        dialog = await wait_for_screen(pilot, app, FeedbackScreen, "the reason dialog")
        assert "1 hunk rejected" in str(dialog.query_one("Label").render())
        await pilot.press(*"keep it to add", "enter")
        await wait_for_screen(pilot, app, InboxScreen, "back to the list")
        assert listed(app) == [other for other in ("one", "two") if other != name]
    assert batch_run(project, name)["status"] == "reworking"  # no batch command restarts it

    workspace = project / "workspace"
    assert (workspace / "calc.py").read_text() == CALC
    assert (workspace / "tests/test_calc.py").read_text() == TEST
    assert not (workspace / "extra.py").exists()
    folder = run_folder(project, name)
    review = read_review(folder)
    assert review is not None and review.sent_back == "keep it to add"
    assert review.landed == ["calc.py", "tests/test_calc.py"] and review.rejected_hunks == 1

    deadline = time.monotonic() + 120  # the new attempt runs in the background
    while (
        (state := read_run_state(folder)) is None
        or state.attempt < 1
        or (state.state is not RunState.SUCCESS)
    ):
        assert time.monotonic() < deadline, (folder / "batch-run.log").read_text()
        time.sleep(0.2)
    guidance = json.loads(next((folder / "logs").glob("*/attempt-01/guidance.json")).read_text())
    assert "keep it to add" in guidance["text"] and "extra.py, hunk 1" in guidance["text"]
    assert "+def unwanted():" in guidance["text"]
    assert (folder / "workspace" / "extra.py").read_text() == EXTRA_AGAIN
    back = [entry.name for entry in waiting_runs(project)[0]]
    assert name in back, "the reworked run waits for review again"
    while batch_run(project, name)["status"] != "finished":  # recorded as its process ends
        assert time.monotonic() < deadline, (folder / "batch-run.log").read_text()
        time.sleep(0.2)
    recorded = batch_run(project, name)
    assert recorded["attempts"] == 2 and recorded["state"] == "SUCCESS"
    assert "1 test passes" in recorded["evidence"]
    report = json.loads((folder.parent / "report.json").read_text())
    assert next(r for r in report["runs"] if r["name"] == name) == recorded
    row = next(line for line in (folder.parent / "report.md").read_text().splitlines()
               if line.startswith(f"| {name} |"))  # fmt: skip
    assert row.startswith(f"| {name} | SUCCESS | 2 |")


async def test_escape_on_the_reason_drops_the_rejected_hunks(project: Path) -> None:
    app = app_for(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_first(pilot, app)
        name = screen.opened.entry.name
        await pilot.press("N", "enter")  # the whole of calc.py rejected, the rest accepted
        await wait_for_screen(pilot, app, FeedbackScreen, "the reason dialog")
        await pilot.press("escape")
        await wait_for_screen(pilot, app, InboxScreen, "back to the list")

    workspace = project / "workspace"
    assert not (workspace / "calc.py").exists() and (workspace / "extra.py").exists()
    review = read_review(run_folder(project, name))
    assert review is not None and review.sent_back == "" and review.rejected_hunks == 1
    assert read_run_state(run_folder(project, name)).attempt == 0  # nothing went back


async def test_leaving_a_review_keeps_its_decisions_and_the_run_waiting(project: Path) -> None:
    app = app_for(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_first(pilot, app)
        name = screen.opened.entry.name
        await pilot.press("n", "escape")
        await wait_for_screen(pilot, app, InboxScreen, "back to the list")
        assert name in listed(app)
        app.screen.query_one(Input).value = name
        await pilot.pause()
        screen = await open_first(pilot, app)
        assert screen.opened.session.counts() == (0, 1, 2)
        await pilot.press("escape")
    assert not (project / "workspace").exists()


async def test_rejecting_the_whole_change_sends_it_back(project: Path) -> None:
    app = app_for(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_first(pilot, app)
        folder = screen.opened.entry.folder
        await pilot.press("f")
        await wait_for_screen(pilot, app, FeedbackScreen, "the reason dialog")
        await pilot.press(*"start over", "enter")
        await wait_for_screen(pilot, app, InboxScreen, "back to the list")
    assert not (project / "workspace").exists()
    review = read_review(folder)
    assert review is not None and review.sent_back == "start over" and review.rejected_hunks == 3


async def test_the_last_checks_coverage_marks_the_runs_new_lines(project: Path) -> None:
    for folder in (project / "batches").glob("*/*/logs/*/attempt-00"):
        measured = CoverageMap(
            {"calc.py": FileCoverage(frozenset({1, 2}), {1: frozenset(), 2: frozenset()})}
        )
        (folder / COVERAGE).write_text(json.dumps(coverage_record(measured)))
    app = app_for(project)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_first(pilot, app)
        header = str(screen.query_one("#inbox-header").render())
        assert "coverage: 0 of 2 changed lines run by no test" in header
        view = screen.query_one(DiffView)
        assert view.change is not None and view.change.path == "calc.py"
        await wait_for(pilot, lambda: view.coverage is not None, "the coverage marks")
        assert screen.coverage is not None and screen.coverage[0] == 0
        await pilot.press("escape")


async def test_the_trial_runs_on_the_runs_own_worktree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "mine")
    (repo / "tests").mkdir()
    (repo / "tests" / "test_mine.py").write_text("def test_mine():\n    assert True\n")
    subprocess.run(
        git_command("add", "."), cwd=repo, env=git_env(), check=True, capture_output=True
    )
    subprocess.run(
        git_command("-c", "user.name=p", "-c", "user.email=p@x", "commit", "-qm", "tests"),
        cwd=repo, env=git_env(), check=True, capture_output=True,
    )  # fmt: skip
    project = make_batch_project(tmp_path / "project")
    run_batch(project, "--workspace", str(repo))
    app = InboxApp(project, load_config(project / "orchestrator.toml"), lambda entry: Target(repo))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_first(pilot, app)
        assert screen.paths.workspace.name == "worktree"
        await pilot.press("t")
        await wait_for(pilot, lambda: "passed" in screen.trial_text, "the trial's result", 120)
        assert "with this proposal: 2 passed" in screen.trial_text  # the repository's test too
        await pilot.press("escape")


async def test_accepted_hunks_can_land_as_a_commit_on_a_branch_nobody_has_checked_out(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "mine")
    git = lambda *args: subprocess.run(  # noqa: E731
        git_command(*args), cwd=repo, env=git_env(), check=True, capture_output=True, text=True
    ).stdout.strip()
    git("branch", "reviewed")
    status_before = git("status", "--porcelain")
    project = make_batch_project(tmp_path / "project")
    run_batch(project, "--workspace", str(repo))
    target = Target(repo, "reviewed")
    app = InboxApp(project, load_config(project / "orchestrator.toml"), lambda entry: target)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_first(pilot, app)
        assert "accepted hunks land in branch reviewed of" in str(
            screen.query_one("#inbox-header").render()
        )
        await pilot.press("y", "n", "y", "enter")
        await wait_for_screen(pilot, app, FeedbackScreen, "the reason dialog")
        await pilot.press("escape")
        await wait_for_screen(pilot, app, InboxScreen, "back to the list")

    assert git("ls-tree", "-r", "--name-only", "reviewed").split() == [
        "README.md", "calc.py", "notes.txt", "tests/test_calc.py",
    ]  # fmt: skip
    assert git("show", "reviewed:calc.py") + "\n" == CALC
    assert "orch-tui: reviewed hunks of" in git("log", "-1", "--format=%s", "reviewed")
    assert git("rev-parse", "--abbrev-ref", "HEAD") == "trunk"
    assert git("status", "--porcelain") == status_before  # the checkout as it was
    assert not (repo / "calc.py").exists()
