"""The OpenAI-compatible provider against a local Chat Completions server, through the real SDK."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from orch_tui.core.domain.tools import EDITOR_TOOL as TOOL_DEFINITION
from orch_tui.core.providers.base import ModelError, TurnRequest
from orch_tui.core.providers.openai import EDITOR_FUNCTION_PARAMETERS, OpenAIProvider
from tests.support.fake_anthropic import SlowDrip
from tests.support.fake_openai import Error, FakeOpenAI, Garbled, Reply

ASK_USER = {
    "name": "ask_user",
    "description": "Ask the person a question.",
    "input_schema": {"type": "object", "properties": {"question": {"type": "string"}}},
}


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def provider(fake: FakeOpenAI, key: str = "test-key") -> OpenAIProvider:
    return OpenAIProvider(api_key=key, base_url=fake.url, max_retries=0, timeout_s=10)


def request(messages: list[dict[str, Any]] | None = None, tools: list[Any] | None = None):
    return TurnRequest(
        model="gpt-4.1",
        system=[
            {"type": "text", "text": "You write code.", "cache_control": {"type": "ephemeral"}}
        ],
        tools=[dict(TOOL_DEFINITION)] if tools is None else tools,
        messages=messages or [{"role": "user", "content": "Write hello.py"}],
        max_tokens=1000,
    )


def test_streamed_text_and_tool_calls_become_content_blocks(fake: FakeOpenAI) -> None:
    edit = {"command": "create", "path": "hello.py", "file_text": "print('hi')\n"}
    fake._items.append(Reply.edits("I will create the file now.", [edit]))
    streamed: list[str] = []
    turn = provider(fake).complete(request(), streamed.append)
    assert "".join(streamed) == "I will create the file now."
    assert turn.stop_reason == "tool_use"
    assert turn.content[0] == {"type": "text", "text": "I will create the file now."}
    tool_use = turn.content[1]
    assert tool_use["type"] == "tool_use" and tool_use["name"] == "str_replace_based_edit_tool"
    assert tool_use["input"] == edit and tool_use["id"]


def test_usage_comes_from_the_stream_with_cached_tokens_split_out(fake: FakeOpenAI) -> None:
    fake._items.append(Reply("Done.", prompt_tokens=500, completion_tokens=40, cached_tokens=300))
    turn = provider(fake).complete(request(), lambda text: None)
    assert turn.stop_reason == "end_turn"
    assert fake.requests[0].body["stream_options"] == {"include_usage": True}
    assert (turn.usage.input_tokens, turn.usage.cache_read_input_tokens) == (200, 300)
    assert turn.usage.output_tokens == 40


def test_tools_are_translated_editor_to_a_function_others_pass_through(fake: FakeOpenAI) -> None:
    fake._items.append(Reply("ok"))
    provider(fake).complete(request(tools=[dict(TOOL_DEFINITION), ASK_USER]), lambda text: None)
    tools = fake.requests[0].body["tools"]
    assert [t["function"]["name"] for t in tools] == ["str_replace_based_edit_tool", "ask_user"]
    assert tools[0]["function"]["parameters"] == EDITOR_FUNCTION_PARAMETERS
    assert set(EDITOR_FUNCTION_PARAMETERS["properties"]) == {
        "command",
        "path",
        "file_text",
        "old_str",
        "new_str",
        "insert_line",
        "insert_text",
        "view_range",
    }
    assert tools[1]["function"]["parameters"] == ASK_USER["input_schema"]
    assert tools[1]["function"]["description"] == "Ask the person a question."


def test_a_tool_round_trip_is_sent_as_tool_calls_and_tool_messages(fake: FakeOpenAI) -> None:
    fake._items.append(Reply("Done."))
    messages = [
        {"role": "user", "content": "Write hello.py"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Creating it."},
                {
                    "type": "tool_use",
                    "id": "call_1",
                    "name": "str_replace_based_edit_tool",
                    "input": {"command": "view", "path": "."},
                },
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "call_1",
                    "content": "Error: no",
                    "is_error": True,
                }
            ],
        },
    ]
    provider(fake).complete(request(messages), lambda text: None)
    sent = fake.requests[0].body["messages"]
    assert sent[0] == {"role": "system", "content": "You write code."}
    assert sent[1] == {"role": "user", "content": "Write hello.py"}
    assert sent[2]["role"] == "assistant" and sent[2]["content"] == "Creating it."
    call = sent[2]["tool_calls"][0]
    assert call["id"] == "call_1" and call["function"]["name"] == "str_replace_based_edit_tool"
    assert sent[3] == {"role": "tool", "tool_call_id": "call_1", "content": "Error: no"}
    assert len(sent) == 4


def test_length_finish_maps_to_max_tokens(fake: FakeOpenAI) -> None:
    fake._items.append(Reply("partial", finish_reason="length"))
    assert provider(fake).complete(request(), lambda text: None).stop_reason == "max_tokens"


@pytest.mark.parametrize(
    ("error", "wanted"),
    [
        (Error(401, "Incorrect API key provided"), "API key was rejected (401)"),
        (Error(429, "Rate limit reached", "rate_limit_exceeded"), "rate limited by the API (429)"),
        (Error(500, "boom", "server_error"), "the API failed (500)"),
        (Error(503, "overloaded", "server_error"), "the API failed (503)"),
        (Error(404, "model 'nope' not found"), "was not found (404)"),
        (
            Error(400, "registry.ollama.ai/library/gemma:2b does not support tools"),
            "does not support tool calls (400)",
        ),
    ],
)
def test_errors_become_model_errors_a_person_can_act_on(
    fake: FakeOpenAI, error: Error, wanted: str
) -> None:
    fake._items.append(error)
    with pytest.raises(ModelError) as caught:
        provider(fake).complete(request(), lambda text: None)
    assert wanted in str(caught.value)
    assert error.message in str(caught.value)


def test_a_wrong_key_is_rejected_with_the_key_to_check(fake: FakeOpenAI) -> None:
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        provider(fake, key="wrong").complete(request(), lambda text: None)


def test_connection_refused_names_the_url_and_the_setting() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    refused = OpenAIProvider(api_key="k", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
    with pytest.raises(ModelError) as caught:
        refused.complete(request(), lambda text: None)
    assert str(caught.value) == (
        f"cannot reach http://127.0.0.1:{port}/v1: connection refused (check that the server "
        "is running and that OPENAI_BASE_URL or model.base_url names it)"
    )


UNREADABLE = {
    "malformed SSE JSON": Garbled(Reply("one two three"), '{"choices": [', 2),
    "a lone surrogate in the text": Reply("one \ud800 two"),
    "a lone surrogate in tool input": Reply.edits("", [{"command": "view", "path": "a\ud800"}]),
}


@pytest.mark.parametrize("fault", UNREADABLE)
def test_an_unreadable_response_is_a_model_error(fake: FakeOpenAI, fault: str) -> None:
    fake._items.append(UNREADABLE[fault])
    with pytest.raises(ModelError) as caught:
        provider(fake).complete(request(), lambda text: text.encode("utf-8"))
    assert caught.value.message.startswith(f"the response from {fake.url} could not be read: ")
    assert "resumes" in caught.value.hint


def test_a_slow_drip_stops_at_the_total_deadline(fake: FakeOpenAI) -> None:
    """An SSE comment every 0.2 s keeps each read under the timeout; the whole request must not."""
    fake._items.append(SlowDrip(pings=300, interval_s=0.2))
    slow = OpenAIProvider(api_key="test-key", base_url=fake.url, max_retries=0, timeout_s=1)
    with pytest.raises(ModelError) as caught:
        slow.complete(request(), lambda text: None)
    assert caught.value.message == f"the request to {fake.url} timed out after 1 s"
    assert len(fake.requests) == 1 and fake.drips_finished == 0
