"""A local server that speaks the Anthropic Messages API wire format.

Tests point the real ``anthropic`` SDK (or the installed ``orch-tui`` CLI, through
``ANTHROPIC_BASE_URL``) at it and script what "the model" answers, request by request:
a :class:`Turn` is streamed as server-sent events exactly like the API does, an
:class:`Error` is answered with the API's JSON error shape and status, and a
:class:`CutStream` starts a turn and then drops the connection (or sends an SSE
``error`` event) part-way.

Prompt caching is simulated by the API's prefix rules (see :class:`_PromptCache`), so the
usage numbers say how many input tokens a request read from the cache and wrote to it.

Run ``python -m tests.support.fake_anthropic --script FILE.json --port-file F`` to serve a
JSON script (see :func:`item_from_json`) until killed.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.support.local_server import LocalServer, QuietServer

EDITOR_TOOL_NAME = "str_replace_based_edit_tool"
ASK_USER_TOOL_NAME = "ask_user"
JUDGE_TOOL_NAME = "judge_decision"
VERIFIER_TOOL_NAME = "verifier_verdict"
DEFAULT_KEYS = frozenset({"test-key"})
RETRY_AFTER_MS = "10"

_ids = itertools.count(1)


def _next_id(prefix: str) -> str:
    return f"{prefix}_fake{next(_ids):08d}"


def text(s: str) -> dict[str, Any]:
    """A text content block."""
    return {"type": "text", "text": s}


def tool_use(name: str, input: dict[str, Any], id: str | None = None) -> dict[str, Any]:
    """A tool_use content block; the id is generated when not given."""
    return {"type": "tool_use", "id": id or _next_id("toolu"), "name": name, "input": input}


def _edit_input(edit: tuple[Any, ...]) -> dict[str, Any]:
    command, path, *args = edit
    if command == "create":
        (file_text,) = args
        return {"command": "create", "path": path, "file_text": file_text}
    if command == "str_replace":
        old, new = args
        return {"command": "str_replace", "path": path, "old_str": old, "new_str": new}
    if command == "insert":
        line, new_text = args
        return {"command": "insert", "path": path, "insert_line": line, "insert_text": new_text}
    if command == "view":
        return {"command": "view", "path": path, **({"view_range": args[0]} if args else {})}
    raise ValueError(f"unknown editor command {command!r}")


@dataclass
class Turn:
    """One assistant message the server answers with.

    ``usage`` overrides the simulated token counts key by key.
    """

    content: list[dict[str, Any]]
    stop_reason: str = "end_turn"
    usage: dict[str, Any] | None = None

    text = staticmethod(text)
    tool_use = staticmethod(tool_use)

    @classmethod
    def say(cls, s: str, stop_reason: str = "end_turn") -> Turn:
        """A turn with one text block."""
        return cls([text(s)], stop_reason)

    @classmethod
    def edits(cls, text: str, edits: Iterable[tuple[Any, ...]]) -> Turn:
        """A turn calling the text editor tool once per edit, after an optional text block.

        Edits are ``("create", path, file_text)``, ``("str_replace", path, old, new)``,
        ``("insert", path, line, text)`` or ``("view", path[, [start, end]])``.
        """
        blocks = [{"type": "text", "text": text}] if text else []
        blocks += [tool_use(EDITOR_TOOL_NAME, _edit_input(e)) for e in edits]
        return cls(blocks, "tool_use")

    @classmethod
    def ask(cls, question: str, options: Iterable[str] = (), recommendation: str = "") -> Turn:
        """A turn that calls the ``ask_user`` tool with a question for the person."""
        call = {"question": question, "options": list(options), "recommendation": recommendation}
        return cls([text("I need a decision."), tool_use(ASK_USER_TOOL_NAME, call)], "tool_use")

    @classmethod
    def judge(cls, decision: str, **fields: Any) -> Turn:
        """A judge's answer: one ``judge_decision`` call (``decision`` "retry" or "ask",
        with ``guidance`` or ``question``/``options``/``recommendation``)."""
        return cls([tool_use(JUDGE_TOOL_NAME, {"decision": decision, **fields})], "tool_use")

    @classmethod
    def verdict(cls, *gaps: str) -> Turn:
        """A verifier's answer: insufficient with ``gaps``, sufficient without."""
        call = (
            {"verdict": "insufficient", "gaps": list(gaps)} if gaps else {"verdict": "sufficient"}
        )
        return cls([tool_use(VERIFIER_TOOL_NAME, call)], "tool_use")


