"""A local server that speaks the OpenAI Chat Completions wire format.

Tests point the real ``openai`` SDK (or the installed ``orch-tui --provider openai``, through
``OPENAI_BASE_URL``) at it and script what "the model" answers, request by request. A
:class:`Reply` is answered as JSON, or streamed as server-sent ``data:`` chunks ending in
``data: [DONE]`` (with a usage chunk when ``stream_options.include_usage`` is set), exactly
as the API does; an :class:`Error` is answered with the API's JSON error shape and status.
Modelled on :mod:`tests.support.fake_anthropic`.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.fake_anthropic import Flood, NotAStream, SlowDrip, send_not_a_stream
from tests.support.local_server import LocalServer, QuietServer

DEFAULT_KEYS = frozenset({"test-key"})
EDITOR_TOOL_NAME = "str_replace_based_edit_tool"

_ids = itertools.count(1)


def _next_id(prefix: str) -> str:
    return f"{prefix}-fake{next(_ids):08d}"


@dataclass
class Reply:
    """One assistant message: text and tool calls ``(name, arguments)``."""

    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    finish_reason: str | None = None
    prompt_tokens: int = 120
    completion_tokens: int = 30
    cached_tokens: int = 0
    usage_override: dict[str, Any] | None = None
    """Figures sent as given, by the Messages API's names (``output_tokens`` is
    ``completion_tokens``, ``input_tokens`` is ``prompt_tokens``): a server's broken report."""

    @classmethod
    def edits(cls, text: str, edits: Iterable[dict[str, Any]]) -> Reply:
        """A reply calling the text editor function once per edit (editor tool input dicts)."""
        return cls(text, [(EDITOR_TOOL_NAME, edit) for edit in edits])

    def finish(self) -> str:
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")

    def calls(self) -> list[dict[str, Any]]:
        return [
            {
                "id": _next_id("call"),
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            for name, arguments in self.tool_calls
        ]

    def usage(self) -> dict[str, Any]:
        usage: dict[str, Any] = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
            "prompt_tokens_details": {"cached_tokens": self.cached_tokens},
        }
        names = {"input_tokens": "prompt_tokens", "output_tokens": "completion_tokens"}
        for name, value in (self.usage_override or {}).items():
            usage[names.get(name, name)] = value
        return usage


@dataclass
class Error:
    """An HTTP error answer in the API's JSON shape (``{"error": {...}}``)."""

    status: int
    message: str
    type: str = "invalid_request_error"
    headers: dict[str, str] = field(default_factory=dict)
    """Extra headers; a ``retry-after`` here lets the SDK retry (else ``x-should-retry: false``)."""

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": None, "code": None}}


@dataclass
class Garbled:
    """Stream ``reply`` with one raw ``data:`` line (sent as is) after ``after_chunks`` chunks."""

    reply: Reply
    data: str
    after_chunks: int = 1


ScriptItem = Reply | Error | Garbled | SlowDrip | NotAStream | Flood


@dataclass
class RecordedRequest:
    body: dict[str, Any]
    headers: dict[str, str]


def _completion(model: str, reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = reply.calls()
    return {
        "id": _next_id("chatcmpl"),
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish()}],
        "usage": reply.usage(),
    }


