"""A state.json whose ``plan`` or ``workspace.git`` fields are malformed is exit 3 with the file
and the field named, never a traceback in ``status`` (issue 22, item 20)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orch_tui.core.domain.asking import QuestionSource
from orch_tui.core.domain.plan import TaskStatus
from orch_tui.core.domain.roles import Role, RoleDecision, RoleVerdict
from orch_tui.core.domain.state import StateError, StateStore
from tests.core.domain.test_state_file import saved_state
from tests.tui.cli.test_cli_commands import SPEC, run, scripted

GIT = {"start_branch": "main", "start_commit": "abc123", "branch": "orch/r"}
TASK = {"id": "t1", "title": "Add", "status": "running", "first_attempt": 0}


def workspace(**changes: Any) -> dict[str, Any]:
    return {"workspace": {"path": "/w", "default": False, "git": GIT, "commits": {}, **changes}}


def plan(*tasks: Any, **changes: Any) -> dict[str, Any]:
    return {"plan": {"tasks": list(tasks), "current": "t1", **changes}}


BAD = [
    (workspace(git={**GIT, "branch": 5}), "workspace.git.branch is 5, expected a string"),
    (workspace(git={"start_branch": "main"}), "missing key 'workspace.git.branch'"),
    (workspace(git={**GIT, "start_commit": []}), "workspace.git.start_commit is list"),
    (workspace(commits={"0": 7}), "workspace.commits.0 is 7, expected a string"),
    (workspace(commits=[]), "workspace.commits is list, expected an object"),
    (workspace(undone=["x"]), 'workspace.undone holds "x", not an attempt number'),
    (plan("t1"), 'plan.tasks[1] is "t1", expected an object'),
    (plan({**TASK, "id": 3}), "plan.tasks[1].id is 3, expected a string"),
    (plan({**TASK, "title": None}), "plan.tasks[1].title is null, expected a string"),
    (plan({**TASK, "status": "weird"}), 'plan.tasks[1].status is "weird", not a task status'),
    (plan({**TASK, "first_attempt": "0"}), 'plan.tasks[1].first_attempt is "0"'),
    (plan(TASK, current=["t1"]), "plan.current is list, expected a string"),
]


@pytest.mark.parametrize(("changes", "reason"), BAD, ids=[reason for _, reason in BAD])
def test_a_malformed_plan_or_git_field_is_named(
    tmp_path: Path, changes: dict[str, Any], reason: str
) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps(saved_state(**changes)))

    with pytest.raises(StateError) as raised:
        StateStore(path).load()

    assert reason in str(raised.value)
    assert str(path) in str(raised.value)


def test_a_well_formed_state_with_plan_and_git_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    fields = saved_state(**workspace(commits={"0": "abc"}, undone=[1]), **plan(TASK))
    path.write_text(json.dumps(fields))

    state = StateStore(path).load()

    assert state is not None and state.to_json() == fields


@pytest.mark.parametrize(
    "changes", [workspace(git={**GIT, "branch": 5}), plan({"id": "t1"})], ids=["git", "plan"]
)
def test_status_and_the_run_exit_3_without_a_traceback(
    tmp_path: Path, changes: dict[str, Any]
) -> None:
    (tmp_path / "spec.md").write_text(SPEC, encoding="utf-8")
    (tmp_path / "state.json").write_text(json.dumps(saved_state(**changes)), encoding="utf-8")

    for args in (["status"], ["spec.md", "--auto", *scripted(tmp_path)]):
        result = run(tmp_path, *args)
        assert result.returncode == 3, (args, result.stderr)
        assert "Traceback" not in result.stderr
        assert f"{tmp_path / 'state.json'} is corrupt or unknown" in result.stderr


def test_every_record_reads_back_typed_and_writes_the_same_json(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    judged = {
        "attempt": 2,
        **RoleDecision(
            role=Role.JUDGE, model="m", decision=RoleVerdict.RETRY, guidance="check the sign"
        ).to_json(),
    }
    fields = saved_state(
        **workspace(commits={"0": "abc"}, protected_tests=["tests/test_a.py"]),
        **plan(TASK, {"id": "t2", "title": "Sub", "status": "pending", "first_attempt": None}),
        last_test={"passed": False, "summary": "1 failed", "failing": ["tests/test_a.py::t"]},
        question={"text": "Go on?", "options": ["yes"], "recommendation": "", "source": "judge"},
        roles={"judge": judged},
    )
    path.write_text(json.dumps(fields))

    state = StateStore(path).load()

    assert state is not None and state.to_json() == fields
    assert state.workspace is not None and state.workspace.git is not None
    assert state.workspace.git.branch == "orch/r"
    assert state.plan is not None and state.plan.current_task() == state.plan.tasks[0]
    assert state.plan.tasks[1].status is TaskStatus.PENDING
    assert state.last_test is not None and state.last_test.failing == ["tests/test_a.py::t"]
    assert state.question is not None and state.question.source is QuestionSource.JUDGE
    assert state.roles[Role.JUDGE].decision.decision is RoleVerdict.RETRY


def test_a_role_that_is_not_a_judge_or_verifier_is_named(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text(json.dumps(saved_state(roles={"critic": {"decision": "retry"}})))

    with pytest.raises(StateError, match=r'roles\."critic" is not a role'):
        StateStore(path).load()
