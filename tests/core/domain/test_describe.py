"""One wording for every event (core/domain/describe.py)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from orch_tui.core.config.paths import ProjectPaths, shown_workspace
from orch_tui.core.domain import events as ev  # TestsFinished by name would be collected
from orch_tui.core.domain.asking import QuestionSource
from orch_tui.core.domain.describe import describe, describe_decision, hunk_decisions
from orch_tui.core.domain.event_reading import event_from_json
from orch_tui.core.domain.events import (
    Event,
    QuestionAsked,
    RoleDecided,
    RunFinished,
)
from orch_tui.core.domain.roles import RoleVerdict
from orch_tui.core.domain.state import RunState
from orch_tui.core.domain.state_records import RoleRecord
from tests.core.domain.test_events import SAMPLES

EXPECTED = {
    "evidence": (
        "evidence: 1 test added (test_new passes without this change); test_old rewritten to "
        "pass (its old form failed); 1 weakened: tests/test_a.py: assert replaced by a constant "
        "in test_old; 3 of 140 changed lines run by no test; y"
    ),
    "run_started": "run r1 · spec.md · scripted m · sandbox bwrap · resuming at REVIEWING",
    "notice": "note: checks run without a sandbox",
    "restored": "note: restored attempt 1: undid 2 files from attempts 2–3",
    "state": "TESTING",
    "model_text": "model text: 8 characters",
    "tool_edit": "str_replace a.py (refused: No match)",
    "model_turn": "model turn 1: end_turn, 100 tokens",
    "proposal": "proposal: 2 files, +3 -1, 2 hunks",
    "review": "review: 2 hunks accepted, 1 rejected → 1 file to land",
    "applied": "applied 1 file to workspace/",
    "check_output": "output of pytest: 5 characters",
    "tests": "tests: 4 passed, 7 failed · failing: t0, t1, t2, t3, t4 (+2 more)",
    "plan": "plan (1 task, from the model)",
    "task_started": "task 1/2: t1: Parse",
    "task_finished": "task t1 done",
    "question": "the model asked: Strings too? (options: yes; no); recommended: no",
    "guidance": "guidance for attempt 1: yes",
    "reopened": "reopened a FAILED run at attempt 3 (retries up to 8)",
    "escalated": "escalated from small to big after 2 failed attempts",
    "role_decision": "verifier: insufficient: no test of empty input; no CLI",
    "final_checks": "final checks failed (e2e): e2e failed (exit 3)",
    "run_finished": "SUCCESS",
}


@pytest.mark.parametrize("event", SAMPLES, ids=lambda event: event.name)
def test_every_kind_of_event_has_its_own_line(event: Event) -> None:
    line = describe(event)
    assert line == EXPECTED[event.name]
    assert "\n" not in line


@pytest.mark.parametrize(
    ("source", "who"),
    [
        (QuestionSource.MODEL, "the model asked"),
        (QuestionSource.JUDGE, "the judge asked"),
        (QuestionSource.STUCK, "stuck, asked a person"),
    ],
)
def test_a_question_names_who_asked(source: QuestionSource, who: str) -> None:
    question = QuestionAsked(
        attempt=0, question="Go on?", options=[], recommendation="", source=source
    )
    assert describe(question) == f"{who}: Go on?"


@pytest.mark.parametrize(
    ("decision", "line"),
    [
        ({"decision": RoleVerdict.RETRY, "guidance": "check the sign"}, "judge: retry: check the sign"),
        ({"decision": RoleVerdict.RETRY}, "judge: retry"),
        ({"decision": RoleVerdict.ASK, "question": "Which?"}, "judge: ask a person: Which?"),
        ({"decision": RoleVerdict.SUFFICIENT, "reason": "all tested"}, "verifier: sufficient (all tested)"),
        ({"decision": RoleVerdict.NONE, "reason": "no tool call"}, "judge: no decision (no tool call)"),
    ],
)  # fmt: skip
def test_a_role_decision_reads_the_same_from_its_event_and_from_state_json(
    decision: dict[str, str], line: str
) -> None:
    event = RoleDecided(attempt=1, role="judge", model="m", **decision)
    assert describe(event) == line
    saved = {key: value for key, value in event.to_json().items() if key not in ("event", "at")}
    assert describe_decision(RoleRecord.from_json(saved, "judge").decision) == line


def test_a_role_decision_in_a_hand_edited_state_file_still_reads() -> None:
    record = RoleRecord.from_json({"reason": "?"}, "verifier")
    assert describe_decision(record.decision) == "verifier: no decision (?)"


def test_the_stop_reason_follows_the_final_state() -> None:
    finished = dataclasses.replace(SAMPLES[-1], stop_reason="no retries left")
    assert isinstance(finished, RunFinished)
    assert describe(finished) == "SUCCESS: no retries left"
    failed = dataclasses.replace(finished, state=RunState.FAILED)
    assert describe(failed) == "FAILED: no retries left"


def test_passing_tests_name_no_failures() -> None:
    passed = ev.TestsFinished(
        attempt=1, passed=True, summary="5 passed", counts={}, failing=[], errors=[]
    )
    assert describe(passed) == "tests: 5 passed"


def test_an_unknown_event_says_what_it_is_and_why() -> None:
    unknown = event_from_json({"event": "batch_started", "jobs": 4})
    assert (
        describe(unknown)
        == "unknown event 'batch_started' (an event kind this version does not know)"
    )


def test_applied_files_name_the_workspace_they_landed_in(tmp_path: Path) -> None:
    project = ProjectPaths(tmp_path / "project")
    chosen = project.with_workspace(tmp_path / "repo")
    event = ev.ChangeApplied(attempt=0, files=["a.py", "b.py"], workspace=shown_workspace(chosen))

    assert describe(event) == "applied 2 files to ../repo"
    assert shown_workspace(project) == "workspace/"
    assert describe(event_from_json({"event": "applied", "attempt": 0, "files": ["a"]})) == (
        "applied 1 file to workspace/"  # a log written before the field
    )


def test_decisions_count_hunks_accepted_by_default_with_the_accepted() -> None:
    assert hunk_decisions(0, 0, 2) == "2 hunks accepted (2 by default)"
    assert hunk_decisions(1, 1, 0) == "1 hunk accepted, 1 rejected"
    assert hunk_decisions(0, 3, 0) == "0 hunks accepted, 3 rejected"


def test_loading_the_wordings_compiles_nothing() -> None:
    """Issue 26: every run's start loads them; registering each wording by its annotation had
    ``typing`` compile the annotations (46 compilations) as the module loaded."""
    script = (
        "import builtins, sys\n"
        "import orch_tui.core.domain.events, orch_tui.core.domain.evidence\n"
        "import orch_tui.core.domain.roles, orch_tui.core.util.wording\n"
        "from orch_tui.core.domain.events import Notice\n"
        "note = Notice(message='hello')\n"
        "compiled = []\n"
        "real = builtins.compile\n"
        "def counted(source, *args, **kwargs):  # text: a module's own code is bytes\n"
        "    if isinstance(source, str):\n"
        "        compiled.append(source)\n"
        "    return real(source, *args, **kwargs)\n"
        "builtins.compile = counted\n"
        "from orch_tui.core.domain.describe import describe\n"
        "print(len(compiled), describe(note))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "note:", "hello"]
