"""The OpenAI-compatible provider: one streamed Chat Completions request per assistant turn.

Any server speaking the Chat Completions wire format works (OpenAI, Ollama, vLLM, LM Studio).
The request the engine builds is in Anthropic's shapes (see :mod:`core.providers.base`); this
module translates it: the text editor tool becomes one function with the same parameters,
every other tool passes through under its own name and JSON schema, ``tool_use`` and
``tool_result`` blocks become ``tool_calls`` and ``tool`` messages, and the streamed answer
comes back as content blocks. The ``openai`` SDK is imported only when a request is made.
"""

from __future__ import annotations

import json
from functools import cached_property
from typing import TYPE_CHECKING, Any

from orch_tui.core.domain.cost import Usage
from orch_tui.core.domain.tools import EDITOR_TOOL_NAME as TOOL_NAME
from orch_tui.core.providers.base import (
    RESUME_HINT,
    AssistantTurn,
    Deadline,
    ModelError,
    StatusHints,
    TextSink,
    TurnRequest,
    describe_cause,
    has_lone_surrogate,
    require_event_stream,
    status_error,
    timed_out_error,
    transport_errors,
    unreachable_error,
)
from orch_tui.core.providers.figures import reported_usage
from orch_tui.core.providers.openai_stream import ChatAnswer
from orch_tui.core.providers.pacing import RetryWaitTooLong, paced, pacing
from orch_tui.core.providers.redact import register_secret
from orch_tui.core.providers.turn_size import MAX_TURN_CHARS, TurnSize
from orch_tui.core.util.records import record

if TYPE_CHECKING:
    import openai

STATUS_HINTS = StatusHints(
    key_name="OPENAI_API_KEY",
    permissions="check the key's project and permissions",
    model="check --model or `model.name` in orchestrator.toml (for Ollama: ollama pull MODEL)",
)
LOCAL_KEY = "local"
"""Sent as the key when none is set but a base URL is: local servers ignore it, the SDK needs one."""

EDITOR_FUNCTION_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "command": {
            "type": "string",
            "enum": ["view", "create", "str_replace", "insert"],
            "description": "The command to run.",
        },
        "path": {"type": "string", "description": "Path of the file or folder, e.g. src/app.py."},
        "file_text": {"type": "string", "description": "create: the whole file's content."},
        "old_str": {
            "type": "string",
            "description": "str_replace: the exact text to replace; it must occur exactly once.",
        },
        "new_str": {"type": "string", "description": "str_replace: the replacement text."},
        "insert_line": {
            "type": "integer",
            "description": "insert: the line after which to insert (0 for the start).",
        },
        "insert_text": {"type": "string", "description": "insert: the text to insert."},
        "view_range": {
            "type": "array",
            "items": {"type": "integer"},
            "description": "view: [first, last] line numbers (1-based; -1 for the end).",
        },
    },
    "required": ["command", "path"],
}
"""The parameters of Anthropic's text editor tool, as a JSON schema."""

EDITOR_FUNCTION: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": (
            "View, create and edit files of the project. view shows a file with line numbers "
            "(or lists a folder); create writes a whole file; str_replace replaces one exact, "
            "unique occurrence of old_str with new_str; insert adds insert_text after line "
            "insert_line."
        ),
        "parameters": EDITOR_FUNCTION_PARAMETERS,
    },
}

STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}


def function_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The request's Anthropic-style tools as Chat Completions function tools."""
    functions = []
    for tool in tools:
        if tool.get("name") == TOOL_NAME:
            functions.append(EDITOR_FUNCTION)
            continue
        function = {"name": tool["name"], "parameters": tool.get("input_schema") or {}}
        if tool.get("description"):
            function["description"] = tool["description"]
        functions.append({"type": "function", "function": function})
    return functions


def _text_of(content: Any) -> str:
    """The text of a message or tool result content (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    return "\n\n".join(b.get("text", "") for b in content if b.get("type") == "text")


def chat_messages(request: TurnRequest) -> list[dict[str, Any]]:
    """The request's system prompt and conversation as Chat Completions messages."""
    messages: list[dict[str, Any]] = []
    system = _text_of(request.system)
    if system:
        messages.append({"role": "system", "content": system})
    for message in request.messages:
        content = message["content"]
        if message["role"] == "assistant":
            messages.append(_assistant_message(content))
            continue
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for block in blocks:
            if block.get("type") == "tool_result":
                messages.append(
                    {
                        "role": "tool",
                        "tool_call_id": block["tool_use_id"],
                        "content": _text_of(block.get("content", "")),
                    }
                )
        text = _text_of(blocks)
        if text:
            messages.append({"role": "user", "content": text})
    return messages


