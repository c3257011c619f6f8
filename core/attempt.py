"""One attempt: a bounded tool-use conversation whose edits land in a staging overlay.

The provider answers each request with one assistant turn; every tool call
runs against the :class:`~core.workspace.Staging` overlay and its result goes
back in the next request. When the model ends its turn (or the turn bound is
reached) the staged edits are the attempt's proposal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.editor_tool import TOOL_DEFINITION, TOOL_NAME, EditorTool, ToolOutcome
from core.proposal import Proposal
from core.providers.base import AssistantTurn, Provider, TextSink, TurnRequest, Usage
from core.workspace import Staging

CONTINUE_PROMPT = "Your response was cut off by the token limit. Continue where you stopped."


@dataclass
class AttemptResult:
    proposal: Proposal
    messages: list[dict[str, Any]]
    turns: list[AssistantTurn]
    usage: Usage
    turn_limit_hit: bool = False
    text: str = ""


@dataclass
class AttemptCallbacks:
    """How an attempt reports progress while it runs (the engine turns these into events)."""

    on_text: TextSink = lambda text: None
    on_edit: Callable[[ToolOutcome], None] = lambda outcome: None
    on_turn: Callable[[int, AssistantTurn], None] = lambda index, turn: None
    on_messages: Callable[[list[dict[str, Any]]], None] = lambda messages: None


@dataclass
class AttemptSetup:
    model: str
    system: list[dict[str, Any]]
    prompt: str
    max_tokens: int
    max_turns: int
    attempt: int
    tools: list[dict[str, Any]] = field(default_factory=lambda: [dict(TOOL_DEFINITION)])


def _tool_result(block: dict[str, Any], editor: EditorTool, on_edit) -> dict[str, Any]:
    if block.get("name") != TOOL_NAME:
        content = f"Error: unknown tool {block.get('name')!r}; the only tool is {TOOL_NAME}"
        return {
            "type": "tool_result",
            "tool_use_id": block["id"],
            "content": content,
            "is_error": True,
        }
    tool_input = block.get("input")
    outcome = editor.run(tool_input if isinstance(tool_input, dict) else {})
    on_edit(outcome)
    result = {"type": "tool_result", "tool_use_id": block["id"], "content": outcome.content}
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
    editor = EditorTool(staging)
    messages: list[dict[str, Any]] = [{"role": "user", "content": setup.prompt}]
    turns: list[AssistantTurn] = []
    usage = Usage()
    texts: list[str] = []
    limit_hit = True
    for index in range(setup.max_turns):
        request = TurnRequest(
            model=setup.model,
            system=setup.system,
            tools=setup.tools,
            messages=list(messages),  # a snapshot: the conversation grows after this request
            max_tokens=setup.max_tokens,
            attempt=setup.attempt,
        )
        turn = provider.complete(request, callbacks.on_text)
        turns.append(turn)
        usage = usage + turn.usage
        messages.append({"role": "assistant", "content": turn.content})
        texts += [block["text"] for block in turn.content if block.get("type") == "text"]
        callbacks.on_turn(index, turn)
        tool_uses = [block for block in turn.content if block.get("type") == "tool_use"]
        if tool_uses:
            results = [_tool_result(block, editor, callbacks.on_edit) for block in tool_uses]
            messages.append({"role": "user", "content": results})
        elif turn.stop_reason == "max_tokens":
            messages.append({"role": "user", "content": CONTINUE_PROMPT})
        else:
            callbacks.on_messages(messages)
            limit_hit = False
            break
        callbacks.on_messages(messages)
    return AttemptResult(
        proposal=staging.to_proposal(setup.attempt),
        messages=messages,
        turns=turns,
        usage=usage,
        turn_limit_hit=limit_hit,
        text="\n\n".join(texts),
    )
