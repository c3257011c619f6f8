"""End to end: the installed ``orch-tui --plan --auto`` against the local fake Messages API."""

from __future__ import annotations

import json
import re
import signal
import subprocess

import pytest

from tests.support.e2e_support import (
    DEMO_DIR,
    assert_clean_exit,
    attempt_turns,
    child_env,
    first_requests,
    orch_tui,
)
from tests.support.fake_anthropic import Turn

pytestmark = pytest.mark.e2e

PLAN_LINE = r"plan \(2 tasks, from the model; planning [\d,]+ tokens, \$\d+\.\d{4}\):"
"""The plan's line in --auto, with what the planning turn took."""
SPEC = "# calc\n\nA module `app.py` with `add(a, b)` and `mul(a, b)`, and pytest tests.\n"
ADD = "def add(a, b):\n    return a + b\n"
MUL = "\n\ndef mul(a, b):\n    return a * b\n"
ADD_TEST = "from app import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
MUL_TEST = "from app import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
PLAN = {
    "tasks": [
        {"id": "t1", "title": "add", "description": "the sum", "acceptance": "add(2, 3) == 5"},
        {"id": "t2", "title": "mul", "description": "the product", "acceptance": "mul(2, 3) == 6"},
    ]
}


def test_plan_mode_plans_with_submit_plan_then_builds_each_task(project_factory, fake_server):
    fake = fake_server(
        [
            Turn([Turn.text("The plan."), Turn.tool_use("submit_plan", PLAN)], "tool_use"),
            *attempt_turns(
                "add", [("create", "app.py", ADD), ("create", "tests/test_add.py", ADD_TEST)]
            ),
            *attempt_turns(
                "mul",
                [
                    ("str_replace", "app.py", ADD, ADD + MUL),
                    ("create", "tests/test_mul.py", MUL_TEST),
                ],
            ),
        ]
    )
    project = project_factory(spec_text=SPEC, fake_url=fake.url)

    result = project.run_auto("--plan")

    assert_clean_exit(result, 0)
    assert re.search(PLAN_LINE, result.stdout), result.stdout
    assert "[task 1/2 · attempt 0/5] GENERATING" in result.stdout
    assert "[task 2/2 · attempt 0/5] GENERATING" in result.stdout
    bodies = [request.body for request in fake.requests]
    assert [tool["name"] for tool in bodies[0]["tools"]] == ["submit_plan"]
    assert len(first_requests(bodies)) == 3  # the plan, then one generation per task
    assert "Your task now is t2: mul" in json.dumps(bodies[-2]["messages"][0])
    state = project.state()
    assert state is not None and state["state"] == "SUCCESS"
    assert state["plan"]["tasks"] == [
        {"id": "t1", "title": "add", "status": "done", "first_attempt": 1},
        {"id": "t2", "title": "mul", "status": "done", "first_attempt": 2},
    ]
    assert json.loads((project.run_dir() / "plan.json").read_text()) == PLAN
    assert json.loads((project.attempt_dir(2) / "task.json").read_text()) == {"task": "t2"}

    status = project.run("status")
    assert_clean_exit(status, 0)
    assert "1/2 done     t1: add" in status.stdout and "2/2 done     t2: mul" in status.stdout
    assert json.loads(project.run("status", "--json").stdout)["plan"]["current"] == "t2"

    export = project.run("history", "--export", state["run_id"])
    assert_clean_exit(export, 0)
    assert "| 1 | t1: add | done | 1 |" in export.stdout
    assert "| 2 | t2: mul | done | 2 |" in export.stdout
    assert "## Attempt 0 (task plan): planned" in export.stdout
    assert "## Attempt 2 (task t2): passed" in export.stdout


def test_without_plan_the_run_is_unchanged(project_factory, fake_server):
    fake = fake_server(
        attempt_turns("add", [("create", "app.py", ADD), ("create", "tests/test_add.py", ADD_TEST)])
    )
    project = project_factory(spec_text=SPEC, fake_url=fake.url)
    result = project.run_auto()
    assert_clean_exit(result, 0)
    assert "[0/5] GENERATING" in result.stdout and "task" not in result.stdout
    assert "plan" not in (project.state() or {})
    assert "tools" in fake.requests[0].body
    tools = [tool["name"] for tool in fake.requests[0].body["tools"]]
    assert "str_replace_based_edit_tool" in tools and "submit_plan" not in tools


SLOW_MUL_TEST = """\
import pathlib
import time

from app import mul

STARTED = pathlib.Path(__file__).resolve().parents[1] / "task2-tests.flag"  # in workspace/


def test_mul():
    if not STARTED.exists():
        STARTED.write_text("sleeping")
        time.sleep(60)
    assert mul(2, 3) == 6
"""


def test_kill_9_in_task_two_resumes_there_without_asking_for_task_one(project_factory, fake_server):
    fake = fake_server(
        [
            Turn([Turn.tool_use("submit_plan", PLAN)], "tool_use"),
            *attempt_turns(
                "add", [("create", "app.py", ADD), ("create", "tests/test_add.py", ADD_TEST)]
            ),
            *attempt_turns(
                "mul",
                [
                    ("str_replace", "app.py", ADD, ADD + MUL),
                    ("create", "tests/test_mul.py", SLOW_MUL_TEST),
                ],
            ),
        ]
    )
    project = project_factory(spec_text=SPEC, fake_url=fake.url)
    flag = project.workspace / "task2-tests.flag"
    project.signal_once(flag, signal.SIGKILL, str(project.spec), "--auto", "--plan")
    state = project.state()
    assert state is not None and (state["state"], state["plan"]["current"]) == ("TESTING", "t2")
    asked = len(fake.requests)

    result = project.run_auto("--plan")

    assert_clean_exit(result, 0)
    assert len(fake.requests) == asked  # neither the plan nor task 1 is asked for again
    assert "[task 2/2 · attempt 0/5] tests: 2 passed" in result.stdout
    assert [t["status"] for t in (project.state() or {})["plan"]["tasks"]] == ["done", "done"]


def test_the_bundled_plan_demo_replays_without_a_key(tmp_path):
    result = subprocess.run(
        [orch_tui(), str(DEMO_DIR / "plan-spec.md"), "--plan", "--auto"],
        cwd=tmp_path,
        env=child_env(key=None),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert_clean_exit(result, 0)
    assert "replaying the bundled demo" in result.stdout
    assert re.search(PLAN_LINE, result.stdout), result.stdout
    assert "[task 2/2 · attempt 1/5] tests: 4 passed" in result.stdout
    module = (tmp_path / "workspace" / "temperatures.py").read_text()
    assert "def summary(" in module and 'raise ValueError("no readings' in module
