"""[notify]: the notify command hears when a run needs the person or ends, with its env set."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from orch_tui.core.config.models import NotifyConfig
from orch_tui.core.domain.events import ProposalReady, RunFinished, RunStarted, StateChanged
from orch_tui.core.domain.state import RunState
from orch_tui.core.loop.notify import Notifier, moment_of
from tests.support.e2e_support import FAST_CONFIG, assert_clean_exit, make_project
from tests.support.fake_openai import FakeOpenAI, Reply

WRITE_ENV = (
    "import json, os, sys; "
    "open(sys.argv[1], 'a').write(json.dumps({k: v for k, v in os.environ.items()}) + '\\n')"
)


def notify_command(out: Path) -> list[str]:
    return [sys.executable, "-c", WRITE_ENV, str(out)]


def calls(out: Path) -> list[dict[str, str]]:
    if not out.exists():
        return []
    return [json.loads(line) for line in out.read_text().splitlines()]


def finished(state: str = "SUCCESS", reason: str | None = None) -> RunFinished:
    return RunFinished(
        state=RunState(state),
        attempt=0,
        stop_reason=reason,
        retryable=False,
        exit_code=0,
        tokens=1,
        cost_usd=0.0,
    )


def test_the_moments_a_person_hears_about() -> None:
    proposal = ProposalReady(attempt=2, files=["a.py", "b.py"], added=3, removed=1, hunks=2)
    review = moment_of(proposal, interactive=True)
    assert review is not None and review.state == "REVIEWING"
    assert review.reason == "attempt 2: 2 files wait for your review"
    one = ProposalReady(attempt=1, files=["a.py"], added=1, removed=0, hunks=1)
    assert getattr(moment_of(one, interactive=True), "reason", "") == (
        "attempt 1: 1 file waits for your review"
    )
    assert moment_of(proposal, interactive=False) is None  # --auto reviews nothing
    help_moment = moment_of(
        StateChanged(state=RunState.NEEDS_HELP, attempt=1, max_retries=5), interactive=False
    )
    assert help_moment is not None and help_moment.state == "NEEDS_HELP"
    assert (
        moment_of(StateChanged(state=RunState.TESTING, attempt=1, max_retries=5), interactive=True)
        is None
    )
    end = moment_of(finished("FAILED", "retries spent"), interactive=False)
    assert end is not None and (end.state, end.reason) == ("FAILED", "retries spent")


def test_the_command_gets_run_id_state_and_reason_but_no_api_key(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-secret")
    out = tmp_path / "calls.jsonl"
    notifier = Notifier(
        NotifyConfig(bell=False, desktop=False, command=notify_command(out)), interactive=True
    )
    notifier(
        RunStarted(
            run_id="r-1",
            spec_path="s.md",
            provider="p",
            model="m",
            max_retries=5,
            resumed=False,
            state="INIT",
            attempt=0,
        )
    )
    notifier(finished("FAILED", "no progress"))
    (env,) = calls(out)
    assert (env["ORCH_RUN_ID"], env["ORCH_STATE"], env["ORCH_REASON"]) == (
        "r-1",
        "FAILED",
        "no progress",
    )
    assert "ANTHROPIC_API_KEY" not in env


def test_an_auto_run_runs_the_notify_command_at_its_end_and_no_notify_turns_it_off(
    tmp_path: Path,
) -> None:
    out = tmp_path / "calls.jsonl"
    config = (
        FAST_CONFIG
        + "\n[notify]\nbell = false\ndesktop = false\ncommand = "
        + json.dumps(notify_command(out))
        + "\n"
    )
    test = {
        "command": "create",
        "path": "tests/test_ok.py",
        "file_text": "def test_ok():\n    pass\n",
    }
    script = [Reply.edits("", [test]), Reply("Done."), Reply.edits("", [test]), Reply("Done.")]
    with FakeOpenAI(script) as fake:
        project = make_project(tmp_path / "p", spec_text="# ok\n", key=None, config=config)
        project.env.update(OPENAI_BASE_URL=fake.url, OPENAI_API_KEY="test-key")
        result = project.run_auto("--provider", "openai", "--model", "gpt-4.1")
        assert_clean_exit(result, 0)
        (env,) = calls(out)
        state = project.state()
        assert state is not None
        assert (env["ORCH_RUN_ID"], env["ORCH_STATE"]) == (state["run_id"], "SUCCESS")
        assert env["ORCH_REASON"]

        out.unlink()
        result = project.run_auto(
            "--provider", "openai", "--model", "gpt-4.1", "--fresh", "--no-notify"
        )
        assert_clean_exit(result, 0)
        assert calls(out) == []


def test_the_reason_reaches_the_command_with_controls_and_bidi_spelt_out(tmp_path: Path) -> None:
    """A stop reason quoting the model (an escape sequence, a bell, a bidi override, a
    zero-width space) would reach whatever terminal the notify command prints it on."""
    out = tmp_path / "calls.jsonl"
    notifier = Notifier(
        NotifyConfig(bell=False, desktop=False, command=notify_command(out)), interactive=False
    )
    notifier(finished("NEEDS_HELP", "the model asks: \x1b]0;pwned\x07\r\u202eok\u200b?"))
    (env,) = calls(out)
    assert env["ORCH_REASON"] == "the model asks: \\x1b]0;pwned\\x07\\r\\u202eok\\u200b?"
