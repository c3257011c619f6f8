"""Every tool the model is offered, as plain data in one place.

The text editor is Anthropic's built-in tool (a ``type`` and a ``name``); the others are
ordinary function tools with a JSON schema (``name``, ``description``, ``input_schema``),
so a provider for another wire format can translate them without knowing what they do.
"""

from __future__ import annotations

from typing import Any

CLAUDE_CODE_TOOLS = "Read,Edit,MultiEdit,Write,Glob,Grep,LS"
"""Claude Code's file tools (``--allowedTools``); no shell, so it cannot run anything or write
outside the copy. Here, not in the provider's module, because every system prompt names them:
a run of another provider does not load the Claude Code provider to say so."""

EDITOR_TOOL_NAME = "str_replace_based_edit_tool"
EDITOR_TOOL: dict[str, Any] = {"type": "text_editor_20250728", "name": EDITOR_TOOL_NAME}
"""Anthropic's built-in text editor tool: a type and a name, its schema is Anthropic's own."""

ASK_USER_NAME = "ask_user"
ASK_USER_TOOL: dict[str, Any] = {
    "name": ASK_USER_NAME,
    "description": (
        "Ask the person running this build a question instead of editing, when the spec is "
        "ambiguous or you need a decision only they can make. Calling it ends your turn: "
        "edits made in this turn are dropped, and the answer comes back in the next prompt."
    ),
    "input_schema": {
        "type": "object",
        "properties": {
            "question": {"type": "string", "description": "The question, self-contained."},
            "options": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Answers the person can pick from (may be empty).",
            },
            "recommendation": {
                "type": "string",
                "description": "Which option you recommend, and why, in one sentence.",
            },
        },
        "required": ["question"],
    },
}


def attempt_tools() -> list[dict[str, Any]]:
    """The tools of every model turn of an attempt (fresh copies: requests may be mutated)."""
    return [dict(EDITOR_TOOL), dict(ASK_USER_TOOL)]
