"""The tests present when an attempt starts are the contract: their changes need a person's yes."""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.domain.events import Event, Notice
from orch_tui.core.domain.proposal import Decisions, FileChange, HunkDecision, Proposal
from orch_tui.core.domain.state import RunState
from orch_tui.core.domain.test_files import hold_locked_tests, locked_test_paths
from orch_tui.core.loop.engine import EXIT_FAILED, EXIT_SUCCESS
from orch_tui.core.loop.review import ReviewSession
from tests.core.loop.test_engine import BAD, GOOD, TEST, fast_config, make_engine, state_of
from tests.support.scripting import attempt, create, replace

WEAK = TEST.replace("assert add(2, 3) == 5", "assert True")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    (tmp_path / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    return tmp_path


class Person:
    """A reviewer who applies at once (undecided everywhere), or accepts the locked test."""

    holds_locked_tests = True

    def __init__(self, accept_tests: bool = False) -> None:
        self.accept_tests = accept_tests

    def review(self, session: ReviewSession) -> None:
        if self.accept_tests:
            for path in locked_test_paths(session.effective):
                session.decide_file(path, HunkDecision.ACCEPTED)

    def review_plan(self, plan):  # noqa: ANN001, ANN201
        return plan

    def accept_rewritten(self, tests: list[str]) -> bool:
        self.asked_rewritten = tests
        return self.accept_tests


def test_a_locked_test_change_left_undecided_does_not_land(project: Path) -> None:
    events: list[Event] = []
    engine, _ = make_engine(
        project,
        [
            attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
            attempt(replace("tests/test_calc.py", "assert add(2, 3) == 5", "assert True")),
            attempt(replace("calc.py", "a - b", "a + b")),
        ],
        reviewer=Person(),
        events=events,
    )

    assert engine.run() == EXIT_SUCCESS
    assert (project / "workspace" / "tests" / "test_calc.py").read_text() == TEST
    assert (project / "workspace" / "calc.py").read_text() == GOOD
    notes = [e.message for e in events if isinstance(e, Notice)]
    assert any(n.startswith("tests/test_calc.py: an undecided change") for n in notes)


def test_a_locked_test_change_the_person_accepts_lands(project: Path) -> None:
    engine, _ = make_engine(
        project,
        [
            attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
            attempt(replace("tests/test_calc.py", "assert add(2, 3) == 5", "assert True")),
        ],
        reviewer=(person := Person(accept_tests=True)),
    )

    assert engine.run() == EXIT_SUCCESS
    assert (project / "workspace" / "tests" / "test_calc.py").read_text() == WEAK
    # its old form fails against the new code: SUCCESS needed the person's yes, which it got
    assert person.asked_rewritten == ["tests/test_calc.py::test_add"]
    assert "1 rewritten" in state_of(project).stop_reason


def test_a_new_test_file_is_not_locked_and_lands_undecided() -> None:
    proposal = Proposal(
        1, (FileChange("tests/test_new.py", None, TEST), FileChange("calc.py", BAD, GOOD))
    )
    decisions = Decisions()

    assert locked_test_paths(proposal) == []
    assert hold_locked_tests(proposal, decisions) == []
    assert decisions.for_file(proposal.changes[1]) == [HunkDecision.UNDECIDED]


def test_only_undecided_hunks_of_a_locked_test_are_held() -> None:
    old = TEST + "\n\ndef test_two():\n    assert add(1, 1) == 2\n"
    new = old.replace("== 5", "!= 0").replace("== 2", "> 0")
    change = FileChange("tests/test_calc.py", old, new)
    proposal = Proposal(1, (change,))
    decisions = Decisions()
    decisions.set(change.path, 0, HunkDecision.ACCEPTED)

    assert hold_locked_tests(proposal, decisions) == ["tests/test_calc.py"]
    assert decisions.for_file(change) == [HunkDecision.ACCEPTED, HunkDecision.REJECTED]


def test_auto_refuses_an_edit_of_a_locked_test_back_to_the_model(project: Path) -> None:
    engine, provider = make_engine(
        project,
        [
            attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
            attempt(
                replace("/workspace/tests/test_calc.py", "assert add(2, 3) == 5", "assert True"),
                replace("calc.py", "a - b", "a + b"),
            ),
        ],
    )

    assert engine.run() == EXIT_SUCCESS
    assert (project / "workspace" / "tests" / "test_calc.py").read_text() == TEST
    results = [
        block
        for request in provider.requests
        for message in request.messages
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result" and block.get("is_error")
    ]
    assert any("tests are the contract" in str(r["content"]) for r in results)
    assert any("ask_user" in str(r["content"]) for r in results)


def test_allow_test_edits_lets_auto_change_a_test_but_not_succeed_by_it(project: Path) -> None:
    config = fast_config()
    config.safety.allow_test_edits = True
    engine, _ = make_engine(
        project,
        [
            attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
            attempt(replace("tests/test_calc.py", "assert add(2, 3) == 5", "assert True")),
        ],
        config=config,
    )

    assert engine.run() == EXIT_FAILED
    assert (project / "workspace" / "tests" / "test_calc.py").read_text() == WEAK
    state = state_of(project)
    assert state.state is RunState.FAILED and state.exit_code == EXIT_FAILED
    assert state.stop_reason == (
        "tests rewritten to pass: tests/test_calc.py::test_add (its old form failed); "
        "--auto never accepts a pass bought by rewriting the tests"
    )
