"""The loop, in process, with the scripted provider and a real pytest in a real workspace."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from orch_tui.core.config.models import Config
from orch_tui.core.domain.cost import Usage
from orch_tui.core.domain.events import ChangeApplied, Event, EventBus, RunFinished, StateChanged
from orch_tui.core.domain.proposal import HunkDecision
from orch_tui.core.domain.spec import read_spec
from orch_tui.core.domain.state import RunState, StateError, StateStore
from orch_tui.core.loop.engine import EXIT_FAILED, EXIT_SAFETY, EXIT_SUCCESS, Engine, RunOptions
from orch_tui.core.loop.review import AcceptAllReviewer, ReviewAborted, ReviewSession
from orch_tui.core.providers.base import ModelError
from orch_tui.core.runlog import layout as runlog
from tests.support.scripting import CountingProvider, attempt, create, prompt_text, replace, turn

GOOD = "def add(a, b):\n    return a + b\n"
BAD = "def add(a, b):\n    return a - b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    return tmp_path


def make_engine(
    project: Path,
    attempts,
    *,
    reviewer=None,
    config: Config | None = None,
    max_retries: int = 3,
    max_cost_usd: float | None = None,
    events: list[Event] | None = None,
    spec: str = "spec.md",
    options: RunOptions | None = None,
) -> tuple[Engine, CountingProvider]:
    from orch_tui.core.config.paths import ProjectPaths

    provider = attempts if isinstance(attempts, CountingProvider) else CountingProvider(attempts)
    config = config or fast_config()
    bus = EventBus()
    if events is not None:
        bus.subscribe(events.append)
    engine = Engine(
        paths=ProjectPaths(project),
        config=config,
        spec=read_spec(project / spec),
        provider=provider,
        reviewer=reviewer or AcceptAllReviewer(),
        bus=bus,
        options=options or RunOptions(max_retries=max_retries, max_cost_usd=max_cost_usd),
    )
    return engine, provider


def fast_config() -> Config:
    """Checks run by this interpreter, skipping this machine's many pytest plugins: tests of
    the loop need no project environment (``.venv``, seconds to make; see test_project_env)."""
    config = Config()
    config.checks.python = sys.executable
    config.checks.env_allow = ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"]
    return config


@pytest.fixture(autouse=True)
def _no_plugin_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def state_of(project: Path):
    return StateStore(project / "state.json").load()


def run_dir(project: Path) -> Path:
    return project / "logs" / state_of(project).run_id


def test_generation_failing_test_patch_success(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orch_tui.core.runlog.writer import RunLog

    # Issue 26: the checks step read back applied.json (every landing file's text), written by
    # the review a moment before, and outside git the whole conversation for a commit message
    # it would not make. A resume at TESTING still reads applied.json (test_crash).
    checks_step_read: list[str] = []
    real_read = RunLog.read_json

    def counted(self: RunLog, attempt_number: int | None, name: str) -> object:
        if sys._getframe(1).f_globals["__name__"].endswith("core.loop.checks_step"):
            checks_step_read.append(name)
        return real_read(self, attempt_number, name)

    monkeypatch.setattr(RunLog, "read_json", counted)
    engine, provider = make_engine(
        project,
        [
            attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
            attempt(replace("calc.py", "a - b", "a + b")),
        ],
    )
    assert engine.run() == EXIT_SUCCESS
    assert (project / "workspace" / "calc.py").read_text() == GOOD
    assert checks_step_read == []
    state = state_of(project)
    assert state.state is RunState.SUCCESS and state.attempt == 1
    assert state.usage.input_tokens == 400  # four turns of 100
    folder = run_dir(project)
    for name in (
        "conversation.json",
        "proposal.json",
        "decisions.json",
        "applied.patch",
        "report.json",
    ):
        assert (folder / "attempt-00" / name).exists(), name
    # The patch request carried the failing test and what it said.
    patch_prompt = prompt_text(provider.requests[2])
    assert "tests/test_calc.py::test_add" in patch_prompt
    assert "assert -1 == 5" in patch_prompt
    assert str(project) not in patch_prompt  # absolute paths are trimmed away
    # The spec is in the cached prefix.
    system = provider.requests[0].system
    assert system[-1]["cache_control"] == {"type": "ephemeral"} and "calc.add" in system[-1]["text"]
    # So is how to read the feedback: the patch prompt carries only what changed this attempt.
    assert provider.requests[2].system == system
    assert "smallest change" in system[0]["text"] and "smallest change" not in patch_prompt


def test_retries_exhausted_asks_exactly_one_plus_n_attempts(project: Path) -> None:
    failing = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a * b")),
    ]
    engine, provider = make_engine(project, failing, max_retries=1)
    assert engine.run() == EXIT_FAILED
    assert provider.attempts_asked == [0, 1]
    assert "retries exhausted" in state_of(project).stop_reason


def test_same_failures_after_two_patches_stops_early(project: Path) -> None:
    attempts = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a * b")),
        attempt(replace("calc.py", "a * b", "a // b")),
        attempt(replace("calc.py", "a // b", "a + b")),
    ]
    engine, provider = make_engine(project, attempts, max_retries=5)
    assert engine.run() == EXIT_FAILED
    assert provider.attempts_asked == [0, 1, 2]
    assert state_of(project).stop_reason.startswith("no progress: the same 1 failing test after")


def test_identical_proposal_stops(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The model proposes again exactly what the reviewer just rejected. The proposals' digests
    are kept as they are made: no attempt reads a proposal.json older than the last attempt's
    (the patch prompt's); each read and parsed every earlier one again."""
    from orch_tui.core.runlog.writer import RunLog

    class RejectAttemptOne:
        def review(self, session: ReviewSession) -> None:
            if session.attempt == 1:
                session.reject_all("not like that")

    attempts = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a * b")),
        attempt(replace("calc.py", "a - b", "a * b")),
        attempt(replace("calc.py", "a - b", "a + b")),
    ]
    engine, provider = make_engine(project, attempts, reviewer=RejectAttemptOne(), max_retries=5)
    reads: list[tuple[int, int]] = []
    read_json = RunLog.read_json

    def counted(log: RunLog, attempt: int | None, name: str) -> Any:
        if name == "proposal.json" and attempt is not None:
            reads.append((engine.state.attempt, attempt))
        return read_json(log, attempt, name)

    monkeypatch.setattr(RunLog, "read_json", counted)
    assert engine.run() == EXIT_FAILED
    assert provider.attempts_asked == [0, 1, 2]
    assert "identical to attempt 1" in state_of(project).stop_reason
    assert all(current - 1 <= read <= current for current, read in reads), reads


