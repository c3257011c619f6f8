"""Going on after a stop (issue 24): a reopened or escalated run gets the patches it is given."""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.loop.engine import EXIT_FAILED, EXIT_NEEDS_HELP, NothingToGiveUp, RunOptions
from orch_tui.core.loop.review import ReviewSession
from tests.core.loop.test_engine import fast_config, make_engine, state_of
from tests.support.scripting import attempt, create, prompt_text, replace, turn

FAILING_TEST = "def test_value():\n    assert False, 'never passes'\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    (tmp_path / "spec.md").write_text("# value\n\n`app.VALUE` is right.\n")
    return tmp_path


def _generation() -> list:
    return attempt(create("app.py", "VALUE = 0\n"), create("tests/test_value.py", FAILING_TEST))


def _patch(old: int) -> list:
    """A patch that changes something (no repeated proposal) and fails the same way."""
    return attempt(replace("app.py", f"VALUE = {old}", f"VALUE = {old + 1}"))


def test_continue_makes_as_many_patches_as_it_announces(project: Path) -> None:
    engine, _ = make_engine(project, [_generation(), _patch(0), _patch(1)], max_retries=5)
    assert engine.run() == EXIT_FAILED
    assert "no progress" in state_of(project).stop_reason

    again = RunOptions(max_retries=2, max_retries_given=True, continue_run=True)
    engine, provider = make_engine(project, [[], [], [], _patch(2), _patch(3)], options=again)
    assert engine.run() == EXIT_FAILED
    assert provider.attempts_asked == [3, 4]
    assert state_of(project).stop_reason.startswith("retries exhausted")


def test_guidance_makes_as_many_patches_as_it_announces(project: Path) -> None:
    engine, _ = make_engine(project, [_generation(), _patch(0), _patch(1)], max_retries=5)
    assert engine.run() == EXIT_FAILED
    guided = RunOptions(max_retries=2, max_retries_given=True, guidance="VALUE is 42")
    engine, provider = make_engine(project, [[], [], [], _patch(2), _patch(3)], options=guided)
    assert engine.run() == EXIT_FAILED
    assert provider.attempts_asked == [3, 4]


def test_a_stronger_model_gets_two_patches_before_no_progress(project: Path) -> None:
    config = fast_config()
    config.model.escalate_to = "stronger-model"
    config.loop.escalate_after = 2
    attempts = [_generation(), _patch(0), _patch(1), _patch(2), _patch(3)]
    engine, provider = make_engine(project, attempts, config=config, max_retries=6)
    assert engine.run() == EXIT_FAILED
    assert provider.attempts_asked == [0, 1, 2, 3]  # the stronger model answered 2 and 3
    assert {r.model for r in provider.requests if r.attempt >= 2} == {"stronger-model"}
    assert "no progress" in state_of(project).stop_reason


def _stuck_asking(project: Path) -> None:
    """Attempts 0-2 fail alike: no progress, and the run asks the person (NEEDS_HELP)."""
    asking = RunOptions(max_retries=5, ask_when_stuck=True)
    engine, _ = make_engine(project, [_generation(), _patch(0), _patch(1)], options=asking)
    assert engine.run() == EXIT_NEEDS_HELP
    assert "Give up on this run" in state_of(project).question.options


@pytest.mark.parametrize(
    "options",
    [
        RunOptions(max_retries=3, guidance="3", continue_run=True),
        RunOptions(max_retries=3, guidance="give up on this run", continue_run=True),
        RunOptions(max_retries=3, give_up=True),
    ],
)
def test_giving_up_ends_the_run_with_no_request(project: Path, options: RunOptions) -> None:
    _stuck_asking(project)
    engine, provider = make_engine(project, [[], [], [], _patch(2)], options=options)
    assert engine.run() == EXIT_FAILED
    assert provider.requests == []
    state = state_of(project)
    assert state.stop_reason == "given up by the person at attempt 2"
    assert (state.attempt, state.max_retries, state.question) == (2, 5, None)
    if options.give_up:  # the same command again: the run stays given up, nothing asked
        engine, provider = make_engine(project, [[], [], [], _patch(2)], options=options)
        assert engine.run() == EXIT_FAILED and provider.requests == []


