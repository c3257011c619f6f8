"""The Anthropic provider: one streamed Messages API request per assistant turn.

The ``anthropic`` SDK is imported only once this provider is chosen: importing it costs
about a second, which ``orch-tui --help`` and the scripted provider must not pay. The
import starts on a background thread as the provider is made, so it overlaps what runs
before the first request (state, lock, the TUI's first paint). The SDK retries rate limits, overloads,
server errors and connection failures before a stream starts (``max_retries``); a stream
that breaks off part-way, or that the SDK cannot read (malformed JSON, tool input that does
not parse, a lone surrogate), is retried here as a whole turn (``stream_retries``). A request
never runs past ``timeout_s`` in all (:class:`Deadline`). Every failure left over becomes a
:class:`ModelError` a person can act on.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from orch_tui.core.providers.anthropic_stream import AssembledMessage, MessageAssembler
from orch_tui.core.providers.base import (
    RESUME_HINT,
    AssistantTurn,
    Deadline,
    ModelError,
    StatusHints,
    TextSink,
    TurnRequest,
    describe_cause,
    require_event_stream,
    status_error,
    timed_out_error,
    transport_errors,
    unreachable_error,
)
from orch_tui.core.providers.pacing import RetryWaitTooLong, paced, pacing
from orch_tui.core.providers.redact import register_secret
from orch_tui.core.providers.turn_size import MAX_TURN_CHARS, TurnSize

if TYPE_CHECKING:
    import anthropic

STREAM_RETRY_MARKER = "\n[stream interrupted, retrying]\n"
UNREADABLE_ERRORS = (ValueError, LookupError, TypeError, AttributeError)
"""What the SDK raises on a stream it cannot make sense of: malformed SSE JSON
(JSONDecodeError), tool input that does not parse (ValueError), an event of the wrong shape
(pydantic's ValidationError, a missing index or key)."""
_T = TypeVar("_T")
STATUS_HINTS = StatusHints(
    key_name="ANTHROPIC_API_KEY",
    permissions="check the key's workspace and permissions in the Anthropic Console",
)


def _import_sdk() -> None:
    """Import the SDK, quietly: a failure is raised again where a request imports it."""
    try:
        importlib.import_module("anthropic")
    except Exception:  # noqa: BLE001, S110 - reported by the import on the request path
        pass


def import_sdk_in_background() -> None:
    if "anthropic" not in sys.modules:
        threading.Thread(target=_import_sdk, name="import-anthropic", daemon=True).start()


class _StreamInterrupted(Exception):
    """The response stream failed after it had started; the turn may be asked again.

    ``what`` says how, for the error a person sees when every try failed the same way."""

    def __init__(
        self, detail: str, *, text_sent: bool, what: str = "the response stream broke off"
    ) -> None:
        super().__init__(detail)
        self.text_sent = text_sent
        self.what = what


class _DeadlinePassed(Exception):
    """The request ran past ``model.timeout_seconds`` in all."""


UNREADABLE = "the response could not be read"


class AnthropicProvider:
    """Answers a :class:`TurnRequest` through the Messages API, always streaming."""

    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 4,
        timeout_s: float = 600.0,
        stream_retries: int = 2,
        max_turn_chars: int = MAX_TURN_CHARS,
    ) -> None:
        self._api_key = api_key
        register_secret(api_key)
        self._base_url = base_url
        self._max_retries = max_retries
        self._timeout_s = timeout_s
        self._stream_retries = stream_retries
        self._max_turn_chars = max_turn_chars
        self._client: anthropic.Anthropic | None = None
        import_sdk_in_background()

    def complete(self, request: TurnRequest, on_text: TextSink) -> AssistantTurn:
        interruption: _StreamInterrupted | None = None
        self._client_for_requests()  # the SDK's import is not the request's time
        deadline = Deadline(self._timeout_s)
        for attempt in range(self._stream_retries + 1):
            try:
                with pacing(deadline, on_text):
                    message = self._stream_once(request, on_text, deadline)
            except _StreamInterrupted as exc:
                interruption = exc
                if exc.text_sent and attempt < self._stream_retries:
                    on_text(STREAM_RETRY_MARKER)
                continue
            except _DeadlinePassed:
                raise self._timed_out() from None
            except RetryWaitTooLong as exc:
                raise exc.model_error(self._timeout_s) from None
            except ModelError:
                raise
            except Exception as exc:
                error = self._model_error(exc, request.model)
                if error is None:
                    raise
                raise error from None
            return _assistant_turn(message)
        tries = self._stream_retries + 1
        assert interruption is not None  # the loop ran at least once
        deadline.check()
        if deadline.passed:  # the last try ran into the deadline: that is what stopped it
            raise self._timed_out()
        raise ModelError(
            f"{interruption.what} {tries} time(s) in a row: {interruption}",
            "check the network; " + RESUME_HINT,
        )

    def _client_for_requests(self) -> anthropic.Anthropic:
        if self._client is None:
            import anthropic

            self._client = paced(anthropic.Anthropic)(
                api_key=self._api_key,
                base_url=self._base_url,
                max_retries=self._max_retries,
                timeout=self._timeout_s,
            )
        return self._client

    def _stream_once(
        self, request: TurnRequest, on_text: TextSink, deadline: Deadline
    ) -> AssembledMessage:
        """Send one streamed request; SDK errors before the stream starts pass through."""
        import anthropic

        params: dict[str, Any] = {
            "model": request.model,
            "messages": request.messages,
            "max_tokens": request.max_tokens,
            "stream": True,
        }
        if request.system:
            params["system"] = request.system
        if request.tools:
            params["tools"] = request.tools
        if request.tool_choice:
            params["tool_choice"] = request.tool_choice
        mid_stream_errors: tuple[type[Exception], ...] = (anthropic.APIError, *transport_errors())
        assembler = MessageAssembler(TurnSize(self._max_turn_chars), "the Anthropic API")
        text_sent = False

        def read(step: Callable[[], _T]) -> _T:
            """One step of reading the stream; how it failed decides what happens next."""
            try:
                result = step()
            except Exception as exc:
                deadline.check()  # without a socket to watch, the per-read timeout cuts it
                if deadline.passed:
                    raise _DeadlinePassed from exc
                if isinstance(exc, mid_stream_errors):
                    raise _StreamInterrupted(_describe(exc), text_sent=text_sent) from exc
                if isinstance(exc, UNREADABLE_ERRORS):
                    detail = f"{type(exc).__name__}: {exc}"
                    raise _StreamInterrupted(detail, text_sent=text_sent, what=UNREADABLE) from exc
                raise
            deadline.check()
            if deadline.passed:
                raise _DeadlinePassed
            return result

        stream = self._client_for_requests().messages.create(**params)
        with stream:
            require_event_stream(stream.response, self._url())
            deadline.watch(stream.response)
            try:
                events = iter(stream)
                while (event := read(lambda: next(events, None))) is not None:
                    if chunk := read(lambda: assembler.feed(event)):
                        text_sent = True
                        on_text(chunk)
                message = read(assembler.message)
            finally:
                deadline.cancel()
        if message.stop_reason is None:
            raise _StreamInterrupted(
                "the stream ended before the message was complete", text_sent=text_sent
            )
        return message

    def _model_error(self, exc: Exception, model: str) -> ModelError | None:
        """The ModelError a person should see for ``exc``; None for errors that are bugs."""
        import anthropic

        credentials_error = getattr(anthropic, "CredentialsError", ())
        no_auth = isinstance(exc, TypeError) and "authentication" in str(exc)
        if no_auth or isinstance(exc, credentials_error):
            return ModelError(
                "no Anthropic API key is set",
                "set ANTHROPIC_API_KEY, or use --provider scripted to run the bundled demo",
            )
        if isinstance(exc, anthropic.APIStatusError):
            return self._status_error(exc, model)
        return unreachable_error(
            exc,
            anthropic,
            url=self._url(),
            timeout_s=self._timeout_s,
            hint="check the network connection and ANTHROPIC_BASE_URL",
        )

    def _timed_out(self) -> ModelError:
        return timed_out_error(self._url(), self._timeout_s)

    def _status_error(self, exc: anthropic.APIStatusError, model: str) -> ModelError:
        after = _after_retries(exc, self._max_retries)
        return status_error(exc.status_code, _api_message(exc), model, STATUS_HINTS, after)

    def _url(self) -> str:
        return str(self._client_for_requests().base_url).rstrip("/")