def test_cost_budget_stops_before_the_next_attempt(project: Path) -> None:
    expensive = Usage(input_tokens=1_000_000, output_tokens=0)
    attempts = [
        [
            turn("x", create("calc.py", BAD), create("tests/test_calc.py", TEST), usage=expensive),
            turn("ok"),
        ],
        attempt(replace("calc.py", "a - b", "a + b")),
    ]
    engine, provider = make_engine(project, attempts, max_cost_usd=1.0)
    assert engine.run() == EXIT_FAILED
    assert provider.attempts_asked == [0]
    assert state_of(project).stop_reason.startswith("cost budget spent: $2.00")


def test_each_request_asks_for_no_more_output_than_the_budget_left_can_buy(project: Path) -> None:
    """$0.90 of $1.00 spent: the next request may answer with $0.10 of output, 6,666 tokens at
    Sonnet's $15 per million; once less than a useful answer is left, no request is sent."""
    config = fast_config()
    config.model.name = "claude-sonnet-4-5-20250929"  # a dated id: priced as claude-sonnet-4-5
    attempts = [
        [
            turn("x", create("calc.py", GOOD), usage=Usage(input_tokens=300_000)),
            turn("y", create("tests/test_calc.py", TEST), usage=Usage(output_tokens=6_666)),
            turn("never asked"),
        ]
    ]
    engine, provider = make_engine(project, attempts, config=config, max_cost_usd=1.0)

    assert engine.run() == EXIT_FAILED

    assert [request.max_tokens for request in provider.requests] == [16_000, 6_666]
    state = state_of(project)
    assert state.cost_usd <= 1.0
    assert state.stop_reason.startswith("cost budget spent:")
    assert "fewer than 256 output tokens of claude-sonnet-4-5-20250929" in state.stop_reason