@dataclass
class Error:
    """An HTTP error answer in the API's JSON shape (``{"type": "error", "error": {...}}``)."""

    status: int
    type: str
    message: str
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def overloaded(cls) -> Error:
        return cls(529, "overloaded_error", "Overloaded")

    @classmethod
    def rate_limited(cls) -> Error:
        return cls(429, "rate_limit_error", "Rate limit exceeded")

    @classmethod
    def server(cls) -> Error:
        return cls(500, "api_error", "Internal server error")

    @classmethod
    def auth(cls) -> Error:
        return cls(401, "authentication_error", "invalid x-api-key")

    def body(self) -> dict[str, Any]:
        return {
            "type": "error",
            "error": {"type": self.type, "message": self.message},
            "request_id": _next_id("req"),
        }

    def all_headers(self) -> dict[str, str]:
        retryable = (self.status == 429 or self.status >= 500) and "retry-after" not in self.headers
        return {**({"retry-after-ms": RETRY_AFTER_MS} if retryable else {}), **self.headers}


@dataclass
class CutStream:
    """Stream ``turn`` for ``after_events`` events, then fail.

    Without ``error`` the connection is dropped mid-body; with it, the stream sends an
    SSE ``error`` event carrying that error (as the API does when it overloads
    mid-stream) and ends.
    """

    turn: Turn
    after_events: int = 3
    error: Error | None = None


@dataclass
class Garbled:
    """Stream ``turn``, with one raw SSE event (``event:`` name, ``data:`` text sent as is)
    slipped in after ``after_events`` events: malformed JSON, a tool input delta that does not
    parse, a lone surrogate escape. The rest of the turn follows, as a faulty proxy would send it."""

    turn: Turn
    data: str
    after_events: int = 3
    event: str = "content_block_delta"


@dataclass
class SlowDrip:
    """Start a turn, then send an SSE ping every ``interval_s`` for ``pings`` pings and end the
    stream without finishing the message: a server that is alive but never answers.
    ``FakeAnthropic.drips_finished`` counts drips that sent every ping (the client stayed)."""

    pings: int = 120
    interval_s: float = 0.5


@dataclass
class NotAStream:
    """A 200 answer that is no event stream: an HTML page, an empty body, plain JSON."""

    body: bytes = b"<html><body>Welcome to the proxy</body></html>"
    content_type: str = "text/html; charset=utf-8"


@dataclass
class Flood:
    """A turn of ``chars`` characters of text (or, with ``tool``, of a created file's text in a
    tool call), streamed in deltas of ``piece`` characters, many events to a write."""

    chars: int
    piece: int = 16
    tool: bool = False


ScriptItem = Turn | Error | CutStream | Garbled | SlowDrip | NotAStream | Flood


def send_not_a_stream(handler: BaseHTTPRequestHandler, item: NotAStream) -> None:
    """Answer 200 with ``item``'s body and content type (none when empty), as is."""
    handler.send_response(200)
    if item.content_type:
        handler.send_header("content-type", item.content_type)
    handler.send_header("content-length", str(len(item.body)))
    handler.end_headers()
    handler.wfile.write(item.body)


Script = Iterable[ScriptItem] | Callable[[dict[str, Any]], ScriptItem]


@dataclass
class RecordedRequest:
    """A request the server received: the JSON body and the headers (lower-case names)."""

    body: dict[str, Any]
    headers: dict[str, str]
    path: str = "/v1/messages"


