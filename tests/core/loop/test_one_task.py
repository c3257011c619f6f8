"""``--task ID``: one task of an approved plan runs alone, the others left as they are."""

from __future__ import annotations

import re

import pytest

from orch_tui.core.domain.events import Event, Notice
from orch_tui.core.loop.engine import EXIT_FAILED, EXIT_SUCCESS, Engine, ReopenRefused
from tests.core.loop.test_plan_engine import ADD, make_engine, state_json, task_one
from tests.support.scripting import CountingProvider, attempt, create, prompt_text, replace

SPEC = """# calc

## Task t1: add
`calc.add(a, b)` returns the sum.

## Task t2: mul
`calc.mul(a, b)` returns the product.

## Task t3: docs
A README.
"""
BAD_MUL = "\n\ndef mul(a, b):\n    return a + b\n"
MUL_TEST = "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"


def one_task_engine(project, provider, task: str, events=None) -> Engine:
    engine = make_engine(project, SPEC, provider, events=events)
    engine.options.task = task
    return engine


def statuses(project) -> list[tuple[str, str]]:
    return [(t["id"], t["status"]) for t in state_json(project)["plan"]["tasks"]]


def stopped_at_t2(project) -> int:
    """A planned run whose t1 passes and whose t2 fails (its one patch does not fix mul)."""
    provider = CountingProvider(
        [
            task_one(),
            attempt(replace("calc.py", ADD, ADD + BAD_MUL), create("tests/test_mul.py", MUL_TEST)),
            attempt(replace("calc.py", "return a + b\n\n\n", "return (a + b)\n\n\n")),
        ]
    )
    assert make_engine(project, SPEC, provider, max_retries=1).run() == EXIT_FAILED
    assert statuses(project) == [("t1", "done"), ("t2", "failed"), ("t3", "pending")]
    return state_json(project)["attempt"]


def test_task_runs_one_task_of_the_plan_and_leaves_the_others(tmp_path):
    last = stopped_at_t2(tmp_path)
    fix = attempt(
        replace("calc.py", "def mul(a, b):\n    return a + b", "def mul(a, b):\n    return a * b")
    )
    provider = CountingProvider([*[[]] * (last + 1), fix])
    events: list[Event] = []

    assert one_task_engine(tmp_path, provider, "t2", events).run() == EXIT_SUCCESS

    assert statuses(tmp_path) == [("t1", "done"), ("t2", "done"), ("t3", "pending")]
    state = state_json(tmp_path)
    assert state["attempt"] == last + 1 and provider.attempts_asked == [last + 1]
    assert state["stop_reason"] == "task t2 passed (--task); not done: t3"
    assert "only" not in state["plan"]
    assert "Your task now is t2: mul" in prompt_text(provider.requests[0])
    notes = [e.message for e in events if isinstance(e, Notice)]
    assert any(n.startswith("--task t2: running task t2 alone") for n in notes)


def test_task_naming_no_task_of_the_plan_is_refused_and_changes_nothing(tmp_path):
    stopped_at_t2(tmp_path)
    before = state_json(tmp_path)

    says = "--task t9: the plan has no such task (its tasks: t1, t2, t3)"
    with pytest.raises(ReopenRefused, match=re.escape(says)):
        one_task_engine(tmp_path, CountingProvider([]), "t9").run()
    assert state_json(tmp_path) == before


def test_task_without_a_plan_is_refused(tmp_path):
    (tmp_path / "spec.md").write_text("# calc\n\n`calc.add`.\n")
    engine = one_task_engine(tmp_path, CountingProvider([]), "t1")

    with pytest.raises(ReopenRefused, match="--task t1 runs one task of an approved plan"):
        engine.run()
    assert not (tmp_path / "state.json").exists() and not (tmp_path / "logs").exists()