def test_a_model_without_a_price_is_never_free_against_a_budget(project: Path) -> None:
    config = fast_config()
    config.model.name = "claude-new-9"
    engine, provider = make_engine(
        project, [attempt(create("calc.py", GOOD))], config=config, max_cost_usd=5.0
    )

    assert engine.run() == EXIT_FAILED

    assert provider.requests == []
    assert "model claude-new-9 has no known price" in state_of(project).stop_reason


def test_without_a_budget_requests_ask_for_the_configured_max_tokens(project: Path) -> None:
    config = fast_config()
    config.model.name = "claude-new-9"  # no price, no budget: nothing to keep
    engine, provider = make_engine(
        project,
        [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))],
        config=config,
    )

    assert engine.run() == EXIT_SUCCESS
    assert {request.max_tokens for request in provider.requests} == {16_000}


class RejectingReviewer:
    def __init__(self, reason: str) -> None:
        self.reason = reason
        self.calls = 0

    def review(self, session: ReviewSession) -> None:
        self.calls += 1
        if self.calls == 1:
            session.reject_all(self.reason)


def test_whole_rejection_sends_the_reason_to_the_model_and_costs_a_retry(project: Path) -> None:
    reviewer = RejectingReviewer("use a lambda-free style and type hints")
    attempts = [
        attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST)),
        attempt(
            create("calc.py", "def add(a: int, b: int) -> int:\n    return a + b\n"),
            create("tests/test_calc.py", TEST),
        ),
    ]
    engine, provider = make_engine(project, attempts, reviewer=reviewer)
    assert engine.run() == EXIT_SUCCESS
    assert state_of(project).attempt == 1
    second_prompt = prompt_text(provider.requests[2])
    assert "use a lambda-free style and type hints" in second_prompt
    assert not (run_dir(project) / "attempt-00" / "applied.json").exists()


class HunkRejectingReviewer:
    """Rejects every hunk of one file, by hand."""

    def __init__(self, path: str) -> None:
        self.path = path

    def review(self, session: ReviewSession) -> None:
        change = session.proposal.change(self.path)
        if change is not None:
            for hunk in change.hunks:
                session.decide(self.path, hunk.index, HunkDecision.REJECTED)


def test_rejected_file_never_lands_and_the_model_is_told(project: Path) -> None:
    attempts = [
        attempt(
            create("calc.py", GOOD),
            create("tests/test_calc.py", TEST),
            create("junk.py", "x = 1\n"),
        ),
    ]
    engine, provider = make_engine(project, attempts, reviewer=HunkRejectingReviewer("junk.py"))
    assert engine.run() == EXIT_SUCCESS
    assert not (project / "workspace" / "junk.py").exists()
    decisions = json.loads((run_dir(project) / "attempt-00" / "decisions.json").read_text())
    assert decisions["hunks"]["junk.py"] == ["rejected"]


def test_every_hunk_rejected_is_a_rejection(project: Path) -> None:
    class RejectAll:
        def review(self, session: ReviewSession) -> None:
            for change in session.proposal.changes:
                session.decide_file(change.path, HunkDecision.REJECTED)

    attempts = [
        attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST)),
        attempt(create("calc.py", GOOD)),
    ]
    engine, provider = make_engine(project, attempts, reviewer=RejectAll(), max_retries=1)
    assert engine.run() == EXIT_FAILED
    assert provider.attempts_asked == [0, 1]  # a rejection costs one retry
    reason = state_of(project).stop_reason
    assert (
        reason.startswith("retries exhausted")
        and "every hunk of the proposal was rejected" in reason
    )
    assert list((project / "workspace").iterdir()) == []


