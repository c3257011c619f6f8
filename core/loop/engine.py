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
from pathlib import Path
from typing import Any

from orch_tui.core.attempt.conversation import AttemptCallbacks, AttemptSetup, run_attempt
from orch_tui.core.attempt.feedback import generation_prompt, patch_prompt, system_prompt
from orch_tui.core.attempt.project_map import project_instructions
from orch_tui.core.checks.leftovers import RUNNING_DIR
from orch_tui.core.checks.runner import TestReport
from orch_tui.core.checks.sandbox import resolve_sandbox
from orch_tui.core.checks.trial import run_configured
from orch_tui.core.checks.venv import PROJECT_VENV, discard_created_venv
from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.asking import (
    GUIDANCE,
    QUESTION,
    Question,
    answer_from_choice,
    guidance_section,
    stuck_question,
)
from orch_tui.core.domain.budget import BudgetSpent, request_max_tokens
from orch_tui.core.domain.cost import price_for, usage_cost
from orch_tui.core.domain.events import (
    ChangeApplied,
    CheckOutput,
    Escalated,
    Event,
    EventBus,
    GuidanceGiven,
    ModelText,
    ModelTurn,
    Notice,
    ProposalReady,
    QuestionAsked,
    ReviewFinished,
    RunFinished,
    RunReopened,
    RunStarted,
    StateChanged,
    TestsFinished,
    ToolEdit,
)
from orch_tui.core.domain.plan import TaskStatus
from orch_tui.core.domain.proposal import Decisions, Proposal, render_patch, resolve
from orch_tui.core.domain.spec import Spec
from orch_tui.core.domain.state import RunState, State, StateError, StateStore, new_run_id
from orch_tui.core.loop import restore
from orch_tui.core.loop.plan_runner import PlanFailed, PlanRunner
from orch_tui.core.loop.review import Reviewer, ReviewSession
from orch_tui.core.loop.roles import Roles
from orch_tui.core.providers.base import AssistantTurn, ModelError, Provider
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.writer import RunLog
from orch_tui.core.util import atomic
from orch_tui.core.util.atomic import Commit
from orch_tui.core.util.wording import plural
from orch_tui.core.workspace import run_workspace
from orch_tui.core.workspace.boundary import SafetyViolation, Staging, apply_change

EXIT_SUCCESS = 0
EXIT_FAILED = 1
EXIT_SAFETY = 2
EXIT_STATE = 3
EXIT_NEEDS_HELP = 4
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
    allow_dirty: bool = False
    """Start a run in a git work tree with uncommitted changes to tracked files."""
    plan: bool = False
    """Plan mode (``--plan`` / ``loop.plan``): a new run plans tasks first, then one loop per task."""
    continue_run: bool = False
    """--continue: reopen a FAILED or NEEDS_HELP run with a fresh budget of max_retries patches."""
    guidance: str | None = None
    """--guidance: the person's answer, verbatim into the next prompt (implies continue_run)."""
    ask_when_stuck: bool = False
    """Ask a person instead of failing when stuck (the TUI; --auto follows loop.on_stuck)."""


