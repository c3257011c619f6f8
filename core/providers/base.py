"""The contract every model provider keeps.

A provider answers one request with one assistant turn. The tool-use
conversation around it (running the editor tool, sending results back,
bounding the number of turns) lives in :mod:`core.attempt`, so the Anthropic
provider and the scripted provider go through exactly the same engine code.
"""

from __future__ import annotations

import functools
import importlib
import re
import threading
import time
from collections.abc import Callable
from dataclasses import field
from types import ModuleType
from typing import Any, Protocol

from orch_tui.core.domain.cost import Usage
from orch_tui.core.util.records import record


@record
class TurnRequest:
    """Everything one Messages API request carries, in the API's own shapes."""

    model: str
    system: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    max_tokens: int
    attempt: int = 0
    """Which attempt of the run this request belongs to (never sent to the API; replay uses it)."""
    tool_choice: dict[str, Any] | None = None
    """Anthropic's ``tool_choice`` (``{"type": "tool", "name": ...}`` forces that tool); None: auto."""
    role: str = ""
    """A judge or verifier request ("judge", "verifier"; never sent); "": the coding model's."""


@record
class AssistantTurn:
    """One complete assistant message: content blocks as API dicts."""

    content: list[dict[str, Any]]
    stop_reason: str
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    cost_usd: float | None = None
    """Dollars the provider itself reported (Claude Code); None: priced from the usage."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "content": self.content,
            "stop_reason": self.stop_reason,
            "usage": self.usage.to_json(),
            "model": self.model,
        }
        if self.cost_usd is not None:
            data["cost_usd"] = self.cost_usd
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AssistantTurn:
        return cls(
            content=list(data["content"]),
            stop_reason=str(data.get("stop_reason") or "end_turn"),
            usage=Usage.from_json(data.get("usage")),
            model=str(data.get("model") or ""),
            cost_usd=data.get("cost_usd"),
        )


class ModelError(Exception):
    """The model could not answer; the message is meant for a person.

    ``hint`` says what the person can do about it (set a key, check the
    network, retry later).
    """

    def __init__(self, message: str, hint: str = "") -> None:
        from orch_tui.core.providers.redact import redact  # its patterns: only when one is raised

        message, hint = redact(message), redact(hint)
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


RESUME_HINT = "run the same command again later; the run resumes where it stopped"


@record(frozen=True)
class StatusHints:
    """What a person checks when a provider's API answers an HTTP error."""

    key_name: str
    """The variable holding the key (checked on a 401)."""

    permissions: str
    """Where the key's permissions are set (a 403)."""

    model: str = "check --model or `model` in orchestrator.toml"
    """How to fix an unknown model id (a 404)."""


def status_error(
    status: int, detail: str, model: str, hints: StatusHints, after: str = ""
) -> ModelError:
    """The ModelError for an HTTP error answer; ``after`` says how often the SDK retried it."""
    retried = f" {after}" if after else ""
    if status == 401:
        return ModelError(
            f"the API key was rejected (401): {detail}", f"check the value of {hints.key_name}"
        )
    if status == 403:
        return ModelError(
            f"the API key is not allowed to do this (403): {detail}", hints.permissions
        )
    if status == 404:
        return ModelError(f"model {model!r} was not found (404): {detail}", hints.model)
    if status == 400:
        return ModelError(f"the API refused the request (400): {detail}")
    if status == 429:
        return ModelError(f"rate limited by the API (429){retried}: {detail}", RESUME_HINT)
    if status == 529:
        return ModelError(f"the API is overloaded (529){retried}: {detail}", RESUME_HINT)
    if status >= 500:
        return ModelError(f"the API failed ({status}){retried}: {detail}", RESUME_HINT)
    return ModelError(f"the API answered {status}: {detail}")


def timed_out_error(url: str, timeout_s: float) -> ModelError:
    """A request that ran past ``model.timeout_seconds`` (a total deadline, retries included)."""
    return ModelError(
        f"the request to {url} timed out after {timeout_s:g} s",
        "check the network, or raise model.timeout_seconds; " + RESUME_HINT,
    )


def unreachable_error(
    exc: Exception, sdk: ModuleType, *, url: str, timeout_s: float, hint: str
) -> ModelError | None:
    """A timeout or a failed connection of either SDK (both name them ``APITimeoutError`` and
    ``APIConnectionError``) as a ModelError; ``hint`` says what to check when the server cannot
    be reached. None for any other error."""
    if isinstance(exc, sdk.APITimeoutError):
        return timed_out_error(url, timeout_s)
    if isinstance(exc, sdk.APIConnectionError):
        return ModelError(f"cannot reach {url}: {connection_failure(exc)}", hint)
    return None


