"""Asking a person, guidance, --continue and escalation, in process with the scripted provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orch_tui.core.config.models import Price
from orch_tui.core.domain.events import Escalated, Event, GuidanceGiven, QuestionAsked, RunReopened
from orch_tui.core.domain.state import RunState
from orch_tui.core.loop.engine import (
    EXIT_FAILED,
    EXIT_NEEDS_HELP,
    EXIT_SUCCESS,
    ReopenRefused,
)
from orch_tui.core.providers.base import Usage
from tests.core.loop import test_engine
from tests.core.loop.test_engine import BAD, GOOD, TEST, fast_config, make_engine, run_dir, state_of
from tests.support.scripting import ask, attempt, create, prompt_text, replace, turn

# The engine tests' fixtures: a project folder with spec.md, and checks without plugin autoload.
project = test_engine.project
_no_plugin_autoload = test_engine._no_plugin_autoload

QUESTION = "Should add() accept strings?"


def test_ask_user_is_offered_in_every_turn(project: Path) -> None:
    engine, provider = make_engine(project, [attempt(create("calc.py", GOOD))])
    engine.run()
    for request in provider.requests:
        names = [tool["name"] for tool in request.tools]
        assert names == ["str_replace_based_edit_tool", "ask_user"]
        schema = request.tools[1]["input_schema"]
        assert schema["required"] == ["question"] and "options" in schema["properties"]


def test_ask_user_stops_at_needs_help_then_guidance_continues_to_success(project: Path) -> None:
    script = [
        ask(QUESTION, "yes", "no", recommendation="no: the spec says numbers"),
        attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST)),
    ]
    events: list[Event] = []
    engine, provider = make_engine(project, script, events=events)

    assert engine.run() == EXIT_NEEDS_HELP
    state = state_of(project)
    assert state.state is RunState.NEEDS_HELP and state.exit_code == EXIT_NEEDS_HELP
    assert state.question is not None and state.question.to_json() == {
        "text": QUESTION,
        "options": ["yes", "no"],
        "recommendation": "no: the spec says numbers",
        "source": "model",
    }
    saved = json.loads((project / "state.json").read_text())
    assert saved["state"] == "NEEDS_HELP" and saved["question"]["text"] == QUESTION
    asked = [e for e in events if isinstance(e, QuestionAsked)]
    assert [(e.question, e.options, e.source) for e in asked] == [
        (QUESTION, ["yes", "no"], "model")
    ]
    assert not (run_dir(project) / "attempt-00" / "proposal.json").exists()
    assert provider.attempts_asked == [0]
    run_id = state.run_id

    answer = "No. Numbers only; raise TypeError for strings."
    events = []
    engine, provider = make_engine(project, script, events=events)
    engine.options.guidance = answer
    assert engine.run() == EXIT_SUCCESS
    state = state_of(project)
    assert state.run_id == run_id and state.state is RunState.SUCCESS and state.attempt == 1
    assert state.question is None
    given = [e for e in events if isinstance(e, GuidanceGiven)]
    assert [(e.attempt, e.text, e.question) for e in given] == [(1, answer, QUESTION)]
    prompt = prompt_text(provider.requests[0])
    assert provider.requests[0].attempt == 1
    assert answer in prompt and QUESTION in prompt
    assert "Write the first version" in prompt or "workspace is empty" in prompt
    logged = [json.loads(line)["event"] for line in (run_dir(project) / "events.jsonl").open()]
    assert "question" in logged and "guidance" in logged and "reopened" in logged


def test_an_option_number_answers_with_that_option(project: Path) -> None:
    script = [ask(QUESTION, "yes", "no"), attempt(create("calc.py", GOOD))]
    make_engine(project, script)[0].run()
    engine, provider = make_engine(project, script)
    engine.options.guidance = "2"
    engine.run()
    assert "verbatim:\n\nno" in prompt_text(provider.requests[0])


def test_needs_help_without_an_answer_asks_nothing_and_exits_4_again(project: Path) -> None:
    script = [ask(QUESTION), attempt(create("calc.py", GOOD))]
    make_engine(project, script)[0].run()
    engine, provider = make_engine(project, script)
    assert engine.run() == EXIT_NEEDS_HELP
    assert provider.requests == []


def test_stuck_run_fails_by_default(project: Path) -> None:
    script = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a * b")),
    ]
    engine, _ = make_engine(project, script, max_retries=1)
    assert engine.run() == EXIT_FAILED


def test_stuck_run_asks_with_the_failing_tests_when_on_stuck_is_ask(project: Path) -> None:
    config = fast_config()
    config.loop.on_stuck = "ask"
    script = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a * b")),
        attempt(replace("calc.py", "a * b", "a + b")),
    ]
    engine, _ = make_engine(project, script, config=config, max_retries=1)
    assert engine.run() == EXIT_NEEDS_HELP
    state = state_of(project)
    assert state.question is not None and state.question.source == "stuck"
    assert "tests/test_calc.py::test_add" in state.question.text
    assert "retries exhausted" in state.question.text

    engine, provider = make_engine(project, script, config=config, max_retries=1)
    engine.options.guidance = "add means +"
    assert engine.run() == EXIT_SUCCESS
    prompt = prompt_text(provider.requests[0])
    assert "add means +" in prompt and "tests/test_calc.py::test_add" in prompt


def test_continue_after_failed_keeps_run_id_and_logs_with_a_fresh_budget(project: Path) -> None:
    script = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a * b")),
        attempt(replace("calc.py", "a * b", "a + b")),
    ]
    engine, _ = make_engine(project, script, max_retries=1)
    assert engine.run() == EXIT_FAILED
    failed = state_of(project)
    first_logs = sorted(p.name for p in run_dir(project).iterdir())

    events: list[Event] = []
    engine, provider = make_engine(project, script, max_retries=2, events=events)
    engine.options.continue_run = True
    assert engine.run() == EXIT_SUCCESS
    state = state_of(project)
    assert state.run_id == failed.run_id and state.attempt == 2 and state.max_retries == 3
    assert provider.attempts_asked == [2]
    assert set(first_logs) <= {p.name for p in run_dir(project).iterdir()}
    assert [(e.from_state, e.attempt) for e in events if isinstance(e, RunReopened)] == [
        ("FAILED", 2)
    ]


def test_continue_refuses_a_successful_run(project: Path) -> None:
    script = [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))]
    assert make_engine(project, script)[0].run() == EXIT_SUCCESS
    engine, _ = make_engine(project, script)
    engine.options.continue_run = True
    with pytest.raises(ReopenRefused, match="already succeeded"):
        engine.run()
    assert state_of(project).state is RunState.SUCCESS


def test_escalation_switches_the_model_after_n_failures_and_prices_it(project: Path) -> None:
    config = fast_config()
    config.model.escalate_to = "claude-opus-4-1"
    config.loop.escalate_after = 2
    config.prices = {
        config.model.name: Price(input=1.0, output=0.0, cache_write=0.0, cache_read=0.0),
        "claude-opus-4-1": Price(input=100.0, output=0.0, cache_write=0.0, cache_read=0.0),
    }
    usage = Usage(input_tokens=1_000_000)
    script = [
        [turn("gen", create("calc.py", BAD), create("tests/test_calc.py", TEST), usage=usage)],
        [turn("p1", replace("calc.py", "a - b", "a * b"), usage=usage)],
        [turn("p2", replace("calc.py", "a * b", "a + b"), usage=usage)],
    ]
    for turns in script:
        turns.append(turn("Done.", usage=Usage()))
    events: list[Event] = []
    engine, provider = make_engine(project, script, config=config, events=events)
    assert engine.run() == EXIT_SUCCESS
    models = {request.attempt: request.model for request in provider.requests}
    assert models == {0: "claude-sonnet-5", 1: "claude-sonnet-5", 2: "claude-opus-4-1"}
    escalated = [e for e in events if isinstance(e, Escalated)]
    assert [(e.attempt, e.to_model) for e in escalated] == [(2, "claude-opus-4-1")]
    assert state_of(project).cost_usd == pytest.approx(1.0 + 1.0 + 100.0)


def test_export_and_status_show_question_answer_and_escalation(project: Path, capsys) -> None:
    from orch_tui.core.history.export import export_markdown
    from orch_tui.tui.cli.commands import main

    config = fast_config()
    config.model.escalate_to = "claude-opus-4-1"
    config.loop.escalate_after = 1
    script = [
        ask(QUESTION, "yes", "no", recommendation="no"),
        attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST)),
    ]
    make_engine(project, script, config=config)[0].run()
    (project / "orchestrator.toml").write_text("")
    assert main(["status", "--config", str(project / "orchestrator.toml")]) == 0
    status = capsys.readouterr().out
    assert "NEEDS_HELP" in status and QUESTION in status and "1. yes" in status
    assert "--guidance" in status

    engine, _ = make_engine(project, script, config=config)
    engine.options.guidance = "1"
    assert engine.run() == EXIT_SUCCESS
    report = export_markdown(project / "logs", state_of(project).run_id)
    assert "## Attempt 0: asked" in report
    assert f"- the model asked: {QUESTION} (options: yes; no); recommended: no" in report
    assert "- guidance for attempt 1: yes" in report
    assert "- escalated from claude-sonnet-5 to claude-opus-4-1" in report
