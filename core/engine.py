"""The loop: GENERATING → REVIEWING → TESTING → SUCCESS, or PATCHING and round again.

Every transition is written to ``state.json`` before the next step begins, and
every step can be re-entered after a crash:

- GENERATING / PATCHING: nothing was written yet; the attempt is asked again.
- REVIEWING: the saved proposal and decisions are shown again, never regenerated.
- TESTING: the decided change (``applied.json``, full file texts) is applied
  again, which is idempotent, and the checks re-run.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from core import runlog
from core.attempt import AttemptCallbacks, AttemptSetup, run_attempt
from core.checks import TestReport
from core.config import Config
from core.cost import usage_cost
from core.events import (
    ChangeApplied,
    CheckOutput,
    Event,
    EventBus,
    ModelText,
    ModelTurn,
    Notice,
    ProposalReady,
    ReviewFinished,
    RunFinished,
    RunStarted,
    StateChanged,
    TestsFinished,
    ToolEdit,
)
from core.feedback import generation_prompt, patch_prompt, system_prompt
from core.paths import ProjectPaths
from core.proposal import Decisions, Proposal, effective_proposal, render_patch, resolve
from core.providers.base import AssistantTurn, ModelError, Provider
from core.review import Reviewer, ReviewSession
from core.runlog import RunLog
from core.spec import Spec
from core.state import RunState, State, StateStore, new_run_id
from core.verify import run_configured
from core.workspace import SafetyViolation, Staging, apply_change

EXIT_SUCCESS = 0
EXIT_FAILED = 1
EXIT_SAFETY = 2
EXIT_STATE = 3
EXIT_INTERRUPTED = 130


@dataclass
class RunOptions:
    """What the command line adds on top of the config."""

    max_retries: int
    max_cost_usd: float | None = None
    fresh: bool = False
    max_retries_given: bool = False
    """A resumed run keeps its own bound unless the person gave one on the command line."""
    notices: tuple[str, ...] = ()
    """Said once the run is open: a replay announcement, a clamped setting."""


class Engine:
    def __init__(
        self,
        *,
        paths: ProjectPaths,
        config: Config,
        spec: Spec,
        provider: Provider,
        reviewer: Reviewer,
        bus: EventBus,
        options: RunOptions,
        cancel: threading.Event | None = None,
    ) -> None:
        self.paths = paths
        self.config = config
        self.spec = spec
        self.provider = provider
        self.reviewer = reviewer
        self.bus = bus
        self.options = options
        self.cancel = cancel or threading.Event()
        self.store = StateStore(paths.state)
        self.state: State
        self.log: RunLog
        self._price = config.prices.get(config.model.name)

    # -- start and finish ---------------------------------------------------------------

    def open_run(self) -> State:
        """Resume the saved run for this spec, or start a fresh one. StateError: exit 3."""
        saved = self.store.load()
        self.paths.workspace.mkdir(parents=True, exist_ok=True)
        if saved and not self.options.fresh and saved.spec_hash == self.spec.digest:
            self.state = saved
            if self.options.max_retries_given:
                saved.max_retries = self.options.max_retries
            self.log = RunLog(self.paths.logs, saved.run_id)
            resumed = True
        else:
            self.state = State(
                run_id=new_run_id(),
                spec_path=str(self.spec.path),
                spec_hash=self.spec.digest,
                max_retries=self.options.max_retries,
            )
            self.log = RunLog(self.paths.logs, self.state.run_id)
            self.log.write_text(None, runlog.SPEC_COPY, self.spec.text)
            self.log.write_json(None, runlog.RUN_META, self._run_meta())
            self.store.save(self.state)
            resumed = False
        self.bus.subscribe(self.log)
        self.emit(
            RunStarted(
                run_id=self.state.run_id,
                spec_path=self.state.spec_path,
                provider=self.provider.name,
                model=self.config.model.name,
                max_retries=self.state.max_retries,
                resumed=resumed,
                state=self.state.state.value,
                attempt=self.state.attempt,
            )
        )
        for message in self.options.notices:
            self.emit(Notice(message=message))
        if resumed and self.reopen_after_error():
            self.emit(
                Notice(
                    message=f"asking the model again: attempt {self.state.attempt} had stopped on an error"
                )
            )
        if saved and not resumed:
            why = "--fresh was given" if self.options.fresh else "the spec changed"
            self.emit(
                Notice(
                    message=f"{why}: started run {self.state.run_id} (run {saved.run_id} stays in logs/)"
                )
            )
        if self._price is None:
            self.emit(
                Notice(message=f"no price for model {self.config.model.name}: cost shows as $0")
            )
        return self.state

    def reopen_after_error(self) -> bool:
        """A run stopped by a model error (network, overload, bad key) goes back to that attempt.

        Nothing was written by the failed attempt, so asking again is safe; other
        failures (retries spent, no progress, safety) stay final.
        """
        if self.state.state is not RunState.FAILED or not self.state.last_error:
            return False
        self.state.stop_reason = None
        self.state.exit_code = None
        self.state.last_error = None
        self._transition(RunState.GENERATING if self.state.attempt == 0 else RunState.PATCHING)
        return True

    def _run_meta(self) -> dict[str, Any]:
        return {
            "run_id": self.state.run_id,
            "spec_path": self.state.spec_path,
            "spec_hash": self.state.spec_hash,
            "provider": self.provider.name,
            "model": self.config.model.name,
            "max_retries": self.state.max_retries,
            "created_at": self.state.created_at,
        }

    def run(self) -> int:
        """Drive the loop to a terminal state; returns the exit code.

        KeyboardInterrupt and ReviewAborted propagate: the state on disk is
        the last one persisted, and the same command resumes from it.
        """
        if not hasattr(self, "state"):
            self.open_run()
        steps = {
            RunState.INIT: self._start,
            RunState.GENERATING: self._model_step,
            RunState.PATCHING: self._model_step,
            RunState.REVIEWING: self._review_step,
            RunState.TESTING: self._test_step,
        }
        try:
            while not self.state.state.terminal:
                if self.cancel.is_set():
                    raise KeyboardInterrupt
                steps[self.state.state]()
        except SafetyViolation as exc:
            self._finish(RunState.FAILED, EXIT_SAFETY, f"safety violation: {exc}")
        except ModelError as exc:
            self.state.last_error = str(exc)
            self._finish(RunState.FAILED, EXIT_FAILED, f"model error: {exc}")
        else:
            if self.state.exit_code is None:  # terminal when opened, finished earlier
                self.state.exit_code = (
                    EXIT_SUCCESS if self.state.state is RunState.SUCCESS else EXIT_FAILED
                )
        self._announce_finish()  # also after a safety stop or a model error: say why
        return int(self.state.exit_code if self.state.exit_code is not None else EXIT_FAILED)

    def emit(self, event: Event) -> None:
        self.bus.emit(event)

    def _transition(self, new_state: RunState, attempt: int | None = None) -> None:
        self.state.state = new_state
        if attempt is not None:
            self.state.attempt = attempt
        self.store.save(self.state)
        self.emit(
            StateChanged(
                state=new_state.value,
                attempt=self.state.attempt,
                max_retries=self.state.max_retries,
            )
        )

    def _finish(self, final: RunState, exit_code: int, reason: str) -> None:
        self.state.stop_reason = reason
        self.state.exit_code = exit_code
        self._transition(final)

    def _announce_finish(self) -> None:
        self.emit(
            RunFinished(
                state=self.state.state.value,
                attempt=self.state.attempt,
                stop_reason=self.state.stop_reason,
                exit_code=int(self.state.exit_code or 0),
                tokens=self.state.usage.total,
                cost_usd=round(self.state.cost_usd, 6),
            )
        )

    # -- steps ----------------------------------------------------------------------------

    def _start(self) -> None:
        self._transition(RunState.GENERATING, attempt=0)

    def _budget_spent(self) -> bool:
        budget = self.options.max_cost_usd
        return budget is not None and self.state.cost_usd >= budget

    def _model_step(self) -> None:
        attempt = self.state.attempt
        if self._budget_spent():
            self._stop_on_budget()
            return
        prompt = (
            generation_prompt(self.paths.workspace)
            if attempt == 0
            else self._patch_prompt(attempt - 1)
        )
        setup = AttemptSetup(
            model=self.config.model.name,
            system=self._system_blocks(),
            prompt=prompt,
            max_tokens=self.config.model.max_tokens,
            max_turns=self.config.model.max_tool_turns,
            attempt=attempt,
        )
        staging = Staging(self.paths.workspace, self.config.safety.protected_paths)
        turns: list[AssistantTurn] = []

        def save_conversation(messages: list[dict[str, Any]]) -> None:
            conversation = {
                "model": setup.model,
                "system": setup.system,
                "tools": setup.tools,
                "messages": messages,
                "turns": [turn.to_json() for turn in turns],
            }
            self.log.write_json(attempt, runlog.CONVERSATION, conversation)

        def on_turn(index: int, turn: AssistantTurn) -> None:
            turns.append(turn)
            self._add_usage(attempt, index, turn)

        callbacks = AttemptCallbacks(
            on_text=lambda text: self.emit(ModelText(attempt=attempt, text=text)),
            on_edit=lambda o: self.emit(
                ToolEdit(
                    attempt=attempt,
                    command=o.command,
                    path=o.path,
                    ok=not o.is_error,
                    detail=o.content[:200],
                )
            ),
            on_turn=on_turn,
            on_messages=save_conversation,
        )
        result = run_attempt(self.provider, setup, staging, callbacks)
        if result.turn_limit_hit:
            self.emit(
                Notice(
                    message=f"attempt {attempt} reached the limit of {setup.max_turns} model turns"
                )
            )
        proposal = result.proposal
        self.log.write_json(attempt, runlog.PROPOSAL, proposal.to_json())
        self.emit(
            ProposalReady(
                attempt=attempt,
                files=[change.path for change in proposal.changes],
                added=proposal.added,
                removed=proposal.removed,
                hunks=proposal.hunk_count,
            )
        )
        if proposal.is_empty:
            if attempt > 0:
                self._finish(
                    RunState.FAILED, EXIT_FAILED, "no progress: the model proposed no change"
                )
                return
            self.log.write_json(attempt, runlog.APPLIED, {"files": {}})
            self._transition(RunState.TESTING)
            return
        repeat = self._identical_earlier_proposal(attempt, proposal)
        if repeat is not None:
            self._finish(
                RunState.FAILED,
                EXIT_FAILED,
                f"no progress: the proposal of attempt {attempt} is identical to attempt {repeat}'s",
            )
            return
        self._transition(RunState.REVIEWING)

    def _system_blocks(self) -> list[dict[str, Any]]:
        """Instructions and spec: with the tools, the cached prefix of every request."""
        return [
            {"type": "text", "text": system_prompt(self.config)},
            {
                "type": "text",
                "text": f'<spec path="{self.spec.path.name}">\n{self.spec.text}\n</spec>',
                "cache_control": {"type": "ephemeral"},
            },
        ]

    def _add_usage(self, attempt: int, index: int, turn: AssistantTurn) -> None:
        self.state.usage = self.state.usage + turn.usage
        self.state.cost_usd += usage_cost(turn.usage, self._price)
        self.emit(
            ModelTurn(
                attempt=attempt,
                turn=index,
                stop_reason=turn.stop_reason,
                input_tokens=turn.usage.input_tokens,
                output_tokens=turn.usage.output_tokens,
                cache_write_tokens=turn.usage.cache_creation_input_tokens,
                cache_read_tokens=turn.usage.cache_read_input_tokens,
                run_tokens=self.state.usage.total,
                run_cost_usd=round(self.state.cost_usd, 6),
            )
        )

    def _patch_prompt(self, previous: int) -> str:
        report_data = self.log.read_json(previous, runlog.REPORT)
        proposal_data = self.log.read_json(previous, runlog.PROPOSAL)
        decisions_data = self.log.read_json(previous, runlog.DECISIONS)
        return patch_prompt(
            previous=previous,
            report=TestReport.from_json(report_data) if report_data else None,
            proposal=Proposal.from_json(proposal_data) if proposal_data else None,
            decisions=Decisions.from_json(decisions_data) if decisions_data else None,
            workspace=self.paths.workspace,
            config=self.config,
        )

    def _identical_earlier_proposal(self, attempt: int, proposal: Proposal) -> int | None:
        digest = proposal.digest()
        for earlier in range(attempt):
            data = self.log.read_json(earlier, runlog.PROPOSAL)
            if data and Proposal.from_json(data).digest() == digest:
                return earlier
        return None

    def _review_step(self) -> None:
        attempt = self.state.attempt
        proposal = Proposal.from_json(self.log.read_json(attempt, runlog.PROPOSAL))
        saved = self.log.read_json(attempt, runlog.DECISIONS)
        decisions = Decisions.from_json(saved) if saved else Decisions()

        def persist(current: Decisions) -> None:
            self.log.write_json(attempt, runlog.DECISIONS, current.to_json())

        session = ReviewSession(attempt, proposal, decisions, persist)
        self.reviewer.review(session)
        persist(decisions)
        accepted, rejected, _undecided = decisions.counts(effective_proposal(proposal, decisions))
        resolved = {} if decisions.reject_reason is not None else resolve(proposal, decisions)
        self.emit(
            ReviewFinished(
                attempt=attempt,
                accepted=accepted + _undecided,
                rejected=rejected,
                edited=sorted(decisions.edits),
                reject_reason=decisions.reject_reason,
                files_landing=sorted(resolved),
            )
        )
        if not resolved:
            if decisions.reject_reason is None:
                decisions.reject_reason = "every hunk of the proposal was rejected"
                persist(decisions)
            self._next_patch_or_stop(f"proposal rejected: {decisions.reject_reason}", failing=None)
            return
        effective = effective_proposal(proposal, decisions)
        olds = {change.path: change.old_text for change in effective.changes}
        self.log.write_json(attempt, runlog.APPLIED, {"files": resolved})
        self.log.write_text(
            attempt,
            runlog.APPLIED_PATCH,
            render_patch((path, olds.get(path), text) for path, text in sorted(resolved.items())),
        )
        self._transition(RunState.TESTING)

    def _test_step(self) -> None:
        attempt = self.state.attempt
        applied = self.log.read_json(attempt, runlog.APPLIED) or {"files": {}}
        apply_change(self.paths.workspace, applied["files"])
        self.emit(ChangeApplied(attempt=attempt, files=sorted(applied["files"])))
        report = run_configured(
            self.config,
            self.paths.workspace,
            self.log.attempt_dir(attempt),
            on_output=lambda name, text: self.emit(
                CheckOutput(attempt=attempt, check=name, text=text)
            ),
        )
        self.log.write_json(attempt, runlog.REPORT, report.to_json())
        self.log.write_text(
            attempt, runlog.TEST_OUTPUT, "\n".join(f"$ {c.name}\n{c.output}" for c in report.checks)
        )
        failing = list(report.failing)
        self.state.last_test = {
            "passed": report.passed,
            "summary": report.summary(),
            "failing": failing,
        }
        self.emit(
            TestsFinished(
                attempt=attempt,
                passed=report.passed,
                summary=report.summary(),
                counts=dict(report.counts),
                failing=failing,
                errors=[f"{c.name}: {c.error}" for c in report.checks if c.error],
            )
        )
        if report.passed:
            self._finish(
                RunState.SUCCESS, EXIT_SUCCESS, f"all checks passed after {attempt + 1} attempts"
            )
            return
        self._next_patch_or_stop(f"checks failed: {report.summary()}", failing=failing)

    def _next_patch_or_stop(self, why: str, failing: list[str] | None) -> None:
        attempt = self.state.attempt
        if attempt >= self.state.max_retries:
            self._finish(
                RunState.FAILED,
                EXIT_FAILED,
                f"retries exhausted: {why} after {self.state.max_retries} patch attempts",
            )
        elif failing and self._same_failures_twice(attempt, failing):
            self._finish(
                RunState.FAILED,
                EXIT_FAILED,
                f"no progress: the same {len(failing)} failing tests after two patches in a row",
            )
        elif self._budget_spent():
            self._stop_on_budget()
        else:
            self._transition(RunState.PATCHING, attempt=attempt + 1)

    def _same_failures_twice(self, attempt: int, failing: list[str]) -> bool:
        if attempt < 2:
            return False
        for earlier in (attempt - 1, attempt - 2):
            data = self.log.read_json(earlier, runlog.REPORT)
            if not data or sorted(TestReport.from_json(data).failing) != sorted(failing):
                return False
        return True

    def _stop_on_budget(self) -> None:
        self._finish(
            RunState.FAILED,
            EXIT_FAILED,
            f"cost budget spent: ${self.state.cost_usd:.4f} of ${self.options.max_cost_usd:.4f}",
        )