def _after_retries(exc: anthropic.APIStatusError, max_retries: int) -> str:
    """How many times the SDK retried the failed request, as the SDK's own header says."""
    taken = exc.response.request.headers.get("x-stainless-retry-count", str(max_retries))
    return f"after {taken} retries" if taken != "0" else "(not retried)"


def _api_message(exc: anthropic.APIStatusError) -> str:
    """The API's own error message from its JSON error body, else the SDK's text."""
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return f"{error.get('type', 'error')}: {error['message']}"
    return str(exc.message)


def _describe(exc: BaseException) -> str:
    """A one-line description of an SDK or transport error, with its root cause."""
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        return _api_message(exc)
    return describe_cause(exc)


def _assistant_turn(message: AssembledMessage) -> AssistantTurn:
    content = [b for b in message.content if not (b.get("type") == "text" and not b.get("text"))]
    stop_reason = str(message.stop_reason)
    if stop_reason == "refusal":
        raise ModelError(
            "the model declined to answer (stop_reason: refusal)",
            "reword the spec or the feedback and run again",
        )
    if not content:
        raise ModelError(
            f"the model sent an empty response (stop_reason: {stop_reason})", RESUME_HINT
        )
    return AssistantTurn(
        content=content, stop_reason=stop_reason, usage=message.usage, model=message.model
    )
