"""The model step (GENERATING / PATCHING): one attempt's conversation, its proposal kept.

The attempt's prompt is the generation prompt for the run's (or task's) first attempt,
else the patch prompt about the attempt before, with the judge's or verifier's note, the
person's guidance and a restored attempt's note added. Every edit goes to a staging copy;
the proposal is saved for review. A proposal with no change, or one identical to an
earlier attempt's, is returned as the :data:`~orch_tui.core.loop.retry.Failure` it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from orch_tui.core.attempt.conversation import AttemptCallbacks, AttemptSetup, run_attempt
from orch_tui.core.attempt.edit_rules import EditRules
from orch_tui.core.attempt.feedback import change_prompt, generation_prompt
from orch_tui.core.domain.asking import GUIDANCE, QUESTION, Question, guidance_section
from orch_tui.core.domain.events import ModelText, Notice, ProposalReady, ToolEdit
from orch_tui.core.domain.state import RunState
from orch_tui.core.loop import finishing
from orch_tui.core.loop.change_run import spec_edit, workspace_is_empty
from orch_tui.core.loop.escalation import model_for
from orch_tui.core.loop.exit_codes import EXIT_FAILED
from orch_tui.core.loop.final_checks import final_note
from orch_tui.core.loop.retry import Failure, NoChange, RepeatedProposal, budget_stop
from orch_tui.core.loop.run import Run
from orch_tui.core.loop.unparsable import take_parse_note
from orch_tui.core.providers.base import AssistantTurn
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.conversation import (
    assistant_indexes,
    conversation_record,
    turn_record,
)
from orch_tui.core.util.atomic import ItemMemo
from orch_tui.core.workspace import run_workspace
from orch_tui.core.workspace.placement import project_file_globs
from orch_tui.core.workspace.staging import Staging
from orch_tui.core.workspace.test_guard import existing_tests

if TYPE_CHECKING:  # the model's answer makes one: proposal.py (and difflib) load then
    from orch_tui.core.domain.proposal import Proposal
    from orch_tui.core.domain.state_records import WorkspaceRecord


def model_step(run: Run) -> Failure | None:
    """Ask the model for the attempt; REVIEWING (or TESTING) next, or the failure it is."""
    attempt = run.state.attempt
    spent = budget_stop(run.state.cost_usd, run.options.max_cost_usd)
    if spent is not None:
        finishing.finish(run, RunState.FAILED, EXIT_FAILED, spent.reason)
        return None
    first = attempt == run.planner.base_attempt()
    run.planner.record_attempt(attempt)
    setup = _setup(run, attempt, first)
    protected = [
        *run.config.safety.protected_paths,
        *run_workspace.protected_tests(run.state.workspace),
        *project_file_globs(run.paths),
    ]
    staging = Staging(run.paths.workspace, protected)
    result = run_attempt(run.provider, setup, staging, _callbacks(run, setup))
    if result.question is not None:
        finishing.ask(run, result.question)
        return None
    if result.turn_limit_hit:
        run.emit(
            Notice(message=f"attempt {attempt} reached the limit of {setup.max_turns} model turns")
        )
    return _keep_proposal(run, result.proposal, first)


def _setup(run: Run, attempt: int, first: bool) -> AttemptSetup:
    prompt = run.planner.prompt_prefix() + attempt_prompt(run, attempt, first)
    prompt = take_undone_note(run.state.workspace) + take_parse_note(run) + prompt
    return AttemptSetup(
        model=model_for(run, attempt),
        system=run.system_blocks(),
        prompt=prompt,
        max_tokens=run.config.model.max_tokens,
        max_turns=run.config.model.max_tool_turns,
        attempt=attempt,
        locked_tests=_locked_tests(run),
        rules=_edit_rules(run),
    )


def _edit_rules(run: Run) -> EditRules:
    """The spec's data files, and the current plan task's files when it names them."""
    task, files = run.planner.task_files()
    return EditRules(
        data_inputs=frozenset(data.name for data in run.spec.data), task=task, task_files=files
    )


def _locked_tests(run: Run) -> frozenset[str]:
    """Under ``--auto`` the tests present now are the contract the model may not edit (unless
    ``safety.allow_test_edits``); a person reviewing holds their changes back instead."""
    if getattr(run.reviewer, "holds_locked_tests", True) or run.config.safety.allow_test_edits:
        return frozenset()
    return frozenset(existing_tests(run.paths.workspace))


def _callbacks(run: Run, setup: AttemptSetup) -> AttemptCallbacks:
    """Stream text and edits to subscribers, count usage, save the conversation as it goes."""
    attempt, model = setup.attempt, setup.model
    written = ItemMemo()  # each save encodes only what the turn added (a 200-file turn: 4 MB)
    turn_records: list[dict[str, Any]] = []

    def save_conversation(messages: list[dict[str, Any]], turns: list[AssistantTurn]) -> None:
        places = assistant_indexes(messages)
        turn_records.extend(
            turn_record(turns[n].to_json(), places[n]) for n in range(len(turn_records), len(turns))
        )
        conversation = conversation_record(
            setup.model, setup.system, setup.tools, messages, turn_records
        )
        run.log.write_json(attempt, runlog.CONVERSATION, conversation, items=written)

    return AttemptCallbacks(
        on_text=lambda text: run.emit(ModelText(attempt=attempt, text=text)),
        on_edit=lambda o: run.emit(
            ToolEdit(
                attempt=attempt,
                command=o.command,
                path=o.path,
                ok=not o.is_error,
                detail=o.content[:200],
            )
        ),
        on_turn=lambda index, turn: run.add_usage(attempt, index, turn, model),
        on_messages=save_conversation,
        max_tokens=lambda asked: run.request_max_tokens(asked, model),
    )


def _keep_proposal(run: Run, proposal: Proposal, first: bool) -> Failure | None:
    """Save the proposal for review; an empty or repeated one is no progress."""
    attempt = run.state.attempt
    change_lines = proposal.change_lines()  # first: its escaped new texts give the digest
    data = proposal.to_json()
    lines = ItemMemo()
    for item, line in zip(data["changes"], change_lines, strict=True):
        lines.remember(item, line)
    run.log.write_json(attempt, runlog.PROPOSAL, data, run.files, items=lines)
    run.proposal_digests.pop(attempt, None)  # known again below, unless it is empty
    run.fresh_proposal = proposal
    run.emit(
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
        if not first or workspace_is_empty(run.paths.workspace):
            return NoChange()
        run.log.write_json(attempt, runlog.APPLIED, {"files": {}}, run.files)
        run.transition(RunState.TESTING)
        return None
    repeat = _identical_earlier_proposal(run, attempt, proposal)
    if repeat is not None:
        return RepeatedProposal(earlier=repeat)
    run.transition(RunState.REVIEWING)
    return None


def _identical_earlier_proposal(run: Run, attempt: int, proposal: Proposal) -> int | None:
    """The earlier attempt whose proposal is this one, or None. Each proposal's digest is kept
    in :attr:`Run.proposal_digests` once known: every attempt compares with all before it, and
    reading and parsing each earlier proposal.json again made that quadratic in the attempts."""
    from orch_tui.core.domain.proposal import Proposal

    digests = run.proposal_digests
    digest = digests[attempt] = proposal.digest()
    for earlier in range(attempt):
        if earlier not in digests:
            data = run.log.read_json(earlier, runlog.PROPOSAL)
            if not data:
                continue
            digests[earlier] = Proposal.from_json(data).digest()
        if digests[earlier] == digest:
            return earlier
    return None


def attempt_prompt(run: Run, attempt: int, first: bool) -> str:
    """The attempt's prompt; after a model's question, the asking attempt's prompt again.

    ``first`` marks the run's (or, in plan mode, the task's) first generation.
    """
    log, paths = run.log, run.paths
    asked = log.read_json(attempt - 1, QUESTION) if attempt > 0 else None
    if first:
        prompt = _first_prompt(run)
    elif asked and asked.get("source") == "model":
        earlier = log.read_json(attempt - 1, runlog.CONVERSATION) or {}
        messages = earlier.get("messages") or [{}]
        prompt = str(
            messages[0].get("content") or generation_prompt(paths.workspace, paths.prompts)
        )
    else:
        # with a judge's guidance or a verifier's gaps about the attempt before
        prompt = (
            run.patch_prompt(attempt - 1)
            + run.roles.prompt_note(attempt)
            + final_note(run.log, attempt)
        )
    guidance = log.read_json(attempt, GUIDANCE)
    if guidance:
        question = Question.from_json(guidance["question"]) if guidance.get("question") else None
        prompt += "\n\n" + guidance_section(question, guidance["text"])
    return prompt


def _first_prompt(run: Run) -> str:
    """Build the project; in a change run, change it as the spec's edit says."""
    paths, follows = run.paths, run.state.follows
    edit = spec_edit(paths.logs, follows, run.spec.text, run.spec.path.name) if follows else None
    if follows is None or edit is None:
        return generation_prompt(paths.workspace, paths.prompts)
    return change_prompt(paths.workspace, follows, edit, paths.prompts)


def take_undone_note(record: WorkspaceRecord | None) -> str:
    """A paragraph for the next prompt naming the attempts the person undid; said once."""
    if record is None or not record.undone:
        return ""
    undone, record.undone = record.undone, []
    names = ", ".join(str(number) for number in undone)
    return (
        f"The person restored the workspace to an earlier result: the changes of attempt(s) "
        f"{names} were undone. Do not redo them as they were.\n\n"
    )