def test_hand_edit_is_what_lands(project: Path) -> None:
    class Editor:
        def review(self, session: ReviewSession) -> None:
            session.edit("calc.py", GOOD)

    attempts = [attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST))]
    engine, _ = make_engine(project, attempts, reviewer=Editor())
    assert engine.run() == EXIT_SUCCESS
    assert (project / "workspace" / "calc.py").read_text() == GOOD


def test_each_file_is_diffed_once_and_never_by_the_reviewer(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orch_tui.core.domain import unified_diff

    diffed: list[int] = []
    original = unified_diff.line_opcodes

    def counting(old, new):  # type: ignore[no-untyped-def]
        diffed.append(len(old))
        return original(old, new)

    monkeypatch.setattr(unified_diff, "line_opcodes", counting)
    unified_diff.forget_text_changes()  # texts diffed by an earlier test are remembered
    during_review: list[int] = []
    until_review: list[int] = []

    class Counter:
        def review(self, session: ReviewSession) -> None:
            before = len(diffed)
            for change in session.effective.changes:
                assert change.hunks
            during_review.append(len(diffed) - before)
            until_review.append(len(diffed))

    (project / "workspace").mkdir()
    (project / "workspace" / "calc.py").write_text(BAD)
    attempts = [attempt(replace("calc.py", "a - b", "a + b"), create("tests/test_calc.py", TEST))]
    engine, _ = make_engine(project, attempts, reviewer=Counter())
    assert engine.run() == EXIT_SUCCESS
    assert during_review == [0]  # the session came with its hunks: the UI thread never diffs
    # calc.py, modified, diffed once until it is reviewed (an added file needs no diff); the
    # evidence after the checks diffs the change as applied, in the engine's thread
    assert until_review == [1]


def test_quit_mid_review_resumes_on_the_same_proposal_and_decisions(project: Path) -> None:
    class DecideThenQuit:
        def review(self, session: ReviewSession) -> None:
            session.decide("junk.py", 0, HunkDecision.REJECTED)
            raise ReviewAborted

    seen: list[ReviewSession] = []

    class Recorder:
        def review(self, session: ReviewSession) -> None:
            seen.append(session)

    attempts = [
        attempt(
            create("calc.py", GOOD), create("tests/test_calc.py", TEST), create("junk.py", "x\n")
        )
    ]
    engine, provider = make_engine(project, attempts, reviewer=DecideThenQuit())
    with pytest.raises(ReviewAborted):
        engine.run()
    assert state_of(project).state is RunState.REVIEWING
    asked = len(provider.requests)

    engine, provider2 = make_engine(project, provider, reviewer=Recorder())
    assert engine.run() == EXIT_SUCCESS
    assert len(provider.requests) == asked  # shown again, never regenerated
    assert seen[0].decisions.for_file(seen[0].proposal.change("junk.py")) == [HunkDecision.REJECTED]
    assert not (project / "workspace" / "junk.py").exists()


def test_interrupted_test_run_is_rerun_and_the_change_applied_once(project: Path) -> None:
    def crash_after_apply(event: Event) -> None:
        if isinstance(event, ChangeApplied):
            raise KeyboardInterrupt

    attempts = [
        attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST)),
    ]
    engine, provider = make_engine(project, attempts)
    engine.bus.subscribe(crash_after_apply)
    with pytest.raises(KeyboardInterrupt):
        engine.run()
    assert state_of(project).state is RunState.TESTING
    engine, _ = make_engine(project, provider)
    assert engine.run() == EXIT_SUCCESS
    assert (project / "workspace" / "calc.py").read_text() == GOOD
    assert len(provider.requests) == 2


