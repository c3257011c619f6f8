"""Plan tasks that name their files: an edit outside them (their tests excepted) is refused."""

from __future__ import annotations

import json

import pytest

from orch_tui.core.domain.plan import Plan, PlanError, parse_markdown, render_markdown
from orch_tui.core.loop.engine import EXIT_FAILED, EXIT_SUCCESS
from tests.core.loop.test_plan_engine import (
    ADD,
    ADD_TEST,
    MUL,
    MUL_TEST,
    make_engine,
    run_dir,
    state_json,
    submit,
)
from tests.support.scripting import CountingProvider, attempt, create, prompt_text, replace, turn

SPEC = "# calc\n\n`calc.add` and `calc.mul`, with notes in NOTES.md.\n"
PLAN = {
    "tasks": [
        {
            "id": "t1",
            "title": "add",
            "description": "the sum",
            "acceptance": "add works",
            "files": ["calc.py"],
        },
        {"id": "t2", "title": "mul", "description": "the product", "acceptance": "mul works"},
    ]
}


def test_an_edit_outside_the_tasks_files_is_refused_naming_them_and_their_tests_pass(tmp_path):
    provider = CountingProvider(
        [
            [submit(PLAN)],
            [
                turn("Also notes.", create("NOTES.md", "notes\n")),
                *attempt(create("calc.py", ADD), create("tests/test_calc.py", ADD_TEST)),
            ],
            attempt(
                replace("calc.py", ADD, ADD + MUL),
                create("tests/test_mul.py", MUL_TEST),
                create("NOTES.md", "mul\n"),
            ),
        ]
    )
    engine = make_engine(tmp_path, SPEC, provider)

    assert engine.run() == EXIT_SUCCESS

    refused = json.dumps(provider.requests[2].messages[-1])
    assert "NOTES.md is outside task t1's files: calc.py (and their tests)" in refused
    assert '"is_error": true' in refused
    assert "Change only these files (and their tests): calc.py" in prompt_text(provider.requests[1])
    workspace = tmp_path / "workspace"
    assert (workspace / "tests" / "test_calc.py").read_text() == ADD_TEST  # a test of calc.py
    assert (workspace / "NOTES.md").read_text() == "mul\n"  # t2 names no files: any file
    saved = json.loads((run_dir(tmp_path) / "plan.json").read_text())
    assert saved["tasks"][0]["files"] == ["calc.py"] and "files" not in saved["tasks"][1]


def test_a_files_entry_outside_the_workspace_is_a_plan_error_before_any_task(tmp_path):
    outside = {"tasks": [{**PLAN["tasks"][0], "files": ["../elsewhere.py"]}]}
    provider = CountingProvider([[submit(outside), submit(outside), submit(outside)]])
    engine = make_engine(tmp_path, SPEC, provider)

    assert engine.run() == EXIT_FAILED

    assert provider.attempts_asked == [0]
    reason = state_json(tmp_path)["stop_reason"]
    assert "task 1's file '../elsewhere.py' is outside the workspace" in reason


@pytest.mark.parametrize("entry", ["/etc/passwd", "../x.py", "a/../../x.py", "~/x.py", " "])
def test_files_outside_the_workspace_or_empty_are_refused(entry):
    with pytest.raises(PlanError, match="task 1"):
        Plan.from_json({"tasks": [{**PLAN["tasks"][0], "files": [entry]}]})


def test_files_survive_the_markdown_edit_and_a_spec_can_name_them():
    plan = Plan.from_json(PLAN)
    text = render_markdown(plan)

    assert "Files: calc.py" in text
    assert parse_markdown(text) == plan
    edited = parse_markdown(text.replace("Files: calc.py", "Files: calc.py, `util.py`"))
    assert edited.tasks[0].files == ("calc.py", "util.py")
    assert edited.tasks[0].description == "the sum"


def test_a_task_list_in_the_spec_names_files_with_a_files_line():
    from orch_tui.core.domain.plan import tasks_from_spec

    plan = tasks_from_spec("# s\n\n## Task 1: add\nThe sum.\nFiles: calc.py, tests/\n")

    assert plan is not None and plan.tasks[0].files == ("calc.py", "tests/")
    assert plan.tasks[0].description == "The sum."
