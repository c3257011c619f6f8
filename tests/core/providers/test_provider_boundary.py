"""What a provider takes from a server it cannot trust, through the real SDKs against the local
fakes: impossible usage figures, a long ``retry-after``, a 200 that is no stream, a flood.

Each case runs for the Anthropic and the OpenAI provider alike.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from orch_tui.core.providers.anthropic import AnthropicProvider
from orch_tui.core.providers.base import AssistantTurn, Deadline, ModelError, TurnRequest
from orch_tui.core.providers.openai import OpenAIProvider
from tests.support import fake_anthropic as fa
from tests.support import fake_openai as fo

MESSAGES = [{"role": "user", "content": [{"type": "text", "text": "Build the spec."}]}]
REQUEST = TurnRequest(model="m", system=[], tools=[], messages=MESSAGES, max_tokens=1024)


@dataclass
class Side:
    """One provider and its fake server, with script items built alike for both."""

    name: str
    server: Any
    make: Callable[..., Any]

    def push(self, *items: Any) -> None:
        self.server._items.extend(items)

    def provider(self, **options: Any) -> Any:
        settings: dict[str, Any] = {"max_retries": 2, "timeout_s": 10.0, **options}
        if self.name == "anthropic":
            settings.setdefault("stream_retries", 0)
            return AnthropicProvider(api_key="test-key", base_url=self.server.url, **settings)
        return OpenAIProvider(api_key="test-key", base_url=self.server.url, **settings)

    def turn_with_usage(self, **figures: Any) -> Any:
        if self.name == "anthropic":
            return fa.Turn([fa.text("hello")], usage=figures)
        return fo.Reply("hello", usage_override=figures)

    def rate_limited(self, retry_after: str) -> Any:
        if self.name == "anthropic":
            return fa.Error(429, "rate_limit_error", "slow down", {"retry-after": retry_after})
        return fo.Error(429, "slow down", "rate_limit_exceeded", {"retry-after": retry_after})

    def flood(self, chars: int, tool: bool = False) -> fa.Flood:
        """The openai SDK builds a model object per chunk (about 1 ms each, linear): bigger pieces
        keep its floods quick; the anthropic side uses small ones."""
        return fa.Flood(chars, piece=64 if self.name == "anthropic" else 256, tool=tool)

    def ok(self) -> Any:
        return fa.Turn.say("fine") if self.name == "anthropic" else fo.Reply("fine")


@pytest.fixture(params=["anthropic", "openai"])
def side(request: pytest.FixtureRequest) -> Iterator[Side]:
    if request.param == "anthropic":
        with fa.FakeAnthropic() as server:
            yield Side("anthropic", server, fa)
    else:
        with fo.FakeOpenAI() as server:
            yield Side("openai", server, fo)


def complete_within(provider: Any, seconds: float) -> tuple[AssistantTurn | Exception, list[str]]:
    """Run one request on a thread; fail the test if it has not ended after ``seconds``."""
    shown: list[str] = []
    outcome: list[AssistantTurn | Exception] = []

    def run() -> None:
        try:
            outcome.append(provider.complete(REQUEST, shown.append))
        except Exception as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"the request was still running after {seconds} s"
    return outcome[0], shown


# --- item 11: usage figures ----------------------------------------------------------------

BAD_FIGURES = {
    "negative": -5,
    "float": 1.5,
    "NaN string": "NaN",
    "huge": 10**15,
    "string": "lots",
}


@pytest.mark.parametrize("figure", BAD_FIGURES)
def test_an_impossible_usage_figure_is_a_model_error(side: Side, figure: str) -> None:
    side.push(side.turn_with_usage(output_tokens=BAD_FIGURES[figure]))

    with pytest.raises(ModelError) as caught:
        side.provider().complete(REQUEST, lambda _: None)

    assert "impossible usage figure" in caught.value.message
    assert "output_tokens" in caught.value.message
    assert "nothing was recorded" in caught.value.message


def test_plausible_usage_figures_pass(side: Side) -> None:
    side.push(side.turn_with_usage(output_tokens=77))

    turn = side.provider().complete(REQUEST, lambda _: None)

    assert turn.usage.output_tokens == 77


# --- item 15: retry-after ------------------------------------------------------------------


def test_a_retry_after_past_the_deadline_fails_at_once_and_says_why(side: Side) -> None:
    """The anthropic SDK honours any ``retry-after`` (up to 49 days); the openai SDK up to 120 s."""
    asked = "100000" if side.name == "anthropic" else "100"
    side.push(side.rate_limited(asked), side.ok())

    outcome, _ = complete_within(side.provider(timeout_s=5.0), seconds=15)

    assert isinstance(outcome, ModelError), outcome
    assert "429" in outcome.message
    assert f"asked to wait {int(asked):,} s" in outcome.message
    assert "model.timeout_seconds (5 s)" in outcome.message
    assert len(side.server.requests) == 1


def test_a_retry_wait_within_the_deadline_is_shown_then_taken(side: Side) -> None:
    side.push(side.rate_limited("1"), side.ok())

    outcome, shown = complete_within(side.provider(timeout_s=20.0), seconds=20)

    assert isinstance(outcome, AssistantTurn), outcome
    assert "[the API answered 429: retrying in 1 s]" in "".join(shown)
    assert len(side.server.requests) == 2


# --- item 16: a 200 that is no stream ------------------------------------------------------

NOT_STREAMS = {
    "an HTML page": (b"<html><body>Welcome to the proxy</body></html>", "text/html"),
    "an empty body": (b"", ""),
    "plain JSON": (b'{"id": "x", "content": []}', "application/json"),
}


@pytest.mark.parametrize("kind", NOT_STREAMS)
def test_a_200_that_is_not_a_stream_is_a_clear_model_error(side: Side, kind: str) -> None:
    body, content_type = NOT_STREAMS[kind]
    side.push(fa.NotAStream(body, content_type))

    with pytest.raises(ModelError) as caught:
        side.provider().complete(REQUEST, lambda _: None)

    assert "instead of an event stream" in caught.value.message
    assert (content_type or "no content type") in caught.value.message
    if body:
        assert body.decode()[:20] in caught.value.message
    assert "base URL" in caught.value.hint


# --- item 17: a flood ----------------------------------------------------------------------


@pytest.mark.parametrize("tool", [False, True], ids=["text", "tool input"])
def test_a_flood_past_the_turn_cap_is_stopped_while_streaming(side: Side, tool: bool) -> None:
    side.push(side.flood(2_000_000, tool=tool))
    started = time.monotonic()

    outcome, shown = complete_within(side.provider(max_turn_chars=500_000), seconds=60)

    assert isinstance(outcome, ModelError), outcome
    assert "passed 500,000 characters" in outcome.message
    assert sum(map(len, shown)) <= 500_000
    assert time.monotonic() - started < 30


def test_a_large_answer_under_the_cap_takes_linear_time(side: Side) -> None:
    """1.5 MB of tool input in small deltas: quadratic assembly (the anthropic SDK's partial
    JSON parse of the whole call so far at every delta, ``+=`` per delta) takes minutes."""
    side.push(side.flood(1_500_160, tool=True))

    provider = side.provider(timeout_s=120.0, max_turn_chars=2_000_000)
    outcome, _ = complete_within(provider, seconds=90)

    assert isinstance(outcome, AssistantTurn), outcome
    (call,) = [b for b in outcome.content if b["type"] == "tool_use"]
    assert len(call["input"]["file_text"]) == 1_500_160


def test_a_fast_flood_is_cut_at_the_total_deadline(side: Side) -> None:
    """Data that keeps arriving never lets a read time out: the deadline must still cut it."""
    side.push(side.flood(900_000_000))

    outcome, _ = complete_within(side.provider(timeout_s=3.0, max_turn_chars=10**9), seconds=30)

    assert isinstance(outcome, ModelError), outcome
    assert "timed out after 3 s" in outcome.message


# --- item 6: a key echoed back --------------------------------------------------------------

ECHOING_KEY = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"


def test_a_key_echoed_by_a_401_is_redacted(side: Side) -> None:
    side.server.valid_keys = None
    provider_key = "key-of-this-provider-1234"
    if side.name == "anthropic":
        provider = AnthropicProvider(api_key=provider_key, base_url=side.server.url, max_retries=0)
    else:
        provider = OpenAIProvider(api_key=provider_key, base_url=side.server.url, max_retries=0)
    side.server._items[:] = [
        fa.Error(401, "authentication_error", f"invalid x-api-key: {provider_key} / {ECHOING_KEY}")
        if side.name == "anthropic"
        else fo.Error(401, f"Incorrect API key: {provider_key} / {ECHOING_KEY}", "invalid_api_key")
    ]

    with pytest.raises(ModelError) as caught:
        provider.complete(REQUEST, lambda _: None)

    shown = str(caught.value)
    assert "401" in shown
    assert provider_key not in shown and ECHOING_KEY not in shown
    assert shown.count("[redacted]") == 2


# --- issue 22, item 21: a deadline cut is said as a deadline ----------------------------------


def test_a_read_cut_at_the_deadline_is_a_timeout_not_a_broken_stream(
    side: Side, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where no socket can be watched (a transport without one), the SDK's per-read timeout
    is what ends a stalled stream, at the total deadline: that is the time being up, and was
    reported as a stream that "broke off"."""
    monkeypatch.setattr(Deadline, "watch", lambda self, response: None)
    side.push(fa.SlowDrip(pings=2, interval_s=4.0))

    outcome, _ = complete_within(side.provider(timeout_s=1.0), seconds=30)

    assert isinstance(outcome, ModelError), outcome
    assert "timed out after 1 s" in outcome.message, outcome.message
    assert "broke off" not in outcome.message