def test_changed_spec_starts_a_fresh_run(project: Path) -> None:
    class Quit:
        def review(self, session: ReviewSession) -> None:
            raise ReviewAborted

    engine, _ = make_engine(project, [attempt(create("calc.py", GOOD))], reviewer=Quit())
    with pytest.raises(ReviewAborted):
        engine.run()
    first = state_of(project).run_id
    (project / "spec.md").write_text("# calc\n\nNow with subtraction too.\n")
    events: list[Event] = []
    engine, _ = make_engine(
        project, [attempt(create("calc.py", GOOD))], reviewer=Quit(), events=events
    )
    with pytest.raises(ReviewAborted):
        engine.run()
    assert state_of(project).run_id != first
    assert (project / "logs" / first / "events.jsonl").exists()
    assert any("the spec changed" in getattr(e, "message", "") for e in events)


def test_a_fresh_run_starts_from_an_empty_workspace_and_the_old_one_is_kept(project: Path) -> None:
    engine, _ = make_engine(
        project, [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))]
    )
    assert engine.run() == EXIT_SUCCESS
    first = state_of(project).run_id
    (project / "spec.md").write_text("# calc\n\nNow with subtraction too.\n")
    events: list[Event] = []
    fresh = RunOptions(max_retries=3, fresh=True)
    engine, _ = make_engine(
        project, [attempt(create("calc.py", GOOD))], events=events, options=fresh
    )
    engine._open_run()  # opening the new run, before any attempt

    assert list((project / "workspace").iterdir()) == []
    kept = project / "logs" / first / "workspace"
    assert (kept / "calc.py").read_text() == GOOD and (kept / "tests" / "test_calc.py").exists()
    assert any(str(kept) in getattr(e, "message", "") for e in events)
    said = " ".join(getattr(e, "message", "") for e in events)
    assert "without --fresh, an edited spec changes the current project instead" in said
    assert state_of(project).follows is None


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        json.dumps({"version": 99}),
        json.dumps({"version": 1, "state": "DANCING"}),
        "[]",
    ],
)
def test_corrupt_or_unknown_state_is_left_untouched(project: Path, content: str) -> None:
    (project / "state.json").write_text(content)
    engine, provider = make_engine(project, [attempt(create("calc.py", GOOD))])
    with pytest.raises(StateError, match="orch-tui reset"):
        engine.run()
    assert (project / "state.json").read_text() == content
    assert provider.requests == []


def test_path_outside_the_workspace_stops_with_exit_2_and_writes_nothing(project: Path) -> None:
    attempts = [
        [turn("x", create("ok.py", "x = 1\n"), create("../escape.py", "boom\n")), turn("done")]
    ]
    engine, _ = make_engine(project, attempts)
    assert engine.run() == EXIT_SAFETY
    assert not (project / "escape.py").exists()
    assert list((project / "workspace").iterdir()) == []
    assert state_of(project).stop_reason.startswith("safety violation")


def test_protected_path_is_refused_and_the_model_goes_on(project: Path) -> None:
    config = fast_config()
    config.safety.protected_paths = ["tests/test_calc.py"]
    (project / "workspace" / "tests").mkdir(parents=True)
    (project / "workspace" / "tests" / "test_calc.py").write_text(TEST)
    attempts = [
        [
            turn(
                "x", create("tests/test_calc.py", "def test_x(): pass\n"), create("calc.py", GOOD)
            ),
            turn("done"),
        ]
    ]
    engine, provider = make_engine(project, attempts, config=config)
    assert engine.run() == EXIT_SUCCESS
    assert (project / "workspace" / "tests" / "test_calc.py").read_text() == TEST
    results = provider.requests[1].messages[-1]["content"]
    assert results[0]["is_error"] is True and "protected" in results[0]["content"]


class FailingProvider(CountingProvider):
    def __init__(self, attempts, failures: int) -> None:
        super().__init__(attempts)
        self.failures = failures

    def complete(self, request, on_text):  # type: ignore[override]
        if self.failures:
            self.failures -= 1
            raise ModelError("overloaded", hint="try later")
        return super().complete(request, on_text)


