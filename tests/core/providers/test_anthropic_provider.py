"""AnthropicProvider through the real ``anthropic`` SDK against the local fake Messages API."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from orch_tui.core.domain.cost import Usage
from orch_tui.core.providers.anthropic import STREAM_RETRY_MARKER, AnthropicProvider
from orch_tui.core.providers.base import ModelError, TurnRequest
from tests.support.fake_anthropic import (
    EDITOR_TOOL_NAME,
    CutStream,
    Error,
    FakeAnthropic,
    Garbled,
    SlowDrip,
    Turn,
    tool_use,
)

REPO = Path(__file__).resolve().parents[3]

SYSTEM = [{"type": "text", "text": "You write code.", "cache_control": {"type": "ephemeral"}}]
TOOLS = [{"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"}]
MESSAGES = [{"role": "user", "content": [{"type": "text", "text": "Build the spec."}]}]


def make_request(model: str = "claude-test") -> TurnRequest:
    return TurnRequest(model=model, system=SYSTEM, tools=TOOLS, messages=MESSAGES, max_tokens=1024)


def provider_for(fake: FakeAnthropic, **kwargs: object) -> AnthropicProvider:
    options: dict[str, object] = {"max_retries": 2, "timeout_s": 5.0, "stream_retries": 2}
    options.update(kwargs)
    return AnthropicProvider(api_key="test-key", base_url=fake.url, **options)  # type: ignore[arg-type]


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as server:
        yield server


def unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_streamed_text_arrives_in_order(fake: FakeAnthropic) -> None:
    words = " ".join(f"word{i}" for i in range(30))
    fake.push(Turn.say(words))
    chunks: list[str] = []

    turn = provider_for(fake).complete(make_request(), chunks.append)

    assert len(chunks) > 1
    assert "".join(chunks) == words
    assert turn.content == [{"type": "text", "text": words}]
    assert turn.stop_reason == "end_turn"
    assert turn.model == "claude-test"


def test_the_http_librarys_errors_are_looked_up_once_not_on_every_request(
    fake: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each request names the transport errors it retries on; the library that is not
    installed (``httpx`` beside ``httpx2``) is not searched for along ``sys.path`` each time."""
    from orch_tui.core.providers import base

    looked_up: list[str] = []
    real_import = base.importlib.import_module

    def counted(name: str, package: str | None = None) -> object:
        if name in ("httpx", "httpx2"):  # the SDK imports its own modules this way too
            looked_up.append(name)
        return real_import(name, package)

    getattr(base.transport_errors, "cache_clear", lambda: None)()
    monkeypatch.setattr(base.importlib, "import_module", counted)
    provider = provider_for(fake)
    for number in range(3):
        fake.push(Turn.say(f"answer {number}"))
        assert provider.complete(make_request(), lambda _: None).content[0]["text"] == (
            f"answer {number}"
        )
    assert sorted(looked_up) == ["httpx", "httpx2"]


def test_tool_use_input_is_assembled_from_partial_json(fake: FakeAnthropic) -> None:
    file_text = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(200))
    fake.push(
        Turn.edits("Creating the module.", [("create", "pkg/mod.py", file_text)]),
    )

    turn = provider_for(fake).complete(make_request(), lambda _: None)

    assert turn.stop_reason == "tool_use"
    text_block, tool_block = turn.content
    assert text_block == {"type": "text", "text": "Creating the module."}
    assert set(tool_block) == {"type", "id", "name", "input"}
    assert tool_block["name"] == "str_replace_based_edit_tool"
    assert tool_block["id"].startswith("toolu_")
    assert tool_block["input"] == {
        "command": "create",
        "path": "pkg/mod.py",
        "file_text": file_text,
    }


def test_usage_includes_cache_fields(fake: FakeAnthropic) -> None:
    usage = {
        "input_tokens": 11,
        "output_tokens": 7,
        "cache_creation_input_tokens": 5,
        "cache_read_input_tokens": 3,
    }
    fake.push(Turn([Turn.text("done")], usage=usage))

    turn = provider_for(fake).complete(make_request(), lambda _: None)

    assert turn.usage == Usage(11, 7, 5, 3)


def test_request_carries_system_tools_messages_and_stream(fake: FakeAnthropic) -> None:
    fake.push(Turn.say("ok"))

    provider_for(fake).complete(make_request(), lambda _: None)

    (sent,) = fake.requests
    assert sent.body["stream"] is True
    assert sent.body["model"] == "claude-test"
    assert sent.body["max_tokens"] == 1024
    assert sent.body["system"] == SYSTEM
    assert sent.body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert sent.body["tools"] == TOOLS
    assert sent.body["messages"] == MESSAGES


def test_two_overloaded_answers_then_success(fake: FakeAnthropic) -> None:
    fake.push(Error.overloaded(), Error.overloaded(), Turn.say("finally"))

    turn = provider_for(fake).complete(make_request(), lambda _: None)

    assert len(fake.requests) == 3
    assert turn.content == [{"type": "text", "text": "finally"}]


