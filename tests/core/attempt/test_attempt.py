"""One attempt's tool-use conversation, driven against a staging overlay."""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.attempt.conversation import (
    CONTINUE_PROMPT,
    AttemptCallbacks,
    AttemptSetup,
    run_attempt,
    with_cache_breakpoints,
)
from orch_tui.core.providers.base import AssistantTurn
from orch_tui.core.workspace.boundary import SafetyViolation
from orch_tui.core.workspace.staging import Staging
from tests.support.scripting import CountingProvider, create, turn


def setup(max_turns: int = 10) -> AttemptSetup:
    return AttemptSetup(
        model="m", system=[], prompt="build it", max_tokens=100, max_turns=max_turns, attempt=0
    )


def test_edits_land_in_staging_and_become_the_proposal(tmp_path: Path) -> None:
    provider = CountingProvider([[turn("x", create("a.py", "a = 1\n")), turn("done")]])
    result = run_attempt(provider, setup(), Staging(tmp_path))
    assert [change.path for change in result.proposal.changes] == ["a.py"]
    assert not (tmp_path / "a.py").exists()
    tool_result = provider.requests[1].messages[-1]["content"][0]
    assert tool_result["type"] == "tool_result" and "is_error" not in tool_result
    assert not result.turn_limit_hit


def test_the_number_of_turns_is_bounded(tmp_path: Path) -> None:
    endless = [turn(f"edit {n}", create(f"f{n}.py", "x\n")) for n in range(10)]
    provider = CountingProvider([endless])
    result = run_attempt(provider, setup(max_turns=3), Staging(tmp_path))
    assert len(provider.requests) == 3 and result.turn_limit_hit
    assert len(result.proposal.changes) == 3


def test_a_response_cut_by_max_tokens_is_asked_to_continue(tmp_path: Path) -> None:
    cut = AssistantTurn(content=[{"type": "text", "text": "half"}], stop_reason="max_tokens")
    provider = CountingProvider([[cut, turn("rest", create("a.py", "x\n")), turn("done")]])
    run_attempt(provider, setup(), Staging(tmp_path))
    continued = provider.requests[1].messages[-1]
    assert continued["role"] == "user" and continued["content"][0]["text"] == CONTINUE_PROMPT


def test_an_unknown_tool_goes_back_as_an_error(tmp_path: Path) -> None:
    bogus = AssistantTurn(
        content=[
            {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "rm -rf /"}}
        ],
        stop_reason="tool_use",
    )
    provider = CountingProvider([[bogus, turn("sorry")]])
    run_attempt(provider, setup(), Staging(tmp_path))
    result = provider.requests[1].messages[-1]["content"][0]
    assert result["is_error"] is True and "unknown tool 'bash'" in result["content"]


def test_a_path_outside_the_workspace_raises(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    provider = CountingProvider([[turn("x", create("/etc/passwd", "x\n")), turn("done")]])
    with pytest.raises(SafetyViolation):
        run_attempt(provider, setup(), Staging(workspace))


def breakpoints(messages: list[dict]) -> list[int]:
    """Indexes of the messages whose last block carries a cache breakpoint."""
    return [
        i
        for i, message in enumerate(messages)
        if isinstance(message["content"], list) and "cache_control" in message["content"][-1]
    ]


def test_cache_breakpoints_move_with_the_conversation(tmp_path: Path) -> None:
    edits = [turn("one", create("a.py", "a\n")), turn("two", create("b.py", "b\n"))]
    provider = CountingProvider([[*edits, turn("done")]])

    logged: list[list[dict]] = []
    callbacks = AttemptCallbacks(on_messages=lambda messages, turns: logged.append(messages))
    run_attempt(provider, setup(), Staging(tmp_path), callbacks)

    marked = [breakpoints(request.messages) for request in provider.requests]
    assert marked == [[0], [0, 2], [2, 4]]
    assert breakpoints(logged[-1]) == []  # the logged conversation carries none


def test_a_string_message_gets_its_breakpoint_as_a_text_block() -> None:
    messages = [{"role": "user", "content": "hi"}]

    assert with_cache_breakpoints(messages, 0) == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}],
        }
    ]
    assert messages == [{"role": "user", "content": "hi"}]