def chunks(model: str, reply: Reply, include_usage: bool) -> Iterator[dict[str, Any]]:
    """The streamed chunks of one reply, in the API's order."""
    base = {
        "id": _next_id("chatcmpl"),
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {**base, "choices": [choice], **({"usage": None} if include_usage else {})}

    yield chunk({"role": "assistant", "content": ""})
    words = reply.text.split(" ")
    for i in range(0, len(words), 3):
        piece = " ".join(words[i : i + 3]) + (" " if i + 3 < len(words) else "")
        if piece:
            yield chunk({"content": piece})
    for index, call in enumerate(reply.calls()):
        arguments = call["function"]["arguments"]
        head = {
            "index": index,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""},
        }
        yield chunk({"tool_calls": [head]})
        half = len(arguments) // 2
        for part in (arguments[:half], arguments[half:]):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
    yield chunk({}, reply.finish())
    if include_usage:
        yield {**base, "choices": [], "usage": reply.usage()}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: QuietServer

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: test output is for test failures."""

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.path.split("?")[0] != "/v1/chat/completions":
            self._send_json(404, Error(404, f"Not found: {self.path}").body())
            return
        body = json.loads(raw or b"{}")
        headers = {k.lower(): v for k, v in self.headers.items()}
        item = self.server.fake._answer(RecordedRequest(body, headers))
        model = body.get("model", "")
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        if isinstance(item, Error):
            self._send_json(item.status, item.body(), item.headers)
        elif isinstance(item, NotAStream):
            send_not_a_stream(self, item)
        elif isinstance(item, Flood):
            self._flood(model, item)
        elif isinstance(item, SlowDrip):
            self._drip(model, item)
        elif isinstance(item, Garbled):
            lines = [f"data: {json.dumps(e)}\n\n" for e in chunks(model, item.reply, include_usage)]
            lines.insert(item.after_chunks, f"data: {item.data}\n\n")
            self._stream(lines)
        elif body.get("stream"):
            self._stream(f"data: {json.dumps(e)}\n\n" for e in chunks(model, item, include_usage))
        else:
            self._send_json(200, _completion(model, item))

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {"x-should-retry": "false"}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _flood(self, model: str, flood: Flood) -> None:
        """A reply of ``flood.chars`` characters in ``flood.piece``-character chunks."""
        self._start_stream()
        first, *_ = chunks(model, Reply(), include_usage=False)
        if flood.tool:
            head = {"index": 0, "id": "call_flood", "type": "function"}
            head["function"] = {"name": EDITOR_TOOL_NAME, "arguments": ""}
            opening = '{"command": "create", "path": "big.txt", "file_text": "'
            pieces = [opening, *["x" * flood.piece] * (flood.chars // flood.piece), '"}']
            deltas = [{"tool_calls": [head]}]
            deltas += ({"tool_calls": [{"index": 0, "function": {"arguments": p}}]} for p in pieces)
            finish = "tool_calls"
        else:
            deltas = [{"content": "x" * flood.piece}] * (flood.chars // flood.piece)
            finish = "stop"
        batch = [f"data: {json.dumps(first)}\n\n"]
        for delta in [*deltas, {}]:
            end = finish if not delta else None
            chunk = {**first, "choices": [{"index": 0, "delta": delta, "finish_reason": end}]}
            batch.append(f"data: {json.dumps(chunk)}\n\n")
            if len(batch) >= 2000 or not delta:
                try:
                    self._chunk("".join(batch))
                except OSError:
                    return
                batch.clear()
        self._chunk("data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()

    def _chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _stream(self, lines: Iterable[str]) -> None:
        """Send SSE ``lines`` (each ``data: ...\\n\\n``), then ``[DONE]``."""
        self._start_stream()
        for line in [*lines, "data: [DONE]\n\n"]:
            self._chunk(line)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _drip(self, model: str, drip: SlowDrip) -> None:
        """A role chunk, then an SSE comment every ``interval_s``: never an answer."""
        self._start_stream()
        first = next(chunks(model, Reply(), include_usage=False))
        self._chunk(f"data: {json.dumps(first)}\n\n")
        for _ in range(drip.pings):
            time.sleep(drip.interval_s)
            self._chunk(": ping\n\n")
        with self.server.fake._lock:
            self.server.fake.drips_finished += 1
        self.wfile.write(b"0\r\n\r\n")


class FakeOpenAI(LocalServer):
    """A scripted Chat Completions API on 127.0.0.1; a context manager that starts and stops it.

    Items are answered in order; when they run out every request gets a 500 saying so.
    ``valid_keys`` are the accepted bearer keys (``None``: any key); others get a 401.
    Errors carry ``x-should-retry: false`` so the SDK reports them at once.
    """

    handler = _Handler
    url_path = "/v1"
    """Clients get the base URL with /v1 (``OPENAI_BASE_URL``)."""

    def __init__(
        self,
        script: Iterable[ScriptItem] = (),
        *,
        valid_keys: Collection[str] | None = DEFAULT_KEYS,
    ) -> None:
        self._items = list(script)
        self.valid_keys = valid_keys
        self.requests: list[RecordedRequest] = []
        self.drips_finished = 0
        self._lock = threading.Lock()
        super().__init__()

    def _answer(self, request: RecordedRequest) -> ScriptItem:
        with self._lock:
            self.requests.append(request)
            key = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
            if self.valid_keys is not None and key not in self.valid_keys:
                return Error(401, "Incorrect API key provided", "invalid_api_key")
            if self._items:
                return self._items.pop(0)
        return Error(
            500, f"fake_openai: script exhausted at request {len(self.requests)}", "server_error"
        )