def _assistant_message(content: list[dict[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": _text_of(content) or None}
    calls = [
        {
            "id": block["id"],
            "type": "function",
            "function": {"name": block["name"], "arguments": json.dumps(block.get("input", {}))},
        }
        for block in content
        if block.get("type") == "tool_use"
    ]
    if calls:
        message["tool_calls"] = calls
    return message


@record(kw_only=True)
class OpenAIProvider:
    """Answers a :class:`TurnRequest` through a Chat Completions server, always streaming."""

    name = "openai"
    api_key: str | None = None
    base_url: str | None = None
    max_retries: int = 4
    timeout_s: float = 600.0
    max_turn_chars: int = MAX_TURN_CHARS

    def complete(self, request: TurnRequest, on_text: TextSink) -> AssistantTurn:
        import openai

        _ = self.client  # the SDK's import is not the request's time
        deadline = Deadline(self.timeout_s)
        try:
            with pacing(deadline, on_text):
                return self._stream_once(request, on_text, deadline)
        except ModelError:
            raise
        except RetryWaitTooLong as exc:
            raise exc.model_error(self.timeout_s) from None
        except Exception as exc:
            deadline.check()  # a read cut at the deadline: said as the time being up
            if deadline.passed:
                raise self._timed_out() from None
            if isinstance(exc, openai.APIError):
                raise self._model_error(exc, request.model) from None
            if isinstance(exc, transport_errors()):
                raise ModelError(
                    f"the response stream broke off: {describe_cause(exc)}",
                    "check the network; " + RESUME_HINT,
                ) from None
            if isinstance(exc, json.JSONDecodeError):  # a data: line that is not JSON
                raise self._unreadable(f"JSONDecodeError: {exc}") from None
            raise

    @cached_property
    def client(self) -> openai.OpenAI:
        """The SDK client, made on the first request (importing the SDK is slow)."""
        import openai

        register_secret(self.api_key)
        return paced(openai.OpenAI)(
            api_key=self.api_key,
            base_url=self.base_url,
            max_retries=self.max_retries,
            timeout=self.timeout_s,
        )

    def _stream_once(
        self, request: TurnRequest, on_text: TextSink, deadline: Deadline
    ) -> AssistantTurn:
        params: dict[str, Any] = {
            "model": request.model,
            "messages": chat_messages(request),
            "max_tokens": request.max_tokens,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            params["tools"] = function_tools(request.tools)
        if request.tool_choice and request.tool_choice.get("type") == "tool":
            forced = {"name": request.tool_choice["name"]}
            params["tool_choice"] = {"type": "function", "function": forced}
        answer = ChatAnswer(TurnSize(self.max_turn_chars), request.model)
        stream = self.client.chat.completions.create(**params)
        require_event_stream(stream.response, self._url())
        deadline.watch(stream.response)
        try:
            for chunk in stream:
                if text := answer.take(chunk):
                    self._check_text(text)
                    on_text(text)
                deadline.check()
                if deadline.passed:
                    raise self._timed_out()
        finally:
            deadline.cancel()
        deadline.check()  # a stream that ended as the time ran out was cut, not finished
        if deadline.passed and answer.finish_reason is None:
            raise self._timed_out()
        calls = answer.calls()
        for call in calls:  # a "\\ud800" escape in the JSON decodes to a lone surrogate
            self._check_text(
                call["name"] + json.dumps(_tool_input(call["arguments"]), ensure_ascii=False)
            )
        if answer.finish_reason is None:
            raise ModelError(
                "the response stream ended before the answer was complete",
                "check the network; " + RESUME_HINT,
            )
        usage = reported_usage("the server", answer.figures)
        return _assistant_turn(answer.text(), calls, answer.finish_reason, usage, answer.model)

    def _timed_out(self) -> ModelError:
        return timed_out_error(self._url(), self.timeout_s)

    def _unreadable(self, detail: str) -> ModelError:
        return ModelError(
            f"the response from {self._url()} could not be read: {detail}", RESUME_HINT
        )

    def _check_text(self, text: str) -> None:
        if has_lone_surrogate(text):
            raise self._unreadable("the text holds a lone surrogate, which is not valid Unicode")

    def _url(self) -> str:
        return str(self.client.base_url).rstrip("/")

    def _model_error(self, exc: Exception, model: str) -> ModelError:
        import openai

        url = self._url()
        if isinstance(exc, openai.APIStatusError):
            return _status_error(exc, model)
        unreachable = unreachable_error(
            exc,
            openai,
            url=url,
            timeout_s=self.timeout_s,
            hint="check that the server is running and that OPENAI_BASE_URL or model.base_url names it",
        )
        return unreachable or self._unreadable(describe_cause(exc))


def _status_error(exc: openai.APIStatusError, model: str) -> ModelError:
    detail = _api_message(exc)
    if exc.status_code == 400 and "tool" in detail.lower():
        return ModelError(
            f"model {model!r} does not support tool calls (400): {detail}",
            "choose a model with function calling, e.g. qwen2.5-coder or llama3.1 on Ollama",
        )
    return status_error(exc.status_code, detail, model, STATUS_HINTS)


def _api_message(exc: openai.APIStatusError) -> str:
    """The server's own error message from its JSON error body, else the SDK's text."""
    body = exc.body
    error = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(error, dict) and error.get("message"):
        return str(error["message"])
    return str(exc.message)


def _tool_input(arguments: str) -> Any:
    """A tool call's arguments as JSON; text that is not JSON goes back to the model as is."""
    try:
        return json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return arguments


def _assistant_turn(
    text: str, calls: list[dict[str, str]], finish_reason: str, usage: Usage, model: str
) -> AssistantTurn:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [
        {
            "type": "tool_use",
            "id": call["id"] or f"call_{index}",
            "name": call["name"],
            "input": _tool_input(call["arguments"]),
        }
        for index, call in enumerate(calls)
    ]
    # Some local servers end a tool-calling answer with finish_reason "stop".
    stop_reason = "tool_use" if calls else STOP_REASONS.get(finish_reason, "end_turn")
    if finish_reason == "content_filter":
        raise ModelError(
            "the model declined to answer (finish_reason: content_filter)",
            "reword the spec or the feedback and run again",
        )
    if not content:
        raise ModelError(
            f"the model sent an empty response (finish_reason: {finish_reason})", RESUME_HINT
        )
    return AssistantTurn(content=content, stop_reason=stop_reason, usage=usage, model=model)