def item_from_json(data: dict[str, Any]) -> ScriptItem:
    """Read one script item from JSON.

    ``{"content": [...], "stop_reason": ..., "usage": ...}`` is a turn (the shape of
    ``AssistantTurn.to_json()``, extra keys ignored); ``{"error": {"status", "type",
    "message"}}`` an error; ``{"cut": <turn>, "after_events": n, "error": {...}}`` a cut stream.
    """
    if "error" in data and "cut" not in data:
        return Error(**data["error"])
    if "cut" in data:
        err = data.get("error")
        return CutStream(
            _turn_from_json(data["cut"]), int(data.get("after_events", 3)), err and Error(**err)
        )
    return _turn_from_json(data)


def _turn_from_json(data: dict[str, Any]) -> Turn:
    return Turn(list(data["content"]), data.get("stop_reason") or "end_turn", data.get("usage"))


def item_to_json(item: ScriptItem) -> dict[str, Any]:
    """The inverse of :func:`item_from_json`, for tests that write script files."""
    if isinstance(item, Error):
        return {"error": {"status": item.status, "type": item.type, "message": item.message}}
    if isinstance(item, CutStream):
        out: dict[str, Any] = {"cut": item_to_json(item.turn), "after_events": item.after_events}
        if item.error:
            out["error"] = item_to_json(item.error)["error"]
        return out
    out = {"content": item.content, "stop_reason": item.stop_reason}
    if item.usage is not None:
        out["usage"] = item.usage
    return out


def write_script(path: str | os.PathLike[str], items: Iterable[ScriptItem]) -> None:
    Path(path).write_text(json.dumps([item_to_json(i) for i in items], indent=2))


