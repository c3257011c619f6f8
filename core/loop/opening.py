"""Opening a run: resume the saved one, or start a new one (``--fresh`` sets the old aside).

- The saved run resumes when it is for the same spec and workspace and ``--fresh`` was not
  given; a run stopped by a model error goes back to that attempt.
- A spec edited after a run starts a change run (:mod:`.change_run`): the workspace stays,
  the new run ``follows`` the old one.
- Otherwise (``--fresh``) a new run starts; in the default ``workspace/`` the old run's files
  move under ``logs/<old run_id>/workspace`` (:func:`set_aside_workspace`), so it starts empty.
- ``--continue`` / ``--guidance`` reopen a FAILED or NEEDS_HELP run (with ``--rework``, a
  SUCCESS one too) with a fresh retry budget (:func:`continue_if_asked`), the person's
  guidance going into the next prompt.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from orch_tui.core.checks.sandbox import resolve_sandbox
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.asking import GUIDANCE, answer_from_choice
from orch_tui.core.domain.cost import price_for
from orch_tui.core.domain.events import GuidanceGiven, Notice, RunReopened, RunStarted
from orch_tui.core.domain.plan import TaskStatus
from orch_tui.core.domain.spec import Spec
from orch_tui.core.domain.state import RunState, State, StateError, StateStore, new_run_id
from orch_tui.core.loop import change_run
from orch_tui.core.loop.change_run import KEPT_IN_WORKSPACE, workspace_is_empty
from orch_tui.core.loop.escalation import model_at
from orch_tui.core.loop.giving_up import NothingToGiveUp, asks_to_give_up, give_up
from orch_tui.core.loop.one_task import one_task_refusal, start_one_task
from orch_tui.core.loop.options import RunOptions
from orch_tui.core.loop.run import Run
from orch_tui.core.loop.unparsable import note_unparsable
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.writer import RunLog
from orch_tui.core.workspace import run_workspace
from orch_tui.core.workspace.data_copies import place_data_files


class ReopenRefused(Exception):
    """--continue or --guidance on a run that cannot be reopened (it succeeded)."""


def open_run(run: Run) -> State:
    """Resume the saved run for this spec, or start a fresh one. StateError: exit 3."""
    saved = run.store.load()
    kept: Path | None = None
    resumed = bool(
        saved
        and not run.options.fresh
        and saved.spec_hash == run.spec.digest
        and run_workspace.same_workspace(saved.workspace, run.paths)
    )
    refused = one_task_refusal(run.options.task, saved if resumed else None)
    if refused:
        raise ReopenRefused(refused)  # before anything moves: nothing changes
    if run.options.give_up and not resumed:
        raise NothingToGiveUp("--give-up: there is no saved run of this spec to give up on")
    if saved and resumed:
        run_workspace.resume_record(saved.workspace, run.paths)
        run.state = saved
        if run.options.max_retries_given:
            saved.max_retries = run.options.max_retries
    else:
        change = saved is not None and change_run.changes_project(run, saved)
        if saved and not change and run.paths.is_default_workspace and run.paths.workspace.is_dir():
            kept = set_aside_workspace(run.paths, saved.run_id)
        _start_new(run, saved if change else None)
    copied = place_data_files(run.paths.workspace, run.spec.data, _data_copied_by(run, saved))
    _open_log(run)
    change_run.record_spec_edit(run)
    _announce_start(run, resumed)
    if copied:
        run.emit(Notice(message=f"data files copied into the workspace: {', '.join(copied)}"))
    if resumed:
        run.planner.announce()
    if resumed and reopen_after_error(run):
        run.emit(
            Notice(
                message=f"asking the model again: attempt {run.state.attempt} had stopped on an error"
            )
        )
    continue_if_asked(run, resumed)
    start_one_task(run)
    if resumed and run.state.state.terminal:
        run.emit(
            Notice(
                message=f"run {run.state.run_id} already finished ({run.state.state.value}); "
                "to start again: --fresh (a new run, this one stays in logs/), "
                "or `orch-tui reset` first"
            )
        )
    if saved and not resumed:
        _announce_new_run(run, saved, kept)
    if not run.state.state.terminal:
        note_unparsable(run)  # a file edited by hand into one that does not parse
    reports_cost = getattr(run.provider, "reports_cost", False)  # Claude Code: no price needed
    if not reports_cost and price_for(run.config.prices, run.config.model.name) is None:
        run.emit(Notice(message=f"no price for model {run.config.model.name}: cost shows as $0"))
    return run.state


def views_a_finished_run(paths: ProjectPaths, spec: Spec, options: RunOptions) -> bool:
    """Opening this run asks the model nothing: the saved run of ``spec`` ended SUCCESS or
    FAILED (not on a model error, which is asked again) and no option reopens it or starts
    another. Such a run is looked at, so a missing API key is no reason to refuse it."""
    if options.fresh or options.continue_run or options.guidance is not None:
        return False
    if options.rework or options.give_up or options.task:
        return False
    try:
        saved = StateStore(paths.state).load()
    except StateError:
        return False
    return bool(
        saved
        and saved.state in (RunState.SUCCESS, RunState.FAILED)
        and not saved.retryable
        and saved.spec_hash == spec.digest
        and run_workspace.same_workspace(saved.workspace, paths)
    )


def _start_new(run: Run, follows: State | None) -> None:
    """A new run; ``follows``: the run whose project it changes (a change run)."""
    run_id = new_run_id()
    run.state = State(
        run_id=run_id,
        spec_path=str(run.spec.path),
        spec_hash=run.spec.digest,
        max_retries=run.options.max_retries,
        workspace=run_workspace.new_record(
            run.paths,
            run_id,
            allow_dirty=run.options.allow_dirty,
            protect_tests=run.config.safety.protect_existing_tests,
            follows=follows.workspace.git if follows and follows.workspace else None,
        ),
        follows=follows.run_id if follows else None,
    )
    # state.json first: a kill before it leaves no run folder that nothing points to.
    run.store.save(run.state)


def _open_log(run: Run) -> None:
    run.log = RunLog(run.paths.logs, run.state.run_id)
    run.log.clear_after_kill()
    if not (run.log.dir / runlog.RUN_META).exists():  # new, or killed before it was written
        run.log.write_text(None, runlog.SPEC_COPY, run.spec.text, run.files)
        run.log.stage_json(None, runlog.RUN_META, run_meta(run), run.files)
    run.bus.subscribe(run.log)


def _announce_start(run: Run, resumed: bool) -> None:
    state, config = run.state, run.config
    sandbox = resolve_sandbox(config.checks.sandbox)
    run.emit(
        RunStarted(
            run_id=state.run_id,
            spec_path=state.spec_path,
            provider=run.provider.name,
            model=config.model.name,
            model_in_use=model_at(config, state.attempt, run.planner.base_attempt()),
            max_retries=state.max_retries,
            resumed=resumed,
            state=state.state,
            attempt=state.attempt,
            sandbox=sandbox.name,
            tokens=state.usage.total,
            cost_usd=round(state.cost_usd, 6),
            follows=state.follows,
        )
    )
    if not sandbox.confined and config.checks.sandbox == "auto":
        run.emit(Notice(message=f"checks run without a sandbox: {sandbox.why}"))
    for message in run.options.notices:
        run.emit(Notice(message=message))


def _announce_new_run(run: Run, saved: State, kept: Path | None) -> None:
    """Why the saved run was not resumed, where its workspace went, and how to get the other
    kind of new run (a change run, or a fresh one)."""
    if run.state.follows:
        run.emit(
            Notice(
                message=f"{_what_changed(run)}: run {run.state.run_id} changes the project of run "
                f"{saved.run_id} (the workspace stays as it is; the first prompt carries the "
                "spec's edit). To start over from an empty workspace instead: --fresh"
            )
        )
        return
    other = (
        "; without --fresh, an edited spec changes the current project instead"
        if run.options.fresh
        else ""
    )
    why = (
        "--fresh was given"
        if run.options.fresh
        else _what_changed(run)
        if saved.spec_hash != run.spec.digest
        else "the workspace changed"
    )
    where = f"; its workspace moved to {kept}" if kept else ""
    run.emit(
        Notice(
            message=f"{why}: started run {run.state.run_id} "
            f"(run {saved.run_id} stays in logs/{where}){other}"
        )
    )


def _what_changed(run: Run) -> str:
    return "the spec or its data files changed" if run.spec.data else "the spec changed"


def _data_copied_by(run: Run, saved: State | None) -> dict[str, str]:
    """The data files the saved run copied into the workspace (name → digest): a copy of
    them there is the run's own, which a change run may replace."""
    if saved is None:
        return {}
    try:
        data = json.loads((run.paths.logs / saved.run_id / runlog.RUN_META).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    copied = data.get("data") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in copied.items()} if isinstance(copied, dict) else {}