def connection_failure(exc: BaseException) -> str:
    """Why a connection failed, as the end of a sentence: ``connection refused``, from the
    innermost cause (the SDKs' own text is a sentence of its own, "Connection error.")."""
    reasons: list[str] = []
    seen: BaseException | None = exc
    while seen is not None and len(reasons) < 10:
        if isinstance(seen, OSError) and seen.strerror:
            reasons.append(seen.strerror)
        elif str(seen):
            reasons.append(re.sub(r"^\[Errno -?\d+\]\s*", "", str(seen)))
        seen = seen.__cause__ or seen.__context__
    reason = (reasons[-1] if len(reasons) > 1 else "") or "the connection failed"
    reason = reason.rstrip(". ")
    return reason[:1].lower() + reason[1:] if reason[1:2].islower() else reason


TextSink = Callable[[str], None]


class Provider(Protocol):
    """Answers one request with one assistant turn, streaming text to ``on_text``."""

    name: str

    def complete(self, request: TurnRequest, on_text: TextSink) -> AssistantTurn: ...


@functools.cache
def transport_errors() -> tuple[type[Exception], ...]:
    """Errors of the HTTP library the SDKs stream through (``httpx2`` since SDK 2, else ``httpx``).

    Looked up once per process: every request asks, and a library that is not installed is
    searched for along the whole ``sys.path`` again by each failed import.
    """
    found: list[type[Exception]] = []
    for name in ("httpx2", "httpx"):
        try:
            found.append(importlib.import_module(name).HTTPError)
        except ImportError:
            continue
    return tuple(found)


def describe_cause(exc: BaseException) -> str:
    """An error's text with its root cause (the SDKs wrap transport errors)."""
    cause = exc.__cause__ or exc.__context__
    text = str(exc) or type(exc).__name__
    if cause is not None and str(cause) and str(cause) not in text:
        text = f"{text} ({cause})"
    return text


def has_lone_surrogate(text: str) -> bool:
    """Text that is not valid Unicode: it can be neither logged as UTF-8 nor shown."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


class Deadline:
    """A total time limit for one streamed request, from the moment it is made.

    The SDKs' own timeout limits each read, so a server that sends a byte now and then holds a
    request open for as long as it likes. Once the stream is open, :meth:`watch` shuts its
    connection down when the time is up, which ends a read under way at once; ``passed`` then
    tells the failure that follows for what it is.
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.passed = False
        self._ends = time.monotonic() + seconds
        self._timer: threading.Timer | None = None

    def remaining(self) -> float:
        """Seconds left (0 once the time is up)."""
        return max(0.0, self._ends - time.monotonic())

    def check(self) -> None:
        """Mark the deadline passed once the time is up, even with no read under way (a stream
        whose data keeps coming fast): the caller then stops as it does for a cut read."""
        if not self.passed and time.monotonic() >= self._ends:
            self.passed = True

    def watch(self, response: Any) -> None:
        """Shut the connection of ``response`` (an httpx response) down when the time is up."""
        import socket  # loaded by the SDK already; a replayed or claude-code run needs none

        stream = getattr(response, "extensions", {}).get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if not isinstance(sock, socket.socket):
            return  # a transport without a socket (a test double): the per-read timeout stays

        def cut() -> None:
            self.passed = True
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:  # already closed: the request ended meanwhile
                pass

        self._timer = threading.Timer(max(0.0, self._ends - time.monotonic()), cut)
        self._timer.daemon = True
        self._timer.start()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


NOT_A_STREAM_HINT = "check the base URL: it must point at the API itself, not a web page or proxy"


def require_event_stream(response: Any, url: str) -> None:
    """ModelError unless ``response`` (an httpx response to a streamed request) is an event
    stream: a 200 with an HTML page, an empty body or plain JSON is no answer of a model."""
    content_type = str(response.headers.get("content-type") or "")
    if content_type.split(";")[0].strip().lower() == "text/event-stream":
        return
    head = b""
    try:
        for piece in response.iter_bytes():
            head += piece
            if len(head) >= 200:
                break
    except Exception:  # noqa: BLE001 - the body is only quoted; its failure changes nothing
        head = head or b""
    text = " ".join(head[:200].decode("utf-8", "replace").split())
    body = f"; it begins: {text!r}" if text else "; its body is empty"
    raise ModelError(
        f"{url} answered {response.status_code} with "
        f"{content_type or 'no content type'} instead of an event stream{body}",
        NOT_A_STREAM_HINT,
    )
