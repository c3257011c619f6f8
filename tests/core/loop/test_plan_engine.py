"""Plan mode in the engine, with the scripted provider and real pytest in a real workspace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.describe import describe
from orch_tui.core.domain.events import Event, EventBus, RunFinished, TaskStarted
from orch_tui.core.domain.plan import SUBMIT_PLAN
from orch_tui.core.domain.spec import read_spec
from orch_tui.core.domain.state import RunState, StateStore
from orch_tui.core.loop.engine import EXIT_FAILED, EXIT_SUCCESS, Engine, RunOptions
from orch_tui.core.loop.review import AcceptAllReviewer
from orch_tui.core.providers.base import AssistantTurn, ModelError, Usage
from orch_tui.core.runlog.conversation import turns_with_content
from tests.core.loop.test_engine import fast_config
from tests.support.scripting import CountingProvider, attempt, create, prompt_text, replace

ADD = "def add(a, b):\n    return a + b\n"
ADD_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
MUL = "\n\ndef mul(a, b):\n    return a * b\n"
MUL_TEST = "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"

PLANNED_SPEC = """# calc

```markdown
## Task 9: an example in a code block
- [ ] not a task either
```

## Task 1: add
`calc.add(a, b)` returns the sum.

Acceptance: add(2, 3) == 5