class ReopenRefused(Exception):
    """--continue or --guidance on a run that cannot be reopened (it succeeded)."""


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
        self.files = Commit(settle_later=True)
        """Files written since the last transition that the next state points to: made
        durable together, in one commit with that state (not one fsync each). The state's
        own rename is made durable in the background while the next step starts: whatever
        that step makes durable waits for it first, and a finished run waits for it."""
        self._price = price_for(config.prices, config.model.name)
        self.planner = PlanRunner(self)
        self.roles = Roles(self)
        self._fresh_proposal: Proposal | None = None
        """The proposal this process just generated, hunks computed: the review step takes it
        instead of parsing proposal.json and diffing every file a second time."""

    # -- start and finish ---------------------------------------------------------------

    def _open_run(self) -> State:
        """Resume the saved run for this spec, or start a fresh one. StateError: exit 3."""
        saved = self.store.load()
        kept: Path | None = None
        if (
            saved
            and not self.options.fresh
            and saved.spec_hash == self.spec.digest
            and run_workspace.same_workspace(saved.workspace, self.paths)
        ):
            run_workspace.resume_record(saved.workspace, self.paths)
            self.state = saved
            if self.options.max_retries_given:
                saved.max_retries = self.options.max_retries
            resumed = True
        else:
            if saved and self.paths.is_default_workspace and self.paths.workspace.is_dir():
                kept = self._set_aside_workspace(saved.run_id)
            run_id = new_run_id()
            self.state = State(
                run_id=run_id,
                spec_path=str(self.spec.path),
                spec_hash=self.spec.digest,
                max_retries=self.options.max_retries,
                workspace=run_workspace.new_record(
                    self.paths,
                    run_id,
                    allow_dirty=self.options.allow_dirty,
                    protect_tests=self.config.safety.protect_existing_tests,
                ),
            )
            # state.json first: a kill before it leaves no run folder that nothing points to.
            self.store.save(self.state)
            resumed = False
        self.log = RunLog(self.paths.logs, self.state.run_id)
        self.log.clear_after_kill()
        if not (self.log.dir / runlog.RUN_META).exists():  # new, or killed before it was written
            self.log.write_text(None, runlog.SPEC_COPY, self.spec.text, self.files)
            self.log.stage_json(None, runlog.RUN_META, self._run_meta(), self.files)
        self.bus.subscribe(self.log)
        sandbox = resolve_sandbox(self.config.checks.sandbox)
        self.emit(
            RunStarted(
                run_id=self.state.run_id,
                spec_path=self.state.spec_path,
                provider=self.provider.name,
                model=self.config.model.name,
                model_in_use=self.model_at(self.state.attempt),
                max_retries=self.state.max_retries,
                resumed=resumed,
                state=self.state.state,
                attempt=self.state.attempt,
                sandbox=sandbox.name,
                tokens=self.state.usage.total,
                cost_usd=round(self.state.cost_usd, 6),
            )
        )
        if not sandbox.confined and self.config.checks.sandbox == "auto":
            self.emit(Notice(message=f"checks run without a sandbox: {sandbox.why}"))
        for message in self.options.notices:
            self.emit(Notice(message=message))
        if resumed:
            self.planner.announce()
        if resumed and self.reopen_after_error():
            self.emit(
                Notice(
                    message=f"asking the model again: attempt {self.state.attempt} had stopped on an error"
                )
            )
        self._continue_if_asked(resumed)
        if resumed and self.state.state.terminal:
            self.emit(
                Notice(
                    message=f"run {self.state.run_id} already finished ({self.state.state.value}); "
                    "to start again: --fresh (a new run, this one stays in logs/), "
                    "or `orch-tui reset` first"
                )
            )
        if saved and not resumed:
            why = (
                "--fresh was given"
                if self.options.fresh
                else "the spec changed"
                if saved.spec_hash != self.spec.digest
                else "the workspace changed"
            )
            where = f"; its workspace moved to {kept}" if kept else ""
            self.emit(
                Notice(
                    message=f"{why}: started run {self.state.run_id} "
                    f"(run {saved.run_id} stays in logs/{where})"
                )
            )
        if self._price is None:
            self.emit(
                Notice(message=f"no price for model {self.config.model.name}: cost shows as $0")
            )
        return self.state

    def _set_aside_workspace(self, old_run_id: str) -> Path | None:
        """A new run starts from an empty ``workspace/``: the old run's files move under its logs.

        Otherwise the new run's tests would include the old project's, and an identical
        regeneration would be an empty proposal. Returns where they went (None: nothing to move).
        """
        workspace = self.paths.workspace
        discard_created_venv(workspace)  # made again in a second; moved, it would fill logs/
        if self._workspace_is_empty():
            return None
        target = self.paths.logs / old_run_id / "workspace"
        suffix = 1
        while target.exists():
            suffix += 1
            target = self.paths.logs / old_run_id / f"workspace-{suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        workspace.rename(target)
        workspace.mkdir()
        return target

    def _workspace_is_empty(self) -> bool:
        """No project file yet: the placeholder and the checks' .venv are not the project."""
        ignored = {".gitkeep", PROJECT_VENV}
        return not any(child.name not in ignored for child in self.paths.workspace.iterdir())

    def reopen_after_error(self) -> bool:
        """A run stopped by a model error (network, overload, bad key) goes back to that attempt.

        Nothing was written by the failed attempt, so asking again is safe; other
        failures (retries spent, no progress, safety) stay final.
        """
        if not self.state.retryable:
            return False
        self.state.stop_reason = None
        self.state.exit_code = None
        self.state.last_error = None
        self.planner.mark(TaskStatus.RUNNING)
        if self.planner.stopped_while_planning():
            self._transition(RunState.PLANNING)
            return True
        first = self.state.attempt == self.planner.base_attempt()
        self._transition(RunState.GENERATING if first else RunState.PATCHING)
        return True

    def _run_meta(self) -> dict[str, Any]:
        return {
            "run_id": self.state.run_id,
            "spec_path": self.state.spec_path,
            "spec_hash": self.state.spec_hash,
            "provider": self.provider.name,
            "model": self.config.model.name,
            "sandbox": resolve_sandbox(self.config.checks.sandbox).name,
            "max_retries": self.state.max_retries,
            "created_at": self.state.created_at,
        }

    def run(self) -> int:
        """Open (or resume) the run and drive it to a terminal state; returns the exit code.

        KeyboardInterrupt and ReviewAborted propagate: the state on disk is
        the last one persisted, and the same command resumes from it.
        """
        self._open_run()
        return self._drive()

    def retry(self) -> int:
        """After :meth:`run` stopped on a model error: ask the model again and drive on."""
        self.reopen_after_error()
        return self._drive()

    def _drive(self) -> int:
        steps = {
            RunState.INIT: self._start,
            RunState.PLANNING: self._plan_step,
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
        except BudgetSpent as exc:
            self._finish(RunState.FAILED, EXIT_FAILED, str(exc))
        else:
            if self.state.exit_code is None:  # terminal when opened, finished earlier
                self.state.exit_code = {
                    RunState.SUCCESS: EXIT_SUCCESS,
                    RunState.NEEDS_HELP: EXIT_NEEDS_HELP,
                }.get(self.state.state, EXIT_FAILED)
        finally:
            self.files.discard()  # stopped mid-step: the state did not move to point at them
            atomic.settle()
        self._announce_finish()  # also after a safety stop or a model error: say why
        return int(self.state.exit_code if self.state.exit_code is not None else EXIT_FAILED)

    def emit(self, event: Event) -> None:
        self.bus.emit(event)

    def _transition(self, new_state: RunState, attempt: int | None = None) -> None:
        self.state.state = new_state
        if attempt is not None:
            self.state.attempt = attempt
        self.store.save(self.state, self.files)
        self.files = Commit(settle_later=True)
        if new_state.terminal:
            atomic.settle()  # a finished run is on disk when it says so
        self.emit(
            StateChanged(
                state=new_state,
                attempt=self.state.attempt,
                max_retries=self.state.max_retries,
            )
        )

    def _finish(self, final: RunState, exit_code: int, reason: str) -> None:
        if final is RunState.FAILED and self.state.plan is not None:
            self.planner.mark(TaskStatus.FAILED)
            reason = self.planner.reason(reason)
        self.state.stop_reason = reason
        self.state.exit_code = exit_code
        self._transition(final)

    def _announce_finish(self) -> None:
        self.emit(
            RunFinished(
                state=self.state.state,
                attempt=self.state.attempt,
                stop_reason=self.state.stop_reason,
                retryable=self.state.retryable,
                exit_code=int(self.state.exit_code or 0),
                tokens=self.state.usage.total,
                cost_usd=round(self.state.cost_usd, 6),
            )
        )

    # -- steps ----------------------------------------------------------------------------

    def _start(self) -> None:
        self._transition(RunState.PLANNING if self.options.plan else RunState.GENERATING, attempt=0)

    def _plan_step(self) -> None:
        try:
            first = self.planner.make_plan()
        except PlanFailed as exc:
            self._finish(RunState.FAILED, EXIT_FAILED, str(exc))
            return
        self._transition(RunState.GENERATING, attempt=first)

    def _budget_spent(self) -> bool:
        budget = self.options.max_cost_usd
        return budget is not None and self.state.cost_usd >= budget

    def _model_step(self) -> None:
        attempt = self.state.attempt
        if self._budget_spent():
            self._stop_on_budget()
            return
        first = attempt == self.planner.base_attempt()
        self.planner.record_attempt(attempt)
        prompt = self.planner.prompt_prefix() + self._prompt_for(attempt, first)
        prompt = restore.take_undone_note(self.state.workspace) + prompt
        model = self._model_for(attempt)
        setup = AttemptSetup(
            model=model,
            system=self.system_blocks(),
            prompt=prompt,
            max_tokens=self.config.model.max_tokens,
            max_turns=self.config.model.max_tool_turns,
            attempt=attempt,
        )
        protected = [
            *self.config.safety.protected_paths,
            *run_workspace.protected_tests(self.state.workspace),
        ]
        staging = Staging(self.paths.workspace, protected)

        def save_conversation(messages: list[dict[str, Any]], turns: list[AssistantTurn]) -> None:
            conversation = {
                "model": setup.model,
                "system": setup.system,
                "tools": setup.tools,
                "messages": messages,
                "turns": [turn.to_json() for turn in turns],
            }
            self.log.write_json(attempt, runlog.CONVERSATION, conversation)

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
            on_turn=lambda index, turn: self.add_usage(attempt, index, turn, model),
            on_messages=save_conversation,
            max_tokens=lambda asked: self.request_max_tokens(asked, model),
        )
        result = run_attempt(self.provider, setup, staging, callbacks)
        if result.question is not None:
            self._ask(result.question)
            return
        if result.turn_limit_hit:
            self.emit(
                Notice(
                    message=f"attempt {attempt} reached the limit of {setup.max_turns} model turns"
                )
            )
        proposal = result.proposal
        self.log.write_json(attempt, runlog.PROPOSAL, proposal.to_json(), self.files)
        self._fresh_proposal = proposal
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
            # Later attempts, or a first one with nothing to test: no checks, no paid retry.
            if not first or self._workspace_is_empty():
                self._stuck("no progress: the model proposed no change", self._failing())
                return
            self.log.write_json(attempt, runlog.APPLIED, {"files": {}}, self.files)
            self._transition(RunState.TESTING)
            return
        repeat = self._identical_earlier_proposal(attempt, proposal)
        if repeat is not None:
            self._stuck(
                f"no progress: the proposal of attempt {attempt} is identical to attempt {repeat}'s",
                self._failing(),
            )
            return
        self._transition(RunState.REVIEWING)

    def system_blocks(self) -> list[dict[str, Any]]:
        """Instructions and spec: with the tools, the cached prefix of every request."""
        return [
            {"type": "text", "text": system_prompt(self.config, self.paths.prompts)},
            *project_instructions(self.paths.workspace),
            {
                "type": "text",
                "text": f'<spec path="{self.spec.path.name}">\n{self.spec.text}\n</spec>',
                "cache_control": {"type": "ephemeral"},
            },
        ]

    def request_max_tokens(self, asked: int, model: str) -> int:
        """``asked`` capped by the cost budget left; BudgetSpent when no request fits in it.

        A provider that reports its own cost (Claude Code) needs no price, and takes no cap.
        """
        if getattr(self.provider, "reports_cost", False):
            return asked
        price = price_for(self.config.prices, model)
        budget = self.options.max_cost_usd
        return request_max_tokens(asked, budget, self.state.cost_usd, price, model)

    def add_usage(self, attempt: int, index: int, turn: AssistantTurn, model: str) -> None:
        self.state.usage = self.state.usage + turn.usage
        reported = turn.cost_usd
        self.state.cost_usd += (
            reported
            if reported is not None
            else usage_cost(turn.usage, price_for(self.config.prices, model))
        )
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
            changed=self._changed_files(previous),
            task=self.spec.text,
            prompts_dir=self.paths.prompts,
        )

    def _changed_files(self, last: int) -> list[str]:
        """The files the run's applied attempts up to ``last`` changed, latest first."""
        changed: list[str] = []
        for attempt in range(last, -1, -1):
            applied = self.log.read_json(attempt, runlog.APPLIED) or {"files": {}}
            changed += [path for path in sorted(applied["files"]) if path not in changed]
        return changed

    def _identical_earlier_proposal(self, attempt: int, proposal: Proposal) -> int | None:
        digest = proposal.digest()
        for earlier in range(attempt):
            data = self.log.read_json(earlier, runlog.PROPOSAL)
            if data and Proposal.from_json(data).digest() == digest:
                return earlier
        return None

    def _review_step(self) -> None:
        attempt = self.state.attempt
        proposal = self._proposal_under_review(attempt)
        saved = self.log.read_json(attempt, runlog.DECISIONS)
        decisions = Decisions.from_json(saved) if saved else Decisions()

        def persist(current: Decisions) -> None:
            self.log.write_json(attempt, runlog.DECISIONS, current.to_json())

        last_test = self.state.last_test
        failing_before = last_test.get("failing") if last_test else None
        session = ReviewSession(attempt, proposal, decisions, persist, failing_before)
        self.reviewer.review(session)
        self.log.stage_json(attempt, runlog.DECISIONS, decisions.to_json(), self.files)
        accepted, rejected, undecided = session.counts()
        resolved = {} if decisions.reject_reason is not None else resolve(proposal, decisions)
        self.emit(
            ReviewFinished(
                attempt=attempt,
                accepted=accepted + undecided,
                rejected=rejected,
                edited=sorted(decisions.edits),
                reject_reason=decisions.reject_reason,
                files_landing=sorted(resolved),
            )
        )
        if not resolved:
            if decisions.reject_reason is None:
                decisions.reject_reason = "every hunk of the proposal was rejected"
                self.log.stage_json(attempt, runlog.DECISIONS, decisions.to_json(), self.files)
            self._next_patch_or_stop(f"proposal rejected: {decisions.reject_reason}", failing=None)
            return
        olds = {change.path: change.old_text for change in session.effective.changes}
        # the originals, before TESTING: resuming TESTING re-applies, so they must exist first
        run_workspace.keep_originals(
            self.state.workspace, self.log.dir, sorted(resolved), self.files
        )
        self.log.write_json(attempt, runlog.APPLIED, {"files": resolved}, self.files)
        self.log.write_text(
            attempt,
            runlog.APPLIED_PATCH,
            render_patch((path, olds.get(path), text) for path, text in sorted(resolved.items())),
        )
        self._transition(RunState.TESTING)

    def _proposal_under_review(self, attempt: int) -> Proposal:
        """The attempt's proposal: the one just generated, else proposal.json (a resume)."""
        fresh, self._fresh_proposal = self._fresh_proposal, None
        if fresh is not None and fresh.attempt == attempt:
            return fresh
        saved_proposal = self.log.read_json(attempt, runlog.PROPOSAL)
        if saved_proposal is None:
            where = f"{self.log.dir / runlog.attempt_dir_name(attempt) / runlog.PROPOSAL}"
            raise StateError(f"{where} is missing: the proposal under review cannot be shown")
        return Proposal.from_json(saved_proposal)

    def _test_step(self) -> None:
        attempt = self.state.attempt
        applied = self.log.read_json(attempt, runlog.APPLIED) or {"files": {}}
        files = sorted(applied["files"])
        apply_change(self.paths.workspace, applied["files"], commit=self.files)
        self._commit_applied(attempt, files)
        self.emit(ChangeApplied(attempt=attempt, files=files))
        report = run_configured(
            self.config,
            self.paths.workspace,
            self.log.attempt_dir(attempt),
            on_output=lambda name, text: self.emit(
                CheckOutput(attempt=attempt, check=name, text=text)
            ),
            running=self.paths.root / RUNNING_DIR,
            on_notice=lambda message: self.emit(Notice(message=message)),
        )
        self.log.write_json(attempt, runlog.REPORT, report.to_json(), self.files)
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
        if report.passed and self.roles.wants_more(attempt):  # the verifier found gaps
            self._transition(RunState.PATCHING, attempt=attempt + 1)
            return
        if report.passed and self.state.plan is not None:
            following = self.planner.task_passed()
            if following is not None:
                self._transition(RunState.GENERATING, attempt=following)
                return
        if report.passed:
            self._finish(
                RunState.SUCCESS,
                EXIT_SUCCESS,
                f"all checks passed after {plural(attempt + 1, 'attempt')}",
            )
            hint = run_workspace.merge_hint(self.state.workspace)
            if hint:
                self.emit(Notice(message=hint))
            return
        self._next_patch_or_stop(f"checks failed: {report.summary()}", failing=failing)

    def _commit_applied(self, attempt: int, files: list[str]) -> None:
        """In git, the applied attempt becomes one commit, recorded in state.json."""
        conversation = self.log.read_json(attempt, runlog.CONVERSATION) or {}
        summary = run_workspace.summary_line(conversation.get("turns") or [], attempt)
        if run_workspace.commit_applied(
            self.state.workspace, self.state.run_id, attempt, files, summary
        ):
            self.store.save(self.state)

    def _next_patch_or_stop(self, why: str, failing: list[str] | None) -> None:
        attempt = self.state.attempt
        if attempt - self.planner.base_attempt() >= self.state.max_retries:
            self._stuck(
                f"retries exhausted: {why} after {self.state.max_retries} patch attempts",
                failing or self._failing(),
            )
        elif failing and self._same_failures_twice(attempt, failing):
            self._stuck(
                f"no progress: the same {len(failing)} failing tests after two patches in a row",
                failing,
            )
        elif self._budget_spent():
            self._stop_on_budget()
        elif failing is not None and (question := self.roles.judge(attempt)) is not None:
            self._ask(question)
        else:
            self._transition(RunState.PATCHING, attempt=attempt + 1)

    def _same_failures_twice(self, attempt: int, failing: list[str]) -> bool:
        if attempt - self.planner.base_attempt() < 2:
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

    # -- asking a person, continuing, escalating (DESIGN section 11) ---------------------

    def _ask(self, question: Question) -> None:
        """Stop at NEEDS_HELP with ``question`` in state.json and the attempt's log."""
        attempt = self.state.attempt
        self.log.write_json(attempt, QUESTION, question.to_json())
        self.state.question = question.to_json()
        self.emit(
            QuestionAsked(
                attempt=attempt,
                question=question.text,
                options=list(question.options),
                recommendation=question.recommendation,
                source=question.source,
            )
        )
        self._finish(RunState.NEEDS_HELP, EXIT_NEEDS_HELP, f"needs help: {question.text}")

    def _stuck(self, reason: str, failing: list[str]) -> None:
        """Retries spent or no progress: fail, or ask a person (TUI, or loop.on_stuck = "ask")."""
        if self.options.ask_when_stuck or self.config.loop.on_stuck == "ask":
            self._ask(stuck_question(reason, failing))
        else:
            self._finish(RunState.FAILED, EXIT_FAILED, reason)

    def _failing(self) -> list[str]:
        return list((self.state.last_test or {}).get("failing") or [])

    def continue_with(self, guidance: str | None) -> int:
        """After :meth:`run` stopped at FAILED or NEEDS_HELP: reopen the run (the TUI's answer,
        `c` and `g`) and drive it on; returns the exit code, as :meth:`run` does."""
        self.options.continue_run = True
        self.options.guidance = guidance
        self._continue_if_asked(resumed=True)
        return self._drive()

    def _continue_if_asked(self, resumed: bool) -> None:
        """--continue / --guidance: reopen a FAILED or NEEDS_HELP run, or guide the next attempt."""
        options = self.options
        if not (options.continue_run or options.guidance is not None):
            return
        state = self.state
        if state.state is RunState.SUCCESS:
            raise ReopenRefused(
                f"run {state.run_id} already succeeded: there is nothing to continue "
                "(--fresh starts a new run)"
            )
        if state.state in (RunState.FAILED, RunState.NEEDS_HELP):
            reopened_from = state.state
            state.max_retries = state.attempt - self.planner.base_attempt() + options.max_retries
            self.planner.mark(TaskStatus.RUNNING)
            state.stop_reason = None
            state.exit_code = None
            state.last_error = None
            self.emit(
                RunReopened(
                    from_state=reopened_from.value,
                    attempt=state.attempt + 1,
                    max_retries=state.max_retries,
                )
            )
            self._give_guidance(state.attempt + 1)
            state.question = None
            self._transition(RunState.PATCHING, attempt=state.attempt + 1)
            return
        if not resumed and options.continue_run and options.guidance is None:
            self.emit(Notice(message="--continue: no stopped run to reopen; started a new one"))
        waiting_for_model = state.state in (RunState.INIT, RunState.GENERATING, RunState.PATCHING)
        self._give_guidance(state.attempt if waiting_for_model else state.attempt + 1)

    def _give_guidance(self, attempt: int) -> None:
        text = self.options.guidance
        if text is None:
            return
        asked = self.state.question
        if asked:
            text = answer_from_choice(Question.from_json(asked), text)
        self.log.write_json(attempt, GUIDANCE, {"text": text, "question": asked})
        self.emit(
            GuidanceGiven(attempt=attempt, text=text, question=asked["text"] if asked else None)
        )

    def _prompt_for(self, attempt: int, first: bool) -> str:
        """The attempt's prompt; after a model's question, the asking attempt's prompt again.

        ``first`` marks the run's (or, in plan mode, the task's) first generation.
        """
        asked = self.log.read_json(attempt - 1, QUESTION) if attempt > 0 else None
        if first:
            prompt = generation_prompt(self.paths.workspace, self.paths.prompts)
        elif asked and asked.get("source") == "model":
            earlier = self.log.read_json(attempt - 1, runlog.CONVERSATION) or {}
            messages = earlier.get("messages") or [{}]
            prompt = str(
                messages[0].get("content")
                or generation_prompt(self.paths.workspace, self.paths.prompts)
            )
        else:
            # with a judge's guidance or a verifier's gaps about the attempt before
            prompt = self._patch_prompt(attempt - 1) + self.roles.prompt_note(attempt)
        guidance = self.log.read_json(attempt, GUIDANCE)
        if guidance:
            question = (
                Question.from_json(guidance["question"]) if guidance.get("question") else None
            )
            prompt += "\n\n" + guidance_section(question, guidance["text"])
        return prompt

    def model_at(self, attempt: int) -> str:
        """The model that answers ``attempt``: model.escalate_to once loop.escalate_after
        attempts of the run (of the task, in plan mode) have failed, else model.name."""
        stronger = self.config.model.escalate_to
        failed = attempt - self.planner.base_attempt()
        if not stronger or failed < self.config.loop.escalate_after:
            return self.config.model.name
        return stronger

    def _model_for(self, attempt: int) -> str:
        """:meth:`model_at`, with the ``escalated`` event logged on the switch."""
        stronger = self.model_at(attempt)
        failed = attempt - self.planner.base_attempt()
        if stronger == self.config.model.name:
            return stronger
        if failed == self.config.loop.escalate_after:
            self.emit(
                Escalated(
                    attempt=attempt,
                    from_model=self.config.model.name,
                    to_model=stronger,
                    failed_attempts=failed,
                )
            )
        return stronger
