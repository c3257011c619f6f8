"""One attempt: a bounded tool-use conversation whose edits land in a staging overlay.

The provider answers each request with one assistant turn; every tool call
runs against the :class:`~core.workspace.Staging` overlay and its result goes
back in the next request. When the model ends its turn (or the turn bound is
reached) the staged edits are the attempt's proposal. A call to ``ask_user`` ends the
attempt at once with the question and no proposal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import TYPE_CHECKING, Any

from orch_tui.core.attempt.edit_rules import EditRules
from orch_tui.core.attempt.editor_tool import EditorTool, ToolOutcome
from orch_tui.core.domain.asking import Question, prose_question
from orch_tui.core.domain.tools import ASK_USER_NAME, attempt_tools
from orch_tui.core.domain.tools import EDITOR_TOOL_NAME as TOOL_NAME
from orch_tui.core.providers.base import AssistantTurn, Provider, TextSink, TurnRequest
from orch_tui.core.util.records import record
from orch_tui.core.workspace.staging import Staging

if TYPE_CHECKING:  # made after the model's answer: proposal.py (and difflib) load then
    from orch_tui.core.domain.proposal import Proposal

CONTINUE_PROMPT = "Your response was cut off by the token limit. Continue where you stopped."
BREAKPOINT = {"type": "ephemeral"}


def with_cache_breakpoints(messages: list[dict[str, Any]], previous: int) -> list[dict[str, Any]]:
    """A copy of ``messages`` whose cache breakpoints move with the conversation.

    One breakpoint sits on the last message, so the next request reads everything this one
    sent; one on the last message of the previous request (its first ``previous`` messages),
    so this request reads what that one cached even when a turn adds more blocks than the
    API looks back over. With the system prompt's, a request carries at most three of the
    API's four breakpoints. The conversation itself (as logged) carries none.
    """
    marked = list(messages)
    for index in sorted({previous - 1, len(messages) - 1}):
        if index < 0:
            continue
        content = marked[index]["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        last = {**blocks[-1], "cache_control": BREAKPOINT}
        marked[index] = {**marked[index], "content": [*blocks[:-1], last]}
    return marked


@record
class AttemptResult:
    proposal: Proposal
    turn_limit_hit: bool = False
    question: Question | None = None
    """Set when the model called ``ask_user``: the attempt ended without a proposal."""


@record
class AttemptCallbacks:
    """How an attempt reports progress while it runs (the engine turns these into events)."""

    on_text: TextSink = lambda text: None
    on_edit: Callable[[ToolOutcome], None] = lambda outcome: None
    on_turn: Callable[[int, AssistantTurn], None] = lambda index, turn: None
    on_messages: Callable[[list[dict[str, Any]], list[AssistantTurn]], None] = (
        lambda messages, turns: None
    )
    """The conversation so far and the turns it took, after every turn (to be saved)."""
    max_tokens: Callable[[int], int] = lambda asked: asked
    """The next request's ``max_tokens`` from the configured one (the engine caps it by the
    cost budget left, or raises :class:`~core.budget.BudgetSpent` to send no request)."""


@record
class AttemptSetup:
    model: str
    system: list[dict[str, Any]]
    prompt: str
    max_tokens: int
    max_turns: int
    attempt: int
    tools: list[dict[str, Any]] = field(default_factory=attempt_tools)
    locked_tests: frozenset[str] = frozenset()
    """Test files the model may not edit in this attempt (the contract, under ``--auto``)."""
    rules: EditRules = EditRules()
    """The data files and, in a plan task naming its files, the files outside them."""


def _tool_result(
    block: dict[str, Any], editor: EditorTool, on_edit: Callable[[ToolOutcome], None]
) -> dict[str, Any]:
    if block.get("name") != TOOL_NAME:
        content = f"Error: unknown tool {block.get('name')!r}; edit files with {TOOL_NAME}"
        return {
            "type": "tool_result",
            "tool_use_id": block["id"],
            "content": content,
            "is_error": True,
        }
    tool_input = block.get("input")
    outcome = editor.run(tool_input if isinstance(tool_input, dict) else {})
    on_edit(outcome)
    result: dict[str, Any] = {
        "type": "tool_result",
        "tool_use_id": block["id"],
        "content": outcome.content,
    }
    if outcome.is_error:
        result["is_error"] = True
    return result


def run_attempt(
    provider: Provider,
    setup: AttemptSetup,
    staging: Staging,
    callbacks: AttemptCallbacks | None = None,
) -> AttemptResult:
    """Drive the conversation; a path outside the workspace raises ``SafetyViolation``."""
    callbacks = callbacks or AttemptCallbacks()
    editor = EditorTool(staging, locked=setup.locked_tests, rules=setup.rules)
    messages: list[dict[str, Any]] = [{"role": "user", "content": setup.prompt}]
    turns: list[AssistantTurn] = []
    limit_hit = True
    sent = 0
    for index in range(setup.max_turns):
        request = TurnRequest(
            model=setup.model,
            system=setup.system,
            tools=setup.tools,
            # a snapshot: the conversation grows after this request
            messages=with_cache_breakpoints(messages, sent),
            max_tokens=callbacks.max_tokens(setup.max_tokens),
            attempt=setup.attempt,
        )
        sent = len(messages)
        turn = provider.complete(request, callbacks.on_text)
        turns.append(turn)
        messages.append({"role": "assistant", "content": turn.content})
        callbacks.on_turn(index, turn)
        tool_uses = [block for block in turn.content if block.get("type") == "tool_use"]
        asked = [block for block in tool_uses if block.get("name") == ASK_USER_NAME]
        if asked:
            from orch_tui.core.domain.proposal import Proposal

            callbacks.on_messages(messages, turns)
            return AttemptResult(
                proposal=Proposal(attempt=setup.attempt),
                question=Question.from_tool_input(asked[0].get("input")),
            )
        if tool_uses:
            results = [_tool_result(block, editor, callbacks.on_edit) for block in tool_uses]
            messages.append({"role": "user", "content": results})
        elif turn.stop_reason == "max_tokens":
            messages.append({"role": "user", "content": CONTINUE_PROMPT})
        else:
            callbacks.on_messages(messages, turns)
            limit_hit = False
            break
        callbacks.on_messages(messages, turns)
    proposal = staging.to_proposal(setup.attempt)
    if proposal.is_empty and not limit_hit and turns:
        # A question asked in prose, with nothing changed: that question, not "no change".
        asked_in_prose = prose_question(_text_of(turns[-1]))
        if asked_in_prose is not None:
            return AttemptResult(proposal=proposal, question=asked_in_prose)
    return AttemptResult(proposal=proposal, turn_limit_hit=limit_hit)


def _text_of(turn: AssistantTurn) -> str:
    return "".join(str(b.get("text", "")) for b in turn.content if b.get("type") == "text")
