"""The verdict's evidence from the engine: coverage per attempt, rewritten and added tests judged
in scratch runs, and the run's last line (DESIGN section 15). Real pytest, real coverage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orch_tui.core.checks.coverage_map import CoverageMap, coverage_from_record
from orch_tui.core.domain.event_reading import event_from_json
from orch_tui.core.domain.events import Event, RunFinished
from orch_tui.core.domain.evidence import EvidenceFound
from orch_tui.core.loop.engine import EXIT_SUCCESS
from orch_tui.core.runlog import layout as runlog
from tests.core.loop.test_engine import BAD, GOOD, TEST, make_engine, run_dir, state_of
from tests.support.scripting import attempt, create, replace

UNTESTED = GOOD + "\n\ndef mul(a, b):\n    return a * b\n"
WEAK_ADD_TEST = "from calc import add\n\n\ndef test_add_is_callable():\n    assert callable(add)\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    return tmp_path


def test_each_attempt_writes_its_coverage_and_counts_changed_lines_no_test_runs(
    project: Path,
) -> None:
    events: list[Event] = []
    engine, _ = make_engine(
        project,
        [attempt(create("calc.py", UNTESTED), create("tests/test_calc.py", TEST))],
        events=events,
    )
    assert engine.run() == EXIT_SUCCESS

    folder = run_dir(project) / "attempt-00"
    cmap = coverage_from_record(json.loads((folder / runlog.COVERAGE).read_text()))
    assert isinstance(cmap, CoverageMap)
    assert cmap.tests_for("calc.py", 2) == {"tests/test_calc.py::test_add"}
    assert cmap.tests_for("calc.py", 6) == frozenset()  # mul's body: no test runs it
    evidence = json.loads((folder / runlog.EVIDENCE).read_text())
    assert evidence["uncovered"] == {"calc.py": [6]}
    assert (evidence["uncovered_lines"], evidence["changed_lines"]) == (1, 4)
    found = [e for e in events if isinstance(e, EvidenceFound)]
    assert [e.uncovered_lines for e in found] == [1]
    assert "1 of 4 changed lines run by no test" in found[0].describe()


def test_the_last_line_and_run_finished_carry_the_runs_evidence(project: Path) -> None:
    events: list[Event] = []
    engine, _ = make_engine(
        project,
        [
            attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
            attempt(replace("calc.py", "a - b", "a + b")),
        ],
        events=events,
    )
    assert engine.run() == EXIT_SUCCESS

    line = "1 test passes (1 added, 0 rewritten, 0 weakened); 0 of 2 changed lines run by no test"
    assert state_of(project).stop_reason == f"{line}, after 2 attempts"
    finished = [e for e in events if isinstance(e, RunFinished)][-1]
    assert finished.evidence is not None
    assert finished.evidence["summary"] == line
    assert (finished.evidence["tests_passed"], finished.evidence["added"]) == (1, 1)
    assert finished.evidence["uncovered_lines"] == 0
    read_back = event_from_json(json.loads(json.dumps(finished.to_json(), default=str)))
    assert isinstance(read_back, RunFinished) and read_back.evidence == finished.evidence


def test_an_added_test_that_passes_without_the_change_is_labelled(project: Path) -> None:
    events: list[Event] = []
    engine, _ = make_engine(
        project,
        [
            attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
            attempt(
                replace("calc.py", "a - b", "a + b"),
                create("tests/test_more.py", WEAK_ADD_TEST),
            ),
        ],
        events=events,
    )
    assert engine.run() == EXIT_SUCCESS

    found = [e for e in events if isinstance(e, EvidenceFound)]
    assert [e.attempt for e in found] == [0, 1]
    # attempt 0's test fails without calc.py; attempt 1's passes with the old, wrong add
    assert found[0].added == ["tests/test_calc.py::test_add"] and found[0].passes_without == []
    assert found[1].passes_without == ["tests/test_more.py::test_add_is_callable"]
    assert "test_add_is_callable passes without this change" in found[1].describe()
    logged = json.loads((run_dir(project) / "attempt-01" / runlog.EVIDENCE).read_text())
    assert logged["passes_without"] == ["tests/test_more.py::test_add_is_callable"]
    line = json.loads(json.dumps(found[1].to_json()))
    assert event_from_json(line) == found[1]