def _tokens(value: Any) -> int:
    """A rough token count: four characters of JSON per token."""
    return max(1, len(json.dumps(value)) // 4)


CACHE_LOOKBACK_BLOCKS = 20
"""How far before a breakpoint the API looks for an earlier cached prefix, in blocks."""


def _without_breakpoint(part: dict[str, Any]) -> dict[str, Any]:
    """A block as the cache sees it: where the breakpoints sit does not change the content."""
    return {k: v for k, v in part.items() if k != "cache_control"}


MAX_BREAKPOINTS = 4
"""The most ``cache_control`` blocks the API accepts in one request."""


def _cache_parts(body: dict[str, Any]) -> tuple[list[dict[str, Any]], list[int]]:
    """A request's blocks in cache order (tools, system, messages; breakpoints taken out),
    and where each breakpoint's prefix ends (a count of blocks)."""
    parts: list[Any] = [*body.get("tools", [])]
    system = body.get("system", [])
    parts += [text(system)] if isinstance(system, str) else system
    for message in body.get("messages", []):
        content = message.get("content", [])
        blocks = [text(content)] if isinstance(content, str) else content
        parts += [{"role": message.get("role"), **b} for b in blocks]
    breakpoints = [i + 1 for i, p in enumerate(parts) if "cache_control" in p]
    return [_without_breakpoint(p) for p in parts], breakpoints


class _PromptCache:
    """Prompt caching by the API's prefix rules.

    A request's blocks are its tools, then its system blocks, then every message's content
    blocks. A ``cache_control`` breakpoint caches everything up to and including its block.
    A later request reads the longest earlier-cached prefix that ends at one of its
    breakpoints or within :data:`CACHE_LOOKBACK_BLOCKS` blocks before one; what lies between
    that prefix and its last breakpoint is written to the cache; the rest is plain input.
    """

    def __init__(self) -> None:
        self._seen: set[str] = set()

    def usage(self, body: dict[str, Any]) -> dict[str, int]:
        parts, breakpoints = _cache_parts(body)
        total = _tokens(parts)
        if not breakpoints:
            return _usage(total, 0, 0)
        running = hashlib.sha256()
        keys = [""]
        for part in parts:
            running.update(json.dumps(part).encode() + b"\0")
            keys.append(running.copy().hexdigest())
        read = 0
        for end in breakpoints:
            for n in range(end, max(0, end - CACHE_LOOKBACK_BLOCKS) - 1, -1):
                if n and keys[n] in self._seen:
                    read = max(read, n)
                    break
        self._seen.update(keys[n] for n in breakpoints)
        read_tokens = _tokens(parts[:read]) if read else 0
        written = _tokens(parts[: breakpoints[-1]]) - read_tokens if breakpoints[-1] > read else 0
        return _usage(max(1, total - read_tokens - written), written, read_tokens)


def _usage(input_tokens: int, written: int, read: int) -> dict[str, int]:
    return {
        "input_tokens": input_tokens,
        "output_tokens": 1,
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": read,
    }


def _chunks(s: str, pieces: int = 4) -> list[str]:
    size = max(8, math.ceil(len(s) / pieces))
    return [s[i : i + size] for i in range(0, len(s), size)] or [""]


def _text_chunks(s: str) -> list[str]:
    """Split text the way the API streams it: a few words per delta."""
    words = re.findall(r"\s*\S+\s*", s) or [s]
    return ["".join(words[i : i + 3]) for i in range(0, len(words), 3)]


def _block_events(index: int, block: dict[str, Any]) -> Iterator[dict[str, Any]]:
    if block["type"] == "text":
        yield {"type": "content_block_start", "index": index, "content_block": text("")}
        for piece in _text_chunks(block["text"]):
            delta = {"type": "text_delta", "text": piece}
            yield {"type": "content_block_delta", "index": index, "delta": delta}
    elif block["type"] == "tool_use":
        start = {**block, "input": {}}
        yield {"type": "content_block_start", "index": index, "content_block": start}
        for piece in ["", *_chunks(json.dumps(block["input"]))]:
            delta = {"type": "input_json_delta", "partial_json": piece}
            yield {"type": "content_block_delta", "index": index, "delta": delta}
    else:
        yield {"type": "content_block_start", "index": index, "content_block": block}
    yield {"type": "content_block_stop", "index": index}


def _delta(kind: str, key: str, piece: str) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": 0, "delta": {"type": kind, key: piece}}


def _message(
    model: str, stop_reason: str | None, usage: dict[str, int], content: list[Any]
) -> dict[str, Any]:
    return {
        "id": _next_id("msg"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": usage,
    }


def turn_events(model: str, turn: Turn, usage: dict[str, int]) -> Iterator[dict[str, Any]]:
    """The server-sent events of one streamed turn, in the API's order."""
    start_usage = {**usage, "output_tokens": 1}
    yield {"type": "message_start", "message": _message(model, None, start_usage, [])}
    yield {"type": "ping"}
    for index, block in enumerate(turn.content):
        yield from _block_events(index, block)
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": turn.stop_reason, "stop_sequence": None},
        "usage": {"output_tokens": usage["output_tokens"]},
    }
    yield {"type": "message_stop"}


def _request_key(headers: dict[str, str]) -> str:
    """The request's key: ``x-api-key``, or ``authorization: Bearer`` (as SDK 2.x sends it)."""
    bearer = headers.get("authorization", "")
    return headers.get("x-api-key") or bearer.removeprefix("Bearer ").strip()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: QuietServer

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: test output is for test failures."""

    def do_GET(self) -> None:
        self._send_error(Error(404, "not_found_error", f"Not found: {self.path}"))

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        fake: FakeAnthropic = self.server.fake
        if self.path.split("?")[0] != "/v1/messages":
            self._send_error(Error(404, "not_found_error", f"Not found: {self.path}"))
            return
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError as exc:
            self._send_error(Error(400, "invalid_request_error", f"body is not JSON: {exc}"))
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        breakpoints = len(_cache_parts(body)[1])
        if breakpoints > MAX_BREAKPOINTS:
            message = (
                f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. "
                f"Found {breakpoints}."
            )
            self._send_error(Error(400, "invalid_request_error", message))
            return
        choice = body.get("tool_choice") or {}
        tool_names = [tool.get("name") for tool in body.get("tools") or []]
        if choice.get("type") == "tool" and choice.get("name") not in tool_names:
            message = f"tool_choice names {choice.get('name')!r}, which is not in tools"
            self._send_error(Error(400, "invalid_request_error", message))
            return
        item = fake._answer(RecordedRequest(body, headers, self.path))
        if isinstance(item, Error):
            self._send_error(item)
        elif isinstance(item, NotAStream):
            self._send_raw(item.body, item.content_type)
        elif isinstance(item, Flood):
            self._flood(body, item)
        elif isinstance(item, SlowDrip):
            self._drip(body, item)
        elif body.get("stream"):
            self._stream(body, item)
        elif isinstance(item, CutStream | Garbled):
            self._drop()
        else:
            usage = fake._usage(body, item)
            message = _message(body.get("model", ""), item.stop_reason, usage, item.content)
            self._send_json(200, message)

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", _next_id("req"))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_raw(self, data: bytes, content_type: str) -> None:
        send_not_a_stream(self, NotAStream(data, content_type))

    def _flood(self, body: dict[str, Any], flood: Flood) -> None:
        self._start_stream()
        model = body.get("model", "")
        head = tool_use(EDITOR_TOOL_NAME, {}) if flood.tool else text("")
        events: list[dict[str, Any]] = [
            {"type": "message_start", "message": _message(model, None, _usage(1, 0, 0), [])},
            {"type": "content_block_start", "index": 0, "content_block": head},
        ]
        kind, key = ("input_json_delta", "partial_json") if flood.tool else ("text_delta", "text")
        if flood.tool:
            events.append(
                _delta(kind, key, '{"command": "create", "path": "big.txt", "file_text": "')
            )
        batch = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events]
        piece = "x" * flood.piece
        for _ in range(flood.chars // flood.piece):
            event = _delta(kind, key, piece)
            batch.append(f"event: content_block_delta\ndata: {json.dumps(event)}\n\n")
            if len(batch) >= 2000:
                if not self._send_batch(batch):
                    return
        if flood.tool:
            closing = json.dumps(_delta(kind, key, '"}'))
            batch.append(f"event: content_block_delta\ndata: {closing}\n\n")
        tail = [
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 1},
            },
            {"type": "message_stop"},
        ]
        batch += [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in tail]
        if self._send_batch(batch):
            self.wfile.write(b"0\r\n\r\n")

    def _send_batch(self, batch: list[str]) -> bool:
        """Send the events in ``batch`` as one chunk and empty it; False once the client left."""
        try:
            self._chunk("".join(batch).encode())
        except OSError:
            return False
        batch.clear()
        return True

    def _send_error(self, error: Error) -> None:
        self._send_json(error.status, error.body(), error.all_headers())

    def _drop(self) -> None:
        """Close the connection abruptly, mid-response."""
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)
        self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", _next_id("req"))
        self.end_headers()

    def _drip(self, body: dict[str, Any], drip: SlowDrip) -> None:
        self._start_stream()
        start = {
            "type": "message_start",
            "message": _message(body.get("model", ""), None, _usage(1, 0, 0), []),
        }
        self._chunk(f"event: message_start\ndata: {json.dumps(start)}\n\n".encode())
        for _ in range(drip.pings):
            time.sleep(drip.interval_s)
            self._chunk(b'event: ping\ndata: {"type": "ping"}\n\n')
        with self.server.fake._lock:
            self.server.fake.drips_finished += 1
        self.wfile.write(b"0\r\n\r\n")

    def _stream(self, body: dict[str, Any], item: Turn | CutStream | Garbled) -> None:
        fake = self.server.fake
        turn = item if isinstance(item, Turn) else item.turn
        cut_after = item.after_events if isinstance(item, CutStream) else None
        self._start_stream()
        events = turn_events(body.get("model", ""), turn, fake._usage(body, turn))
        for count, event in enumerate(events):
            if count == cut_after:
                break
            if isinstance(item, Garbled) and count == item.after_events:
                self._chunk(f"event: {item.event}\ndata: {item.data}\n\n".encode())
            self._chunk(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
            if fake.event_delay_s:
                time.sleep(fake.event_delay_s)
        if isinstance(item, CutStream) and item.error is None:
            self._drop()
            return
        if isinstance(item, CutStream) and item.error is not None:
            payload = {"type": "error", "error": item.error.body()["error"]}
            self._chunk(f"event: error\ndata: {json.dumps(payload)}\n\n".encode())
        self.wfile.write(b"0\r\n\r\n")


class FakeAnthropic(LocalServer):
    """A scripted Messages API on 127.0.0.1; a context manager that starts and stops it.

    ``script`` is a list of items answered in order (extend it with :meth:`push`) or a
    function from the request body to an item. When the list runs out, every request is
    answered with a 500 ``api_error`` that says so (marked not to be retried).
    ``valid_keys`` are the API keys accepted (``None``: any non-empty key);
    others get a 401 without using up the script.
    """

    handler = _Handler

    def __init__(
        self,
        script: Script = (),
        *,
        valid_keys: Collection[str] | None = DEFAULT_KEYS,
        event_delay_s: float = 0.0,
        port: int = 0,
    ) -> None:
        self._fn = script if callable(script) else None
        self._items: list[ScriptItem] = [] if callable(script) else list(script)
        self.valid_keys = valid_keys
        self.event_delay_s = event_delay_s
        self.requests: list[RecordedRequest] = []
        self.drips_finished = 0
        self._cache = _PromptCache()
        self._lock = threading.Lock()
        super().__init__(port)

    @property
    def remaining(self) -> int:
        """Scripted items not yet served."""
        return len(self._items)

    def push(self, *items: ScriptItem) -> None:
        with self._lock:
            self._items.extend(items)

    def _answer(self, request: RecordedRequest) -> ScriptItem:
        with self._lock:
            self.requests.append(request)
            key = _request_key(request.headers)
            if not key or (self.valid_keys is not None and key not in self.valid_keys):
                return Error(401, "authentication_error", "invalid x-api-key")
            if self._fn is not None:
                return self._fn(request.body)
            if self._items:
                return self._items.pop(0)
        n = len(self.requests)
        message = f"fake_anthropic: script exhausted at request {n}; no scripted answer left"
        return Error(500, "api_error", message, {"x-should-retry": "false"})

    def _usage(self, body: dict[str, Any], turn: Turn) -> dict[str, int]:
        with self._lock:
            usage = self._cache.usage(body)
        usage["output_tokens"] = _tokens(turn.content)
        return {**usage, **(turn.usage or {})}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.support.fake_anthropic", description=__doc__
    )
    parser.add_argument("--script", required=True, help="JSON file: a list of script items")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", help="write the chosen port here once listening")
    parser.add_argument("--key", action="append", help="an accepted x-api-key (repeatable)")
    parser.add_argument("--any-key", action="store_true", help="accept any non-empty key")
    parser.add_argument("--event-delay", type=float, default=0.0, help="seconds between events")
    args = parser.parse_args(argv)
    items = [item_from_json(d) for d in json.loads(Path(args.script).read_text())]
    keys = None if args.any_key else frozenset(args.key or DEFAULT_KEYS)
    fake = FakeAnthropic(items, valid_keys=keys, event_delay_s=args.event_delay, port=args.port)
    fake.start()
    if args.port_file:
        tmp = Path(args.port_file + ".tmp")
        tmp.write_text(fake.url.rsplit(":", 1)[1])
        tmp.replace(args.port_file)
    print(fake.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
