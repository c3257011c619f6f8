"""``checks.final``: run once the work is done; a failure gets one patch round quoting it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from orch_tui.core.config.models import CheckCommand
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.events import Event, FinalChecksFinished
from orch_tui.core.history.export import export_markdown
from orch_tui.core.loop.engine import EXIT_FAILED, EXIT_SUCCESS
from orch_tui.tui.cli.state_commands import status
from tests.core.loop.test_engine import GOOD, TEST, fast_config, make_engine, state_of
from tests.support.scripting import attempt, create, prompt_text, replace

E2E = "import calc, sys\nsys.exit(0 if calc.add(20, 22) == 42 and calc.VERSION == 2 else 3)\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "spec.md").write_text("# calc\n\n`calc.add(a, b)`, and `calc.VERSION = 2`.\n")
    return tmp_path


def final_config():
    config = fast_config()
    config.checks.final = [CheckCommand(name="e2e", command=["{python}", "e2e.py"])]
    return config


def build(version: int):
    return attempt(
        create("calc.py", GOOD + f"VERSION = {version}\n"),
        create("tests/test_calc.py", TEST),
        create("e2e.py", E2E),
    )


def test_a_failing_final_check_sends_one_patch_round_quoting_it(project: Path, capsys) -> None:
    events: list[Event] = []
    engine, provider = make_engine(
        project,
        [build(1), attempt(replace("calc.py", "VERSION = 1", "VERSION = 2"))],
        config=final_config(),
        events=events,
    )

    assert engine.run() == EXIT_SUCCESS

    finals = [e for e in events if isinstance(e, FinalChecksFinished)]
    assert [(e.attempt, e.passed, e.failed) for e in finals] == [(0, False, ["e2e"]), (1, True, [])]
    patch = prompt_text(provider.requests[-2])
    assert "## The final checks failed" in patch
    assert f"### e2e: `{sys.executable} e2e.py` (failed (exit 3))" in patch
    state = state_of(project)
    assert state.final_checks is not None and state.final_checks.passed
    assert state.final_checks.summary == "e2e passed"
    saved = json.loads(
        (project / "logs" / state.run_id / "attempt-00" / "final-report.json").read_text()
    )
    assert saved["checks"][0]["exit_code"] == 3
    export = export_markdown(project / "logs", state.run_id)
    assert "final checks failed (e2e): e2e failed (exit 3)" in export
    assert "final checks passed: e2e passed" in export
    status(ProjectPaths(project), "none", as_json=False)
    assert "final     passed: e2e passed" in capsys.readouterr().out


def test_in_plan_mode_the_final_checks_run_once_after_the_last_task(tmp_path: Path) -> None:
    from tests.core.loop.test_plan_engine import PLANNED_SPEC, task_one, task_two
    from tests.core.loop.test_plan_engine import make_engine as plan_engine
    from tests.support.scripting import CountingProvider

    events: list[Event] = []
    engine = plan_engine(
        tmp_path, PLANNED_SPEC, CountingProvider([task_one(), task_two()]), events=events
    )
    engine.config.checks.final = [
        CheckCommand(name="e2e", command=["{python}", "-c", "import calc; calc.mul"])
    ]

    assert engine.run() == EXIT_SUCCESS
    finals = [(e.attempt, e.passed) for e in events if isinstance(e, FinalChecksFinished)]
    assert finals == [(1, True)]


def test_a_second_final_failure_fails_the_run(project: Path) -> None:
    engine, _ = make_engine(
        project,
        [build(1), attempt(replace("calc.py", "VERSION = 1", "VERSION = 5"))],
        config=final_config(),
    )

    assert engine.run() == EXIT_FAILED

    state = state_of(project)
    assert state.stop_reason == "the final checks failed again after their patch round: e2e"
    assert state.final_checks is not None and not state.final_checks.passed


def test_without_final_checks_nothing_more_runs(project: Path) -> None:
    events: list[Event] = []
    engine, provider = make_engine(project, [build(2)], events=events)

    assert engine.run() == EXIT_SUCCESS
    assert not any(isinstance(e, FinalChecksFinished) for e in events)
    assert state_of(project).final_checks is None