## Task 2: mul
`calc.mul(a, b)` returns the product.
"""

PLAIN_SPEC = "# calc\n\n`calc.add` and `calc.mul`.\n"

TWO_TASKS = {
    "tasks": [
        {"id": "t1", "title": "add", "description": "the sum", "acceptance": "add works"},
        {"id": "t2", "title": "mul", "description": "the product", "acceptance": "mul works"},
    ]
}


@pytest.fixture(autouse=True)
def _no_plugin_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def submit(plan: Any, text: str = "Here is the plan.") -> AssistantTurn:
    return AssistantTurn(
        content=[
            {"type": "text", "text": text},
            {"type": "tool_use", "id": "toolu_plan", "name": SUBMIT_PLAN, "input": plan},
        ],
        stop_reason="tool_use",
        usage=Usage(input_tokens=10, output_tokens=5),
    )


def task_one() -> list[AssistantTurn]:
    return attempt(create("calc.py", ADD), create("tests/test_add.py", ADD_TEST))


def task_two() -> list[AssistantTurn]:
    return attempt(replace("calc.py", ADD, ADD + MUL), create("tests/test_mul.py", MUL_TEST))


def make_engine(
    project: Path, spec_text: str, provider: CountingProvider, *, max_retries: int = 3, events=None
) -> Engine:
    spec = project / "spec.md"
    if not spec.exists():
        spec.write_text(spec_text)
    bus = EventBus()
    if events is not None:
        bus.subscribe(events.append)
    return Engine(
        paths=ProjectPaths(project),
        config=fast_config(),
        spec=read_spec(spec),
        provider=provider,
        reviewer=AcceptAllReviewer(),
        bus=bus,
        options=RunOptions(max_retries=max_retries, plan=True),
    )


def state_json(project: Path) -> dict[str, Any]:
    return json.loads((project / "state.json").read_text())


def run_dir(project: Path) -> Path:
    return project / "logs" / state_json(project)["run_id"]


def test_a_task_list_in_the_spec_is_the_plan_and_each_task_runs_its_own_loop(tmp_path):
    provider = CountingProvider([task_one(), task_two()])
    events: list[Event] = []
    engine = make_engine(tmp_path, PLANNED_SPEC, provider, events=events)
    assert engine.run() == EXIT_SUCCESS
    # no planning request: the spec's own list is the plan; the code-block example is not a task
    assert provider.attempts_asked == [0, 1]
    assert all(SUBMIT_PLAN not in json.dumps(r.tools) for r in provider.requests)
    saved = json.loads((run_dir(tmp_path) / "plan.json").read_text())
    assert [t["id"] for t in saved["tasks"]] == ["1", "2"]
    plan = state_json(tmp_path)["plan"]
    assert [(t["id"], t["status"]) for t in plan["tasks"]] == [("1", "done"), ("2", "done")]
    # the prompt of task 2 carries the whole plan with statuses and the task itself
    prompt = prompt_text(provider.requests[2])
    assert "- [done] 1: add" in prompt and "- [running] 2: mul" in prompt
    assert "Your task now is 2: mul" in prompt
    started = [(e.task_id, e.first_attempt) for e in events if isinstance(e, TaskStarted)]
    assert started == [("1", 0), ("2", 1)]


def test_without_a_task_list_the_model_plans_first_with_submit_plan(tmp_path, monkeypatch, capsys):
    provider = CountingProvider([[submit(TWO_TASKS)], task_one(), task_two()])
    events: list[Event] = []
    engine = make_engine(tmp_path, PLAIN_SPEC, provider, events=events)
    assert engine.run() == EXIT_SUCCESS
    _attempts_and_planning_cost_agree(tmp_path, events, monkeypatch, capsys)
    planning = provider.requests[0]
    assert planning.attempt == 0
    assert [tool["name"] for tool in planning.tools] == [SUBMIT_PLAN]
    assert (tmp_path / "workspace" / "calc.py").read_text() == ADD + MUL
    conversation = json.loads((run_dir(tmp_path) / "attempt-00" / "conversation.json").read_text())
    assert turns_with_content(conversation)[0]["content"][1]["name"] == SUBMIT_PLAN
    assert state_json(tmp_path)["plan"]["current"] == "t2"


def test_an_invalid_plan_goes_back_as_a_tool_error_then_a_valid_one_is_kept(tmp_path):
    bad = {"tasks": [{"id": "t1", "title": "add"}]}
    provider = CountingProvider([[submit(bad), submit(TWO_TASKS)], task_one(), task_two()])
    assert make_engine(tmp_path, PLAIN_SPEC, provider).run() == EXIT_SUCCESS
    result = provider.requests[1].messages[-1]["content"][0]
    assert result["type"] == "tool_result" and result["is_error"] is True
    assert '"description"' in result["content"]


def test_three_invalid_plans_fail_the_run_with_the_reason(tmp_path):
    bad = {"tasks": []}
    provider = CountingProvider([[submit(bad), submit(bad), submit(bad), submit(TWO_TASKS)]])
    assert make_engine(tmp_path, PLAIN_SPEC, provider).run() == EXIT_FAILED
    assert len(provider.requests) == 3  # the first answer and two retries, no fourth request
    saved = state_json(tmp_path)
    assert saved["state"] == "FAILED"
    assert saved["stop_reason"] == (
        "no valid plan after 3 tries: the plan is not valid: the plan has no tasks. "
        "Submit the whole plan again."
    )


def test_every_task_has_its_own_retry_budget(tmp_path):
    wrong_add = attempt(
        create("calc.py", ADD.replace("+", "-")), create("tests/test_add.py", ADD_TEST)
    )
    fix_add = attempt(replace("calc.py", "a - b", "a + b"))
    wrong_mul = attempt(
        replace("calc.py", ADD, ADD + MUL.replace("*", "+")), create("tests/test_mul.py", MUL_TEST)
    )
    fix_mul = attempt(
        replace("calc.py", "mul(a, b):\n    return a + b", "mul(a, b):\n    return a * b")
    )
    provider = CountingProvider([wrong_add, fix_add, wrong_mul, fix_mul])
    # one patch per task: four attempts in all, twice what a flat run with max_retries 1 allows
    assert make_engine(tmp_path, PLANNED_SPEC, provider, max_retries=1).run() == EXIT_SUCCESS
    assert provider.attempts_asked == [0, 1, 2, 3]


def test_a_task_whose_budget_runs_out_stops_the_run_naming_the_task(tmp_path):
    wrong_mul = attempt(
        replace("calc.py", ADD, ADD + MUL.replace("*", "+")), create("tests/test_mul.py", MUL_TEST)
    )
    still_wrong = attempt(create("notes.txt", "thinking\n"))
    provider = CountingProvider([task_one(), wrong_mul, still_wrong])
    assert make_engine(tmp_path, PLANNED_SPEC, provider, max_retries=1).run() == EXIT_FAILED
    saved = state_json(tmp_path)
    assert saved["stop_reason"].startswith("task 2 (mul): retries exhausted: checks failed")
    assert [t["status"] for t in saved["plan"]["tasks"]] == ["done", "failed"]


class _Killed(BaseException):
    """Stands in for kill -9: nothing after it runs, the state on disk is what was saved."""


class KilledAt(CountingProvider):
    def __init__(self, attempts, kill_at: int) -> None:
        super().__init__(attempts)
        self.kill_at = kill_at

    def complete(self, request, on_text):  # type: ignore[override]
        if request.attempt == self.kill_at:
            raise _Killed
        return super().complete(request, on_text)


def test_a_run_killed_in_task_two_resumes_there_and_never_asks_for_task_one(tmp_path):
    script = [[submit(TWO_TASKS)], task_one(), task_two()]
    with pytest.raises(_Killed):
        make_engine(tmp_path, PLAIN_SPEC, KilledAt(script, kill_at=2)).run()
    assert StateStore(tmp_path / "state.json").load().state is RunState.GENERATING
    resumed = CountingProvider(script)
    assert make_engine(tmp_path, PLAIN_SPEC, resumed).run() == EXIT_SUCCESS
    assert resumed.attempts_asked == [2]  # neither the plan nor task 1 is asked again
    assert [t["status"] for t in state_json(tmp_path)["plan"]["tasks"]] == ["done", "done"]


def test_without_plan_mode_state_json_has_no_plan(tmp_path):
    (tmp_path / "spec.md").write_text(PLANNED_SPEC)
    engine = make_engine(tmp_path, PLANNED_SPEC, CountingProvider([task_one()]))
    engine.options.plan = False
    engine.run()
    assert "plan" not in state_json(tmp_path)
    assert not (run_dir(tmp_path) / "plan.json").exists()


class FailsOnce(CountingProvider):
    """The API fails on the first request (an overload, say), then answers."""

    def complete(self, request, on_text):  # type: ignore[override]
        if not self.requests:
            self.requests.append(request)
            raise ModelError("the API is overloaded (529)")
        return super().complete(request, on_text)


def test_a_model_error_while_planning_is_asked_again_by_the_same_command(tmp_path):
    script = [[submit(TWO_TASKS)], task_one(), task_two()]
    assert make_engine(tmp_path, PLAIN_SPEC, FailsOnce(script)).run() == EXIT_FAILED
    assert state_json(tmp_path)["stop_reason"].startswith("model error: the API is overloaded")
    again = CountingProvider(script)
    assert make_engine(tmp_path, PLAIN_SPEC, again).run() == EXIT_SUCCESS
    assert again.attempts_asked == [0, 1, 2]
    assert [t["status"] for t in state_json(tmp_path)["plan"]["tasks"]] == ["done", "done"]


def _attempts_and_planning_cost_agree(tmp_path, events, monkeypatch, capsys):
    """The planning turn is no attempt anywhere (issue 25, item 7): status, the history list,
    the export, the summary line and the verdict count 2 attempts, and each shows the
    planning turn's cost."""
    from orch_tui.tui.cli.commands import main

    spent = state_json(tmp_path)["plan"]["planning"]
    assert spent["tokens"] == 15  # the submit_plan turn's usage
    planning = f"15 tokens, ${spent['cost_usd']:.4f}"
    approved = next(event for event in events if event.name == "plan")
    assert describe(approved) == f"plan (2 tasks, from the model; planning {planning})"
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    assert f" · 2 attempts · planning {planning} · " in finished.summary
    assert (finished.stop_reason or "").endswith("after 2 attempts")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["status"]) == 0
    status = capsys.readouterr().out.splitlines()
    assert "state     SUCCESS (2 attempts after planning)" in status
    assert f"planning  {planning}" in status
    assert main(["history"]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert dict(zip(header.split("\t"), row.split("\t"), strict=True))["Attempts"] == "2"
    assert main(["history", "--export", row.split("\t")[0]]) == 0
    export = capsys.readouterr().out
    assert "| attempts | 2 |" in export and f"| planning | {planning} |" in export
