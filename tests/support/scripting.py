"""Building recorded model turns for in-process engine tests."""

from __future__ import annotations

import itertools
from typing import Any

from orch_tui.core.domain.cost import Usage
from orch_tui.core.providers.base import AssistantTurn
from orch_tui.core.providers.scripted import ScriptedProvider

_ids = itertools.count(1)


def create(path: str, text: str) -> dict[str, Any]:
    return {"command": "create", "path": path, "file_text": text}


def replace(path: str, old: str, new: str) -> dict[str, Any]:
    return {"command": "str_replace", "path": path, "old_str": old, "new_str": new}


def turn(text: str, *edits: dict[str, Any], usage: Usage | None = None) -> AssistantTurn:
    """One assistant turn: some text and editor-tool calls (tool_use when there are any)."""
    content: list[dict[str, Any]] = [{"type": "text", "text": text}]
    for edit in edits:
        content.append(
            {
                "type": "tool_use",
                "id": f"toolu_{next(_ids):04d}",
                "name": "str_replace_based_edit_tool",
                "input": edit,
            }
        )
    return AssistantTurn(
        content=content,
        stop_reason="tool_use" if edits else "end_turn",
        usage=usage or Usage(input_tokens=100, output_tokens=50),
    )


def prompt_text(request: Any) -> str:
    """The text of a request's opening user message (the generation or patch prompt)."""
    content = request.messages[0]["content"]
    return content if isinstance(content, str) else "".join(b["text"] for b in content)


def attempt(*edits: dict[str, Any], text: str = "Editing.") -> list[AssistantTurn]:
    """A whole attempt: one turn of edits, then a closing turn."""
    return [turn(text, *edits), turn("Done.")]


class CountingProvider(ScriptedProvider):
    """A scripted provider that remembers every request it answered."""

    def __init__(
        self,
        attempts: list[list[AssistantTurn]],
        roles: dict[str, dict[int, AssistantTurn]] | None = None,
    ) -> None:
        super().__init__(attempts, "test script", roles)
        self.requests: list[Any] = []

    def complete(self, request, on_text):  # type: ignore[override]
        self.requests.append(request)
        return super().complete(request, on_text)

    @property
    def attempts_asked(self) -> list[int]:
        return sorted({request.attempt for request in self.requests})


def ask(question: str, *options: str, recommendation: str = "") -> list[AssistantTurn]:
    """A whole attempt that ends by asking the person through the ``ask_user`` tool."""
    call = {"question": question, "options": list(options), "recommendation": recommendation}
    content = [
        {"type": "text", "text": "I need a decision."},
        {"type": "tool_use", "id": f"toolu_{next(_ids):04d}", "name": "ask_user", "input": call},
    ]
    return [AssistantTurn(content=content, stop_reason="tool_use", usage=Usage(100, 50))]


def role_call(tool: str, call: dict[str, Any], usage: Usage | None = None) -> AssistantTurn:
    """A judge's or verifier's answer: one call of its tool (as a forced tool_choice gives)."""
    content = [{"type": "tool_use", "id": f"toolu_{next(_ids):04d}", "name": tool, "input": call}]
    return AssistantTurn(content=content, stop_reason="tool_use", usage=usage or Usage(100, 50))


def judge_retry(guidance: str, usage: Usage | None = None) -> AssistantTurn:
    return role_call("judge_decision", {"decision": "retry", "guidance": guidance}, usage)


def judge_ask(question: str, *options: str, recommendation: str = "") -> AssistantTurn:
    call = {
        "decision": "ask",
        "question": question,
        "options": list(options),
        "recommendation": recommendation,
    }
    return role_call("judge_decision", call)


def verdict(*gaps: str, usage: Usage | None = None) -> AssistantTurn:
    """The verifier's verdict: insufficient with ``gaps``, sufficient without."""
    call = {"verdict": "insufficient", "gaps": list(gaps)} if gaps else {"verdict": "sufficient"}
    return role_call("verifier_verdict", call, usage)
