"""The fake Messages API server: wire format, prompt-cache simulation and script-file mode."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import anthropic
import pytest

from tests.support import fake_anthropic as faults
from tests.support.fake_anthropic import (
    CACHE_LOOKBACK_BLOCKS,
    CutStream,
    Error,
    FakeAnthropic,
    Turn,
    _PromptCache,
    item_from_json,
    write_script,
)

REPO = Path(__file__).resolve().parents[2]
CACHED_SYSTEM = [{"type": "text", "text": "x" * 400, "cache_control": {"type": "ephemeral"}}]


def post(url: str, body: dict[str, Any], key: str = "test-key") -> urllib.request.Request:
    return urllib.request.Request(
        f"{url}/v1/messages",
        data=json.dumps(body).encode(),
        headers={"x-api-key": key, "content-type": "application/json"},
        method="POST",
    )


def sse_events(raw: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for record in raw.strip().split("\n\n"):
        name, data = record.split("\n")
        events.append((name.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return events


def test_stream_sends_events_in_the_api_order() -> None:
    tool_input = {"command": "create", "path": "a.py", "file_text": "print('hi')\n" * 20}
    turn = Turn(
        [Turn.text("Writing it."), Turn.tool_use("str_replace_based_edit_tool", tool_input)]
    )
    body = {"model": "m", "max_tokens": 10, "stream": True, "messages": []}
    with FakeAnthropic([Turn(turn.content, "tool_use")]) as fake:
        with urllib.request.urlopen(post(fake.url, body)) as response:
            content_type = response.headers["content-type"]
            events = sse_events(response.read().decode())

    assert content_type.startswith("text/event-stream")
    names = [name for name, _ in events]
    assert names[:3] == ["message_start", "ping", "content_block_start"]
    assert names[-2:] == ["message_delta", "message_stop"]
    assert all(name == data["type"] for name, data in events)
    start_usage = events[0][1]["message"]["usage"]
    assert {"cache_creation_input_tokens", "cache_read_input_tokens"} <= set(start_usage)
    partial = [
        d["delta"]["partial_json"] for n, d in events if d.get("index") == 1 and "delta" in d
    ]
    assert len(partial) >= 3
    assert json.loads("".join(partial)) == tool_input
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"


def test_a_garbled_stream_slips_its_raw_event_in_and_goes_on() -> None:
    body = {"model": "m", "max_tokens": 10, "stream": True, "messages": []}
    with FakeAnthropic([faults.Garbled(Turn.say("hello"), "{not json", after_events=2)]) as fake:
        with urllib.request.urlopen(post(fake.url, body)) as response:
            records = response.read().decode().strip().split("\n\n")

    assert records[2] == "event: content_block_delta\ndata: {not json"
    names = [name for name, _ in sse_events("\n\n".join(records[:2] + records[3:]))]
    assert names[:2] == ["message_start", "ping"] and names[-1] == "message_stop"


def test_a_slow_drip_pings_then_ends_without_a_message() -> None:
    body = {"model": "m", "max_tokens": 10, "stream": True, "messages": []}
    with FakeAnthropic([faults.SlowDrip(pings=3, interval_s=0.01)]) as fake:
        with urllib.request.urlopen(post(fake.url, body)) as response:
            events = sse_events(response.read().decode())
        finished = fake.drips_finished

    assert [name for name, _ in events] == ["message_start", "ping", "ping", "ping"]
    assert finished == 1


def test_prompt_cache_is_written_then_read() -> None:
    with FakeAnthropic([Turn.say("one"), Turn.say("two")]) as fake:
        client = anthropic.Anthropic(api_key="test-key", base_url=fake.url, max_retries=0)
        params: dict[str, Any] = {
            "model": "m",
            "max_tokens": 10,
            "system": CACHED_SYSTEM,
            "messages": [{"role": "user", "content": "hi"}],
        }
        first = client.messages.create(**params)
        second = client.messages.create(**params)

    assert first.content[0].type == "text" and first.content[0].text == "one"
    assert first.usage.cache_creation_input_tokens > 0
    assert first.usage.cache_read_input_tokens == 0
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert second.usage.cache_creation_input_tokens == 0


def user_blocks(count: int, *, breakpoint: bool) -> list[dict[str, Any]]:
    """One user message per block, ``count`` of them; a breakpoint on the last one if asked."""
    messages = [
        {"role": "user", "content": [{"type": "text", "text": f"block {i} " * 20}]}
        for i in range(count)
    ]
    if breakpoint:
        messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return messages


def test_a_moved_breakpoint_reads_the_prefix_an_earlier_breakpoint_cached() -> None:
    cache = _PromptCache()
    first = user_blocks(3, breakpoint=True)
    written = cache.usage({"system": CACHED_SYSTEM, "messages": first})
    later = user_blocks(3 + CACHE_LOOKBACK_BLOCKS, breakpoint=True)

    usage = cache.usage({"system": CACHED_SYSTEM, "messages": later})

    assert written["cache_read_input_tokens"] == 0
    cached = written["cache_creation_input_tokens"]
    assert usage["cache_read_input_tokens"] == cached
    assert usage["cache_creation_input_tokens"] > 0 and usage["input_tokens"] == 1


def test_a_cached_prefix_further_than_the_lookback_before_a_breakpoint_is_not_read() -> None:
    cache = _PromptCache()
    cache.usage({"messages": user_blocks(3, breakpoint=True)})
    later = user_blocks(3 + CACHE_LOOKBACK_BLOCKS + 1, breakpoint=True)

    usage = cache.usage({"messages": later})

    assert usage["cache_read_input_tokens"] == 0


def test_a_request_without_breakpoints_neither_reads_nor_writes() -> None:
    cache = _PromptCache()
    cache.usage({"messages": user_blocks(2, breakpoint=True)})

    usage = cache.usage({"messages": user_blocks(2, breakpoint=False)})

    assert usage["cache_read_input_tokens"] == usage["cache_creation_input_tokens"] == 0


def test_more_than_four_breakpoints_are_refused_as_the_api_does() -> None:
    body = {"model": "m", "max_tokens": 10, "messages": user_blocks(5, breakpoint=False)}
    for message in body["messages"]:
        message["content"][-1]["cache_control"] = {"type": "ephemeral"}
    with FakeAnthropic([Turn.say("kept")]) as fake:
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(post(fake.url, body))
        remaining = fake.remaining

    assert caught.value.code == 400 and remaining == 1
    assert (
        "maximum of 4 blocks with cache_control"
        in json.loads(caught.value.read())["error"]["message"]
    )


def test_wrong_key_gets_401_without_using_the_script() -> None:
    with FakeAnthropic([Turn.say("kept")]) as fake:
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(post(fake.url, {"messages": []}, key="nope"))
        error_body = json.loads(caught.value.read())
        remaining = fake.remaining

    assert caught.value.code == 401
    assert error_body["error"]["type"] == "authentication_error"
    assert remaining == 1


def test_errors_carry_quick_retry_headers() -> None:
    with FakeAnthropic([Error.overloaded()]) as fake:
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(post(fake.url, {"messages": []}))

    assert caught.value.code == 529
    assert caught.value.headers["retry-after-ms"] == "10"
    assert json.loads(caught.value.read())["error"]["type"] == "overloaded_error"


def test_callable_script_sees_the_request_body() -> None:
    def answer(body: dict[str, Any]) -> Turn:
        return Turn.say(f"you said {body['messages'][0]['content']}")

    with FakeAnthropic(answer) as fake:
        client = anthropic.Anthropic(api_key="test-key", base_url=fake.url, max_retries=0)
        reply = client.messages.create(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "ping"}]
        )

    assert reply.content[0].type == "text" and reply.content[0].text == "you said ping"


def test_script_items_round_trip_through_json(tmp_path: Path) -> None:
    items = [
        Turn.edits("go", [("create", "a.py", "x\n"), ("insert", "a.py", 1, "y\n")]),
        Error.rate_limited(),
        CutStream(Turn.say("half"), 4, Error.overloaded()),
    ]
    path = tmp_path / "script.json"
    write_script(path, items)

    assert [item_from_json(d) for d in json.loads(path.read_text())] == items


def test_script_file_mode_serves_until_killed(tmp_path: Path) -> None:
    script, port_file = tmp_path / "script.json", tmp_path / "port"
    write_script(script, [Turn.say("served from a file")])
    command = [sys.executable, "-m", "tests.support.fake_anthropic", "--script", str(script)]
    server = subprocess.Popen(
        [*command, "--port-file", str(port_file)], cwd=REPO, stdout=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while not port_file.exists() and server.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        url = f"http://127.0.0.1:{port_file.read_text()}"
        client = anthropic.Anthropic(api_key="test-key", base_url=url, max_retries=0)
        with client.messages.stream(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            text = "".join(stream.text_stream)
    finally:
        server.terminate()
        server.wait(timeout=10)

    assert text == "served from a file"
