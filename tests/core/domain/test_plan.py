"""The plan model: a task list in the spec, a submit_plan input, the Markdown round trip."""

from __future__ import annotations

import pytest

from orch_tui.core.domain.plan import (
    Plan,
    PlanError,
    Task,
    parse_markdown,
    render_markdown,
    tasks_from_spec,
)

HEADED_SPEC = """# Word stats

Build a word counter.

```markdown
## Task 9: an example inside a code block, not a task
- [ ] nor this checklist item
```

## Task 1: Counting
Count words in a text.

Acceptance: count("a b") == 2

## Task 2 - CLI
A command line around it.

## Notes
Not part of task 2.
"""

CHECKLIST_SPEC = """# Spec

~~~
- [ ] example only
~~~

- [ ] Parse the input
  lines of text
  Acceptance: parse("") == []
- [x] Print totals

Closing words.
"""


def test_task_headings_in_the_spec_are_the_plan_and_code_blocks_are_not():
    plan = tasks_from_spec(HEADED_SPEC)
    assert plan == Plan(
        (
            Task("1", "Counting", "Count words in a text.", 'count("a b") == 2'),
            Task("2", "CLI", "A command line around it.", ""),
        )
    )


def test_a_checklist_in_the_spec_is_the_plan_and_fenced_examples_are_not():
    plan = tasks_from_spec(CHECKLIST_SPEC)
    assert plan is not None
    assert [(t.id, t.title) for t in plan.tasks] == [
        ("t1", "Parse the input"),
        ("t2", "Print totals"),
    ]
    assert plan.tasks[0].description == "lines of text"
    assert plan.tasks[0].acceptance == 'parse("") == []'


def test_a_spec_whose_only_list_is_in_a_code_block_has_no_plan():
    spec = "# Spec\n\nDo it.\n\n```\n- [ ] example\n## Task 1: example\n```\n"
    assert tasks_from_spec(spec) is None


def test_a_valid_submit_plan_input_becomes_a_plan():
    data = {"tasks": [{"id": "t1", "title": " Core ", "description": "d", "acceptance": "a"}]}
    assert Plan.from_json(data).tasks == (Task("t1", "Core", "d", "a"),)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, '"tasks" list'),
        ({"tasks": []}, "no tasks"),
        ({"tasks": ["x"]}, "task 1 is not an object"),
        ({"tasks": [{"id": "a", "title": "t", "description": "d"}]}, '"acceptance"'),
        ({"tasks": [{"id": "", "title": "t", "description": "", "acceptance": ""}]}, "non-empty"),
        (
            {"tasks": [{"id": "a", "title": "t", "description": "", "acceptance": ""}] * 2},
            "task 2 repeats the id 'a'",
        ),
    ],
)
def test_an_invalid_submit_plan_input_says_what_is_wrong(data, message):
    with pytest.raises(PlanError, match=message):
        Plan.from_json(data)


def test_markdown_round_trip_keeps_the_plan():
    plan = Plan(
        (
            Task("t1", "Core", "Two lines\nof description.", "tests pass"),
            Task("t2", "CLI", "", "prints totals"),
        )
    )
    assert parse_markdown(render_markdown(plan)) == plan


def test_markdown_edits_reorder_and_drop_tasks():
    text = "# Plan\n\n## b: Second\n\nAcceptance: ok\n\n## a: First\nbody\n"
    plan = parse_markdown(text)
    assert [t.id for t in plan.tasks] == ["b", "a"]
    assert plan.tasks[1].description == "body"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("# Plan\nstray words\n## a: A\n", "line 2: text before"),
        ("# Plan\n\n## a: A\n\n## no title here\n", "line 5: a task heading"),
        ("## a: A\n## a: again\n", "line 2: the id 'a' is already used on line 1"),
        ("# Plan\n", "line 1: the plan has no"),
    ],
)
def test_markdown_errors_name_the_line(text, message):
    with pytest.raises(PlanError, match=message):
        parse_markdown(text)