def run_meta(run: Run) -> dict[str, Any]:
    """``logs/<run_id>/run.json``: what the run was started with."""
    return {
        "run_id": run.state.run_id,
        "spec_path": run.state.spec_path,
        "spec_hash": run.state.spec_hash,
        "provider": run.provider.name,
        "model": run.config.model.name,
        "sandbox": resolve_sandbox(run.config.checks.sandbox).name,
        "max_retries": run.state.max_retries,
        "created_at": run.state.created_at,
        **({"follows": run.state.follows} if run.state.follows else {}),
        "data": {data.name: data.digest for data in run.spec.data},
    }


def set_aside_workspace(paths: ProjectPaths, old_run_id: str) -> Path | None:
    """A new run starts from an empty ``workspace/``: the old run's files move under its logs.

    Otherwise the new run's tests would include the old project's, and an identical
    regeneration would be an empty proposal. What the person keeps in the workspace stays:
    the placeholder ``.gitkeep`` (tracked by the project's git) and ``AGENTS.md``, the project's
    instructions. Returns where the rest went (None: nothing to move).
    """
    from orch_tui.core.checks.venv import discard_created_venv  # the checks' module: loaded late

    workspace = paths.workspace
    discard_created_venv(workspace)  # made again in a second; moved, it would fill logs/
    if workspace_is_empty(workspace):
        return None
    target = paths.logs / old_run_id / "workspace"
    suffix = 1
    while target.exists():
        suffix += 1
        target = paths.logs / old_run_id / f"workspace-{suffix}"
    target.mkdir(parents=True)
    for child in sorted(workspace.iterdir()):
        if child.name not in KEPT_IN_WORKSPACE:
            child.rename(target / child.name)
    return target


