"""End to end: the installed ``orch-tui --auto`` asks a person (exit 4) and ``--guidance`` answers."""

from __future__ import annotations

import json

import pytest

from tests.e2e.test_e2e_auto import ADD_TEST, FIXED_APP, SPEC, generate
from tests.support.e2e_support import assert_clean_exit, first_requests
from tests.support.fake_anthropic import Turn

pytestmark = pytest.mark.e2e

QUESTION = "Should add() also concatenate strings?"
ANSWER = "No: numbers only, and say so in a docstring."


def test_ask_user_exits_4_then_guidance_continues_the_same_run(project_factory, fake_server):
    fake = fake_server(
        [
            Turn.ask(QUESTION, ["yes", "no"], "no: the spec only talks about numbers"),
            *generate(("app.py", FIXED_APP), ("tests/test_app.py", ADD_TEST)),
        ]
    )
    project = project_factory(spec_text=SPEC, fake_url=fake.url)

    asked = project.run_auto()

    assert_clean_exit(asked, 4)
    assert QUESTION in asked.stdout
    assert "1. yes" in asked.stdout and "2. no" in asked.stdout
    assert "recommended: no: the spec only talks about numbers" in asked.stdout
    assert "--guidance" in asked.stdout
    state = project.state()
    assert state is not None and state["state"] == "NEEDS_HELP" and state["exit_code"] == 4
    assert state["question"]["options"] == ["yes", "no"]
    run_id = state["run_id"]
    assert project.workspace_files() == {}
    assert [tool["name"] for tool in fake.requests[0].body["tools"]] == [
        "str_replace_based_edit_tool",
        "ask_user",
    ]

    answered = project.run_auto("--guidance", ANSWER)

    assert_clean_exit(answered, 0)
    state = project.state()
    assert state is not None and state["run_id"] == run_id and state["state"] == "SUCCESS"
    opening = first_requests(request.body for request in fake.requests)
    assert len(opening) == 2
    next_prompt = json.dumps(opening[1]["messages"][0])
    assert json.dumps(ANSWER)[1:-1] in next_prompt and json.dumps(QUESTION)[1:-1] in next_prompt
    events = [event["event"] for event in project.events()]
    assert events.count("question") == 1 and events.count("guidance") == 1


def test_guidance_on_a_successful_run_is_refused(project_factory, fake_server):
    fake = fake_server(generate(("app.py", FIXED_APP), ("tests/test_app.py", ADD_TEST)))
    project = project_factory(spec_text=SPEC, fake_url=fake.url)
    assert_clean_exit(project.run_auto(), 0)

    refused = project.run_auto("--guidance", "more please")

    assert_clean_exit(refused, 1)
    assert "already succeeded" in refused.stderr
    assert len(fake.requests) == 2