def test_rate_limit_then_success(fake: FakeAnthropic) -> None:
    fake.push(Error.rate_limited(), Turn.say("after the wait"))

    turn = provider_for(fake).complete(make_request(), lambda _: None)

    assert len(fake.requests) == 2
    assert turn.content == [{"type": "text", "text": "after the wait"}]


def test_bad_key_is_a_model_error_about_the_key(fake: FakeAnthropic) -> None:
    fake.push(Turn.say("never served"))
    provider = AnthropicProvider(api_key="wrong-key", base_url=fake.url, max_retries=2)

    with pytest.raises(ModelError) as caught:
        provider.complete(make_request(), lambda _: None)

    assert "key" in caught.value.message
    assert "401" in caught.value.message
    assert "ANTHROPIC_API_KEY" in caught.value.hint
    assert len(fake.requests) == 1, "a 401 is not retried"


def test_missing_key_is_a_model_error_with_a_hint(
    fake: FakeAnthropic, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_CONFIG_DIR", str(tmp_path))
    provider = AnthropicProvider(base_url=fake.url, max_retries=0)

    with pytest.raises(ModelError) as caught:
        provider.complete(make_request(), lambda _: None)

    assert "API key" in caught.value.message
    assert "ANTHROPIC_API_KEY" in caught.value.hint
    assert fake.requests == []


def test_key_and_base_url_come_from_the_environment(
    fake: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
    fake.push(Turn.say("from env"))

    turn = AnthropicProvider(max_retries=0).complete(make_request(), lambda _: None)

    assert turn.content == [{"type": "text", "text": "from env"}]


def test_overloaded_after_all_retries_is_a_model_error(fake: FakeAnthropic) -> None:
    fake.push(*[Error.overloaded()] * 3)

    with pytest.raises(ModelError) as caught:
        provider_for(fake, max_retries=2).complete(make_request(), lambda _: None)

    assert "overloaded" in caught.value.message
    assert "529" in caught.value.message
    assert len(fake.requests) == 3


def test_rate_limited_after_all_retries_is_a_model_error(fake: FakeAnthropic) -> None:
    fake.push(*[Error.rate_limited()] * 2)

    with pytest.raises(ModelError) as caught:
        provider_for(fake, max_retries=1).complete(make_request(), lambda _: None)

    assert "rate limited" in caught.value.message
    assert len(fake.requests) == 2


def test_cut_stream_is_retried_as_a_whole_turn(fake: FakeAnthropic) -> None:
    full = "one two three four five six seven eight nine ten"
    fake.push(CutStream(Turn.say(full), after_events=5), Turn.say(full))
    chunks: list[str] = []

    turn = provider_for(fake).complete(make_request(), chunks.append)

    assert len(fake.requests) == 2
    assert turn.content == [{"type": "text", "text": full}]
    streamed = "".join(chunks)
    before, after = streamed.split(STREAM_RETRY_MARKER)
    assert before and full.startswith(before) and before != full
    assert after == full


def test_overloaded_error_event_mid_stream_is_retried(fake: FakeAnthropic) -> None:
    fake.push(CutStream(Turn.say("partial answer"), 4, Error.overloaded()), Turn.say("whole"))

    turn = provider_for(fake).complete(make_request(), lambda _: None)

    assert len(fake.requests) == 2
    assert turn.content == [{"type": "text", "text": "whole"}]


def test_stream_that_keeps_breaking_is_a_model_error(fake: FakeAnthropic) -> None:
    fake.push(*[CutStream(Turn.say("a b c d e f"), after_events=4)] * 2)

    with pytest.raises(ModelError) as caught:
        provider_for(fake, stream_retries=1).complete(make_request(), lambda _: None)

    assert "broke off 2 time(s)" in caught.value.message
    assert len(fake.requests) == 2


# -- responses the SDK cannot read are model errors: retried as a whole turn, then a stop


def delta(index: int, **fields: object) -> str:
    return json.dumps({"type": "content_block_delta", "index": index, "delta": fields})


VIEW = Turn([tool_use(EDITOR_TOOL_NAME, {"command": "view", "path": "a.py"})], "tool_use")
GARBLED = {
    "malformed SSE JSON": Garbled(Turn.say("one two three four"), '{"type": "content_block_', 3),
    "tool input that does not parse": Garbled(
        VIEW, delta(0, type="input_json_delta", partial_json="]]{"), 4
    ),
    "a lone surrogate in the text": Garbled(
        Turn.say("one two three four"), delta(0, type="text_delta", text="\ud800"), 3
    ),
    "a lone surrogate in tool input": Turn(
        [tool_use(EDITOR_TOOL_NAME, {"command": "create", "path": "a\ud800.py", "file_text": ""})],
        "tool_use",
    ),
}


@pytest.mark.parametrize("fault", GARBLED)
def test_an_unreadable_response_is_asked_again(fake: FakeAnthropic, fault: str) -> None:
    fake.push(GARBLED[fault], Turn.say("whole"))

    turn = provider_for(fake).complete(make_request(), lambda _: None)

    assert len(fake.requests) == 2
    assert turn.content == [{"type": "text", "text": "whole"}]


@pytest.mark.parametrize("fault", GARBLED)
def test_a_response_unreadable_every_time_is_a_model_error(fake: FakeAnthropic, fault: str):
    fake.push(GARBLED[fault], GARBLED[fault])
    chunks: list[str] = []

    with pytest.raises(ModelError) as caught:
        provider_for(fake, stream_retries=1).complete(make_request(), chunks.append)

    assert caught.value.message.startswith("the response could not be read 2 time(s) in a row: ")
    assert "resumes" in caught.value.hint
    assert len(fake.requests) == 2
    assert all(chunk.encode("utf-8") for chunk in chunks)


def test_a_slow_drip_stops_at_the_total_deadline(fake: FakeAnthropic) -> None:
    """A ping every 0.2 s keeps each read under the timeout; the whole request must not be."""
    fake.push(SlowDrip(pings=300, interval_s=0.2))

    with pytest.raises(ModelError) as caught:
        provider_for(fake, timeout_s=1.0).complete(make_request(), lambda _: None)

    assert caught.value.message == f"the request to {fake.url} timed out after 1 s"
    assert "model.timeout_seconds" in caught.value.hint
    assert len(fake.requests) == 1 and fake.drips_finished == 0


def test_unreachable_server_is_a_model_error(fake: FakeAnthropic) -> None:
    url = f"http://127.0.0.1:{unused_port()}"
    provider = AnthropicProvider(api_key="test-key", base_url=url, max_retries=0)

    with pytest.raises(ModelError) as caught:
        provider.complete(make_request(), lambda _: None)

    assert caught.value.message.startswith(f"cannot reach {url}")


def test_server_that_never_answers_is_a_timeout_error() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        provider = AnthropicProvider(api_key="test-key", base_url=url, max_retries=0, timeout_s=0.3)

        with pytest.raises(ModelError) as caught:
            provider.complete(make_request(), lambda _: None)

    assert "timed out" in caught.value.message
    assert url in caught.value.message


def test_refusal_is_a_model_error(fake: FakeAnthropic) -> None:
    fake.push(Turn([Turn.text("I can't help with that.")], stop_reason="refusal"))

    with pytest.raises(ModelError) as caught:
        provider_for(fake).complete(make_request(), lambda _: None)

    assert "declined" in caught.value.message


def test_empty_response_is_a_model_error(fake: FakeAnthropic) -> None:
    fake.push(Turn([]))

    with pytest.raises(ModelError) as caught:
        provider_for(fake).complete(make_request(), lambda _: None)

    assert "empty response" in caught.value.message


def test_max_tokens_is_returned_not_raised(fake: FakeAnthropic) -> None:
    fake.push(Turn([Turn.text("cut short")], stop_reason="max_tokens"))

    turn = provider_for(fake).complete(make_request(), lambda _: None)

    assert turn.stop_reason == "max_tokens"
    assert turn.content == [{"type": "text", "text": "cut short"}]


def test_unknown_model_error_names_the_model(fake: FakeAnthropic) -> None:
    fake.push(Error(404, "not_found_error", "model: claude-nope"))

    with pytest.raises(ModelError) as caught:
        provider_for(fake).complete(make_request("claude-nope"), lambda _: None)

    assert "'claude-nope'" in caught.value.message
    assert "not found" in caught.value.message


def test_invalid_request_includes_the_api_message(fake: FakeAnthropic) -> None:
    message = "messages: text content blocks must be non-empty"
    fake.push(Error(400, "invalid_request_error", message))

    with pytest.raises(ModelError) as caught:
        provider_for(fake).complete(make_request(), lambda _: None)

    assert message in caught.value.message
    assert len(fake.requests) == 1


def test_forbidden_is_a_model_error(fake: FakeAnthropic) -> None:
    fake.push(Error(403, "permission_error", "Your API key does not have permission"))

    with pytest.raises(ModelError) as caught:
        provider_for(fake).complete(make_request(), lambda _: None)

    assert "403" in caught.value.message
    assert "does not have permission" in caught.value.message


def test_exhausted_script_shows_in_the_error(fake: FakeAnthropic) -> None:
    with pytest.raises(ModelError) as caught:
        provider_for(fake).complete(make_request(), lambda _: None)

    assert "script exhausted" in caught.value.message
    assert len(fake.requests) == 1


def test_importing_the_provider_does_not_import_the_sdk() -> None:
    code = "import orch_tui.core.providers.anthropic, sys; print('anthropic' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )

    assert result.stdout.strip() == "False"


def test_content_blocks_are_plain_json(fake: FakeAnthropic) -> None:
    fake.push(Turn.edits("", [("str_replace", "a.py", "x = 1", "x = 2")]))

    turn = provider_for(fake).complete(make_request(), lambda _: None)

    assert json.loads(json.dumps(turn.to_json()))["content"] == turn.content
    assert turn.content[0]["input"] == {
        "command": "str_replace",
        "path": "a.py",
        "old_str": "x = 1",
        "new_str": "x = 2",
    }
