"""Looking at a finished run needs no API key: the key is asked for only when a request is
about to be made (issue 25, item 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.domain.state import RunState, State, StateStore
from orch_tui.core.providers.base import TurnRequest
from orch_tui.core.providers.factory import KeyLater, KeyMissing
from orch_tui.tui.cli import run as headless_run
from orch_tui.tui.cli.commands import main
from orch_tui.tui.cli.parse import run_parser
from orch_tui.tui.cli.run import open_for_review
from orch_tui.tui.launch import OpeningApp
from tests.support.tui_support import SIZE, TuiProject, make_tui_project, review_screen, wait_for

KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> TuiProject:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)
    made = make_tui_project(tmp_path / "project")
    monkeypatch.chdir(made.root)
    return made


def save_run(project: TuiProject, state: RunState, last_error: str | None = None) -> State:
    spec = project.spec()
    saved = State(
        run_id="20261127-100000-abcd",
        spec_path="spec.md",
        spec_hash=spec.digest,
        max_retries=3,
        state=state,
        stop_reason="all checks pass" if state is RunState.SUCCESS else "retries spent",
        last_error=last_error,
        exit_code={RunState.SUCCESS: 0, RunState.FAILED: 1}.get(state),
    )
    StateStore(project.paths.state).save(saved)
    return saved


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
@pytest.mark.parametrize(("ended", "code"), [(RunState.SUCCESS, 0), (RunState.FAILED, 1)])
def test_a_finished_run_opens_without_a_key(
    project: TuiProject,
    provider: str,
    ended: RunState,
    code: int,
    capsys: pytest.CaptureFixture[str],
) -> None:
    saved = save_run(project, ended)
    assert main(["spec.md", "--auto", "--provider", provider]) == code
    out = capsys.readouterr()
    assert "API_KEY" not in out.err
    assert f"run {saved.run_id} already finished ({ended.value})" in out.out


@pytest.mark.parametrize(
    ("ended", "extra"),
    [
        (RunState.GENERATING, []),  # the run goes on: its next step asks the model
        (RunState.FAILED, ["--continue"]),  # reopened: the same
        (RunState.SUCCESS, ["--fresh"]),  # a new run
    ],
)
def test_a_run_about_to_ask_the_model_still_needs_the_key_at_once(
    project: TuiProject, ended: RunState, extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    save_run(project, ended)
    assert main(["spec.md", "--auto", *extra]) == 1
    assert "ANTHROPIC_API_KEY is not set" in capsys.readouterr().err
    assert not (project.root / "logs").exists()  # refused before anything was written


def test_a_run_stopped_by_a_model_error_is_asked_again_so_needs_the_key(
    project: TuiProject, capsys: pytest.CaptureFixture[str]
) -> None:
    save_run(project, RunState.FAILED, last_error="the API key was rejected (401)")
    assert main(["spec.md", "--auto"]) == 1
    assert "ANTHROPIC_API_KEY is not set" in capsys.readouterr().err


def test_the_stand_in_raises_the_key_error_when_a_request_is_made() -> None:
    stand_in = KeyLater("anthropic", KeyMissing("ANTHROPIC_API_KEY is not set", "export it"))
    request = TurnRequest(model="m", system=[], tools=[], messages=[], max_tokens=10)
    with pytest.raises(KeyMissing, match=r"ANTHROPIC_API_KEY is not set \(export it\)"):
        stand_in.complete(request, print)


@pytest.mark.anyio
async def test_the_review_screen_shows_a_finished_run_without_a_key(project: TuiProject) -> None:
    """``orch-tui spec.md`` in a terminal: the run opens behind the frame, with the key asked
    for later, and the review screen shows it finished."""
    save_run(project, RunState.SUCCESS)
    args = run_parser().parse_args(["spec.md"])
    app = OpeningApp(lambda: open_for_review(args), "spec.md", "vscode-dark")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.review_screen is not None, "the review screen")
        screen = review_screen(app)
        await wait_for(pilot, lambda: screen.finished is not None, "the run's end")
        assert screen.finished is not None and screen.finished.state is RunState.SUCCESS
        await wait_for(pilot, lambda: app._notifications, "the notice")
        messages = [str(n.message) for n in app._notifications]
    assert any("All checks passed" in message for message in messages), messages
    assert app.opened is not None and isinstance(app.opened.provider, KeyLater)
    app.opened.release()


def test_a_run_that_ends_with_nothing_to_resume_works_out_no_resuming_command(
    project: TuiProject, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 26: the resuming command (and shlex with it) is worked out for the hint only a
    retryable stop prints, not after every ``--auto`` run, where it was part of the time from
    the last event to the exit."""
    save_run(project, RunState.SUCCESS)
    asked: list[object] = []
    monkeypatch.setattr(
        headless_run, "resuming_command", lambda *args: asked.append(args) or "the same command"
    )
    assert main(["spec.md", "--auto", "--provider", "anthropic"]) == 0
    assert asked == []
    assert "already finished" in capsys.readouterr().out