def test_model_error_fails_the_run_and_the_next_run_asks_again(project: Path) -> None:
    attempts = [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))]
    provider = FailingProvider(attempts, failures=1)
    engine, _ = make_engine(project, provider)
    assert engine.run() == EXIT_FAILED
    state = state_of(project)
    assert state.stop_reason.startswith("model error: overloaded") and state.last_error
    engine, _ = make_engine(project, provider)
    assert engine.run() == EXIT_SUCCESS


def test_the_run_outcome_is_typed_and_says_whether_asking_again_can_help(project: Path) -> None:
    attempts = [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))]
    provider = FailingProvider(attempts, failures=1)
    events: list[Event] = []
    engine, _ = make_engine(project, provider, events=events)
    assert engine.run() == EXIT_FAILED
    stopped = [e for e in events if isinstance(e, RunFinished)]
    assert [(e.state, e.retryable) for e in stopped] == [(RunState.FAILED, True)]
    assert all(isinstance(e.state, RunState) for e in events if isinstance(e, StateChanged))
    # The same engine asks again (the TUI's retry, on the engine thread) and finishes.
    assert engine.retry() == EXIT_SUCCESS
    assert (events[-1].state, events[-1].retryable) == (RunState.SUCCESS, False)
    logged = json.loads((run_dir(project) / runlog.EVENTS).read_text().splitlines()[-1])
    assert (logged["event"], logged["state"], logged["retryable"]) == (
        "run_finished",
        "SUCCESS",
        False,
    )


def test_a_final_failure_is_not_retryable(project: Path) -> None:
    failing = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(replace("calc.py", "a - b", "a * b")),
    ]
    events: list[Event] = []
    engine, provider = make_engine(project, failing, max_retries=1, events=events)
    assert engine.run() == EXIT_FAILED
    finished = events[-1]
    assert isinstance(finished, RunFinished)
    assert (finished.state, finished.retryable) == (RunState.FAILED, False)
    assert engine.retry() == EXIT_FAILED and provider.attempts_asked == [0, 1]


def test_a_finished_run_is_reported_not_repeated(project: Path) -> None:
    attempts = [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))]
    engine, provider = make_engine(project, attempts)
    assert engine.run() == EXIT_SUCCESS
    asked = len(provider.requests)
    engine, _ = make_engine(project, provider)
    assert engine.run() == EXIT_SUCCESS
    assert len(provider.requests) == asked


def test_run_log_events_are_one_json_object_per_line_in_utc(project: Path) -> None:
    attempts = [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))]
    engine, _ = make_engine(project, attempts)
    engine.run()
    lines = (run_dir(project) / runlog.EVENTS).read_text().splitlines()
    events = [json.loads(line) for line in lines]
    assert events[0]["event"] == "run_started" and events[-1]["event"] == "run_finished"
    assert all(event["at"].endswith("Z") for event in events)
    kinds = [event["event"] for event in events]
    assert "model_text" not in kinds and "tests" in kinds


def test_an_empty_first_generation_in_an_empty_workspace_stops_at_once(project: Path) -> None:
    """Nothing to test and nothing proposed: no test run, no second (paid) request."""
    events: list[Event] = []
    engine, provider = make_engine(
        project, [[turn("I have nothing to add.")], attempt(create("calc.py", GOOD))], events=events
    )

    assert engine.run() == EXIT_FAILED

    assert len(provider.requests) == 1
    state = state_of(project)
    assert (state.state, state.attempt) == (RunState.FAILED, 0)
    assert state.stop_reason == "no progress: the model proposed no change"
    assert state.last_test is None
    assert RunState.TESTING not in [e.state for e in events if isinstance(e, StateChanged)]


def test_an_empty_first_generation_in_a_project_runs_its_tests(project: Path) -> None:
    """An existing project may already do what the spec asks: its tests decide."""
    (project / "workspace" / "tests").mkdir(parents=True)
    (project / "workspace" / "calc.py").write_text(GOOD)
    (project / "workspace" / "tests" / "test_calc.py").write_text(TEST)
    engine, provider = make_engine(project, [[turn("It is already done.")]])

    assert engine.run() == EXIT_SUCCESS
    assert len(provider.requests) == 1