def reopen_after_error(run: Run) -> bool:
    """A run stopped by a model error (network, overload, bad key) goes back to that attempt.

    Nothing was written by the failed attempt, so asking again is safe; other
    failures (retries spent, no progress, safety) stay final.
    """
    state = run.state
    if not state.retryable:
        return False
    state.stop_reason = None
    state.exit_code = None
    state.last_error = None
    run.planner.mark(TaskStatus.RUNNING)
    if run.planner.stopped_while_planning():
        run.transition(RunState.PLANNING)
        return True
    first = state.attempt == run.planner.base_attempt()
    run.transition(RunState.GENERATING if first else RunState.PATCHING)
    return True


def continue_if_asked(run: Run, resumed: bool) -> None:
    """--continue / --guidance: reopen a FAILED or NEEDS_HELP run, or guide the next attempt."""
    options, state = run.options, run.state
    if asks_to_give_up(run):
        give_up(run)
        return
    if not (options.continue_run or options.guidance is not None):
        return
    if state.state is RunState.SUCCESS and not (options.rework and options.guidance):
        raise ReopenRefused(
            f"run {state.run_id} already succeeded: there is nothing to continue "
            "(--fresh starts a new run)"
        )
    if state.state in (RunState.FAILED, RunState.NEEDS_HELP, RunState.SUCCESS):
        reopened_from = state.state
        state.max_retries = state.attempt - run.planner.base_attempt() + options.max_retries
        state.reopened_at = state.attempt  # a new no-progress window: the patches it buys
        run.planner.mark(TaskStatus.RUNNING)
        state.stop_reason = None
        state.exit_code = None
        state.last_error = None
        run.emit(
            RunReopened(
                from_state=reopened_from.value,
                attempt=state.attempt + 1,
                max_retries=state.max_retries,
            )
        )
        _give_guidance(run, state.attempt + 1)
        state.question = None
        run.transition(RunState.PATCHING, attempt=state.attempt + 1)
        return
    if not resumed and options.continue_run and options.guidance is None:
        run.emit(Notice(message="--continue: no stopped run to reopen; started a new one"))
    waiting_for_model = state.state in (RunState.INIT, RunState.GENERATING, RunState.PATCHING)
    _give_guidance(run, state.attempt if waiting_for_model else state.attempt + 1)


def _give_guidance(run: Run, attempt: int) -> None:
    """The person's guidance (``--guidance``, or the TUI's answer) for ``attempt``'s prompt."""
    text = run.options.guidance
    if text is None:
        return
    asked = run.state.question
    if asked:
        text = answer_from_choice(asked, text)
    run.log.write_json(
        attempt, GUIDANCE, {"text": text, "question": asked.to_json() if asked else None}
    )
    run.emit(GuidanceGiven(attempt=attempt, text=text, question=asked.text if asked else None))
