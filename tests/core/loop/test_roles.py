"""The judge and verifier roles (model.judge, model.verifier), in process with the scripted provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orch_tui.core.config.models import Price
from orch_tui.core.domain.cost import Usage
from orch_tui.core.domain.events import Event, Notice, RoleDecided
from orch_tui.core.domain.roles import Role, RoleVerdict
from orch_tui.core.domain.state import RunState
from orch_tui.core.loop.engine import EXIT_NEEDS_HELP, EXIT_SUCCESS
from orch_tui.core.providers.scripted import ScriptedProvider, ScriptError
from tests.core.loop import test_engine
from tests.core.loop.test_engine import BAD, GOOD, TEST, fast_config, make_engine, run_dir, state_of
from tests.support.scripting import (
    CountingProvider,
    attempt,
    create,
    judge_ask,
    judge_retry,
    prompt_text,
    replace,
    turn,
    verdict,
)

project = test_engine.project
_no_plugin_autoload = test_engine._no_plugin_autoload

JUDGE_MODEL = "claude-haiku-4-5"
VERIFIER_MODEL = "claude-opus-4-1"
ADVICE = "add() subtracts: return a + b instead."
GAP = "the spec's `calc.sub(a, b)` is not implemented or tested"
SUB_TEST = "from calc import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n"


def role_config(*, judge: str = "", verifier: str = ""):
    config = fast_config()
    config.model.judge = judge
    config.model.verifier = verifier
    return config


def role_requests(provider: CountingProvider, role: str) -> list:
    return [request for request in provider.requests if request.role == role]


def coding_prompt(provider: CountingProvider, attempt_number: int) -> str:
    first = next(r for r in provider.requests if r.attempt == attempt_number and not r.role)
    return prompt_text(first)


def logged(project: Path) -> list[dict]:
    lines = (run_dir(project) / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_judge_retry_puts_its_guidance_into_the_next_prompt(project: Path) -> None:
    script = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a + b")),
    ]
    provider = CountingProvider(script, {"judge": {0: judge_retry(ADVICE)}})
    events: list[Event] = []
    engine, _ = make_engine(project, provider, config=role_config(judge=JUDGE_MODEL), events=events)

    assert engine.run() == EXIT_SUCCESS
    (asked,) = role_requests(provider, "judge")
    assert asked.attempt == 0 and asked.model == JUDGE_MODEL
    assert asked.tool_choice == {"type": "tool", "name": "judge_decision"}
    assert [tool["name"] for tool in asked.tools] == ["judge_decision"]
    assert asked.tools[0]["input_schema"]["properties"]["decision"]["enum"] == ["retry", "ask"]
    judge_prompt = prompt_text(asked)
    assert "attempt 0 (generation): changed calc.py, tests/test_calc.py" in judge_prompt
    assert "tests/test_calc.py::test_add" in judge_prompt
    next_prompt = coding_prompt(provider, 1)
    assert "## Guidance from the judge" in next_prompt and ADVICE in next_prompt
    assert [
        (e.attempt, e.role, e.decision, e.guidance) for e in events if isinstance(e, RoleDecided)
    ] == [(0, "judge", "retry", ADVICE)]
    assert [e["decision"] for e in logged(project) if e["event"] == "role_decision"] == ["retry"]
    saved = json.loads((run_dir(project) / "attempt-00" / "judge.json").read_text())
    assert saved["decision"]["guidance"] == ADVICE and saved["model"] == JUDGE_MODEL
    assert state_of(project).roles[Role.JUDGE].decision.decision is RoleVerdict.RETRY


def test_judge_ask_stops_at_needs_help_and_the_answer_continues(project: Path) -> None:
    question = "The test expects 5 from add(2, 3); is add meant to subtract?"
    script = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a + b")),
    ]
    roles = {"judge": {0: judge_ask(question, "add", "subtract", recommendation="add")}}
    config = role_config(judge=JUDGE_MODEL)
    engine, provider = make_engine(project, CountingProvider(script, roles), config=config)

    assert engine.run() == EXIT_NEEDS_HELP
    state = state_of(project)
    assert state.state is RunState.NEEDS_HELP
    assert state.question is not None and state.question.to_json() == {
        "text": question,
        "options": ["add", "subtract"],
        "recommendation": "add",
        "source": "judge",
    }
    assert all(request.attempt == 0 for request in provider.requests)

    engine, provider = make_engine(project, CountingProvider(script, roles), config=config)
    engine.options.guidance = "1"
    assert engine.run() == EXIT_SUCCESS
    assert role_requests(provider, "judge") == []  # decided before; never asked twice
    prompt = coding_prompt(provider, 1)
    assert question in prompt and "verbatim:\n\nadd" in prompt
    assert "Attempt 0: accepted." in prompt  # the failures, not a generation prompt


def test_verifier_sufficient_lets_the_run_succeed(project: Path) -> None:
    script = [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))]
    provider = CountingProvider(script, {"verifier": {0: verdict()}})
    engine, _ = make_engine(project, provider, config=role_config(verifier=VERIFIER_MODEL))

    assert engine.run() == EXIT_SUCCESS
    (asked,) = role_requests(provider, "verifier")
    assert asked.model == VERIFIER_MODEL
    assert asked.tool_choice == {"type": "tool", "name": "verifier_verdict"}
    verifier_prompt = prompt_text(asked)
    assert "tests/test_calc.py::test_add" in verifier_prompt and "return a + b" in verifier_prompt
    assert state_of(project).roles[Role.VERIFIER].decision.decision is RoleVerdict.SUFFICIENT
    decided = [e["decision"] for e in logged(project) if e["event"] == "role_decision"]
    assert decided == ["sufficient"]


def test_verifier_gaps_send_one_more_patch_round_that_quotes_them(project: Path) -> None:
    script = [
        attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST)),
        attempt(
            replace("calc.py", GOOD, GOOD + "\n\ndef sub(a, b):\n    return a - b\n"),
            create("tests/test_sub.py", SUB_TEST),
        ),
    ]
    roles = {"verifier": {0: verdict(GAP), 1: verdict()}}
    provider = CountingProvider(script, roles)
    engine, _ = make_engine(project, provider, config=role_config(verifier=VERIFIER_MODEL))

    assert engine.run() == EXIT_SUCCESS
    state = state_of(project)
    assert state.attempt == 1 and state.stop_reason == (
        "2 tests pass (2 added, 0 rewritten, 0 weakened); 0 of 4 changed lines run by no test"
        ", after 2 attempts"
    )
    assert [r.attempt for r in role_requests(provider, "verifier")] == [0, 1]
    prompt = coding_prompt(provider, 1)
    assert "## Gaps the verifier found" in prompt and f"- {GAP}" in prompt


def test_verifier_gaps_are_bounded_by_the_retry_budget(project: Path) -> None:
    script = [
        attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST)),
        attempt(create("notes.md", "sub is next\n")),
        attempt(create("never.md", "never asked\n")),
    ]
    roles = {"verifier": {0: verdict(GAP), 1: verdict(GAP)}}
    provider = CountingProvider(script, roles)
    events: list[Event] = []
    engine, _ = make_engine(
        project, provider, config=role_config(verifier=VERIFIER_MODEL), max_retries=1, events=events
    )

    assert engine.run() == EXIT_SUCCESS
    assert provider.attempts_asked == [0, 1]
    assert state_of(project).attempt == 1
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert any(m.startswith("no retries left for the verifier's gaps: " + GAP) for m in notices)


def test_role_usage_counts_in_the_run_cost_at_the_roles_price(project: Path) -> None:
    config = role_config(judge=JUDGE_MODEL, verifier=VERIFIER_MODEL)
    config.prices = {
        config.model.name: Price(input=1.0, output=0.0, cache_write=0.0, cache_read=0.0),
        JUDGE_MODEL: Price(input=10.0, output=0.0, cache_write=0.0, cache_read=0.0),
        VERIFIER_MODEL: Price(input=100.0, output=0.0, cache_write=0.0, cache_read=0.0),
    }
    million = Usage(input_tokens=1_000_000)
    script = [
        [turn("gen", create("calc.py", BAD), create("tests/test_calc.py", TEST), usage=million)],
        [turn("fix", replace("calc.py", "a - b", "a + b"), usage=million)],
    ]
    for turns in script:
        turns.append(turn("Done.", usage=Usage()))
    roles = {
        "judge": {0: judge_retry(ADVICE, usage=million)},
        "verifier": {1: verdict(usage=million)},
    }
    engine, _ = make_engine(project, CountingProvider(script, roles), config=config)

    assert engine.run() == EXIT_SUCCESS
    state = state_of(project)
    assert state.cost_usd == pytest.approx(1.0 + 10.0 + 1.0 + 100.0)
    assert state.usage.input_tokens == 4_000_000


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (turn("I think you should retry."), "the answer did not call judge_decision"),
        (judge_ask(""), '"ask" needs a "question"'),
    ],
)
def test_a_judge_answer_without_a_usable_call_is_no_decision(project: Path, answer, why) -> None:
    script = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a + b")),
    ]
    events: list[Event] = []
    provider = CountingProvider(script, {"judge": {0: answer}})
    engine, _ = make_engine(project, provider, config=role_config(judge=JUDGE_MODEL), events=events)

    assert engine.run() == EXIT_SUCCESS  # the loop goes on as if the judge were off
    (decided,) = [e for e in events if isinstance(e, RoleDecided)]
    assert decided.decision == "none" and decided.reason == f"no usable answer: {why}"
    assert "Guidance from the judge" not in coding_prompt(provider, 1)


def test_a_verifier_verdict_outside_its_schema_is_no_decision(project: Path) -> None:
    from tests.support.scripting import role_call

    script = [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))]
    provider = CountingProvider(
        script, {"verifier": {0: role_call("verifier_verdict", {"verdict": "maybe"})}}
    )
    events: list[Event] = []
    engine, _ = make_engine(
        project, provider, config=role_config(verifier=VERIFIER_MODEL), events=events
    )

    assert engine.run() == EXIT_SUCCESS
    (decided,) = [e for e in events if isinstance(e, RoleDecided)]
    assert decided.decision == "none"
    assert (
        decided.reason
        == "no usable answer: \"verdict\" must be one of sufficient, insufficient, not 'maybe'"
    )


def test_roles_are_off_without_a_model_id(project: Path) -> None:
    script = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a + b")),
    ]
    engine, provider = make_engine(project, script)
    assert engine.run() == EXIT_SUCCESS
    assert [request.role for request in provider.requests] == [""] * len(provider.requests)
    assert state_of(project).roles == {}


def test_a_scripts_roles_and_a_runs_logs_replay_role_answers(project: Path, tmp_path: Path) -> None:
    script = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a + b")),
    ]
    roles = {"judge": {0: judge_retry(ADVICE)}, "verifier": {1: verdict()}}
    make_engine(
        project,
        CountingProvider(script, roles),
        config=role_config(judge=JUDGE_MODEL, verifier=VERIFIER_MODEL),
    )[0].run()

    replay = ScriptedProvider.from_path(run_dir(project))
    assert replay.roles["judge"][0].content[0]["input"]["guidance"] == ADVICE
    assert replay.roles["verifier"][1].content[0]["input"] == {"verdict": "sufficient"}

    path = tmp_path / "script.json"
    path.write_text(
        json.dumps(
            {
                "attempts": [[t.to_json() for t in script[0]]],
                "roles": {"judge": {"0": judge_retry(ADVICE).to_json()}},
            }
        )
    )
    assert ScriptedProvider.from_path(path).roles["judge"][0].content[0]["name"] == "judge_decision"
    path.write_text(
        json.dumps({"attempts": [[t.to_json() for t in script[0]]], "roles": {"critic": {}}})
    )
    with pytest.raises(ScriptError, match="holds judge, verifier"):
        ScriptedProvider.from_path(path)


def test_status_history_and_export_show_role_decisions(project: Path, capsys) -> None:
    from orch_tui.core.history.detail import load_run
    from orch_tui.core.history.export import export_markdown
    from orch_tui.tui.cli.commands import main

    script = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a + b")),
    ]
    roles = {"judge": {0: judge_retry(ADVICE)}, "verifier": {1: verdict()}}
    config = role_config(judge=JUDGE_MODEL, verifier=VERIFIER_MODEL)
    make_engine(project, CountingProvider(script, roles), config=config)[0].run()
    config_file = str(project / "orchestrator.toml")
    (project / "orchestrator.toml").write_text("")

    assert main(["status", "--config", config_file]) == 0
    status = capsys.readouterr().out
    assert f"judge     attempt 0: judge: retry: {ADVICE}" in status
    assert "verifier  attempt 1: verifier: sufficient" in status
    assert main(["status", "--json", "--config", config_file]) == 0
    as_json = json.loads(capsys.readouterr().out)
    assert as_json["roles"]["judge"]["guidance"] == ADVICE
    assert as_json["roles"]["verifier"]["decision"] == "sufficient"

    run_id = state_of(project).run_id
    detail = load_run(project / "logs", run_id)
    assert f"judge: retry: {ADVICE}" in detail.attempts[0].notes
    assert "verifier: sufficient" in detail.attempts[1].notes
    report = export_markdown(project / "logs", run_id)
    assert f"- judge: retry: {ADVICE}" in report and "- verifier: sufficient" in report