def test_give_up_without_a_saved_run_is_a_clear_error_that_starts_nothing(project: Path) -> None:
    engine, provider = make_engine(project, [_generation()], options=RunOptions(3, give_up=True))
    with pytest.raises(NothingToGiveUp, match="no saved run"):
        engine.run()
    assert provider.requests == [] and not (project / "state.json").exists()


def test_guidance_other_than_give_up_still_guides(project: Path) -> None:
    _stuck_asking(project)
    guided = RunOptions(max_retries=1, guidance="1")
    engine, provider = make_engine(project, [[], [], [], _patch(2)], options=guided)
    engine.run()
    assert provider.attempts_asked == [3]


def test_after_a_rejected_patch_the_next_prompt_still_carries_the_failing_tests(
    project: Path,
) -> None:
    class RejectTheSecond:
        calls = 0

        def review(self, session: ReviewSession) -> None:
            self.calls += 1
            if self.calls == 2:
                session.reject_all("keep VALUE an int literal")

    attempts = [_generation(), _patch(0), _patch(0)]
    engine, provider = make_engine(project, attempts, reviewer=RejectTheSecond(), max_retries=2)
    engine.run()
    prompt = prompt_text(next(r for r in provider.requests if r.attempt == 2))
    assert "keep VALUE an int literal" in prompt
    assert "the proposal was rejected before it was applied" in prompt
    assert "Still failing from attempt 0's checks: 1 failed" in prompt
    assert "tests/test_value.py::test_value" in prompt and "never passes" in prompt


def test_a_question_in_prose_reaches_the_person_as_that_question(project: Path) -> None:
    prose = "Should `VALUE` be 42 or 43?\n1. 42\n2. 43\n"
    asking = RunOptions(max_retries=3, ask_when_stuck=True)
    engine, _ = make_engine(project, [[turn(prose)]], options=asking)
    assert engine.run() == EXIT_NEEDS_HELP
    question = state_of(project).question
    assert question.text == "Should `VALUE` be 42 or 43?" and question.options == ["42", "43"]
    assert question.source == "model" and "stuck" not in question.text

    answered = RunOptions(max_retries=3, guidance="1")
    engine, provider = make_engine(project, [[], _generation()], options=answered)
    engine.run()
    prompt = prompt_text(provider.requests[0])
    assert "Should `VALUE` be 42 or 43?" in prompt and "verbatim:\n\n42" in prompt


def test_restore_0_on_a_success_run_reopens_it_and_continue_works(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from orch_tui.core.config.paths import ProjectPaths
    from orch_tui.core.domain.state import RunState
    from orch_tui.core.loop.restore import restore_current_run
    from tests.core.loop.test_engine import BAD, GOOD, TEST

    attempts = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a + b")),
    ]
    engine, _ = make_engine(project, attempts)
    assert engine.run() == 0 and state_of(project).state is RunState.SUCCESS

    said = restore_current_run(ProjectPaths(project), 0)

    assert "FAILED again" in said
    assert (project / "workspace" / "calc.py").read_text() == BAD
    state = state_of(project)
    assert state.state is RunState.FAILED and state.exit_code == EXIT_FAILED
    assert state.last_test.failing == ["tests/test_calc.py::test_add"]
    assert "restored to attempt 0's result" in state.stop_reason
    # status says what state.json says: FAILED with the failing test, never SUCCESS
    from orch_tui.tui.cli.state_commands import status

    assert status(ProjectPaths(project), "none", as_json=False) == 0
    shown = capsys.readouterr().out
    assert "state     FAILED" in shown and "SUCCESS" not in shown

    again = RunOptions(max_retries=1, max_retries_given=True, continue_run=True)
    fix = attempt(replace("calc.py", "a - b", "b + a"))  # not attempt 1's, which was undone
    engine, provider = make_engine(project, [[], [], fix], options=again)
    assert engine.run() == 0
    assert provider.attempts_asked == [2]
    assert (project / "workspace" / "calc.py").read_text() == GOOD.replace("a + b", "b + a")
