"""One streamed Messages API answer assembled from its raw events, in linear time.

The SDK's own stream helper rebuilds the text with ``+=`` and parses a tool call's whole JSON
so far on every delta: quadratic, so 2 MB took seconds and 20 MB never finished. Here each
block's pieces are collected in a list and joined once at the block's end, every piece is
counted against the turn's :class:`TurnSize` as it arrives, and the usage figures are checked
(:mod:`core.providers.figures`). A stream the assembler cannot make sense of raises
``ValueError``, ``LookupError`` or ``TypeError``, which the provider treats as unreadable.
"""

from __future__ import annotations

import json
from typing import Any

from orch_tui.core.domain.cost import Usage
from orch_tui.core.providers.base import has_lone_surrogate
from orch_tui.core.providers.figures import reported_usage
from orch_tui.core.providers.turn_size import TurnSize
from orch_tui.core.util.records import record

_PIECES = {"text_delta": "text", "input_json_delta": "partial_json", "thinking_delta": "thinking"}
"""Delta types that add text to their block, and the field that holds it."""


@record(frozen=True)
class AssembledMessage:
    """The answer: content blocks as the API's dicts, and what ended it."""

    content: list[dict[str, Any]]
    stop_reason: str | None
    usage: Usage
    model: str


def _as_dict(model: Any) -> dict[str, Any]:
    data: dict[str, Any] = model.to_dict() if hasattr(model, "to_dict") else dict(model)
    return data


def _figures(usage: Any) -> dict[str, Any]:
    """The usage figures an event reports (those it leaves out or sets to null are absent)."""
    if usage is None:
        return {}
    fields = Usage.__dataclass_fields__
    if isinstance(usage, dict):
        return {k: v for k, v in usage.items() if k in fields and v is not None}
    return {k: v for k in fields if (v := getattr(usage, k, None)) is not None}


class MessageAssembler:
    """Takes the raw stream events of one answer in order; :meth:`message` gives the answer."""

    def __init__(self, size: TurnSize, source: str) -> None:
        self._size = size
        self._source = source
        self._model = ""
        self._figures: dict[str, Any] = {}
        self._stop_reason: str | None = None
        self._blocks: dict[int, dict[str, Any]] = {}
        self._parts: dict[int, list[str]] = {}

    def feed(self, event: Any) -> str:
        """Take one event; returns the text it adds to the answer, to show ("" for none)."""
        kind = getattr(event, "type", None)
        if kind == "message_start":
            self._model = str(event.message.model or "")
            self._figures.update(_figures(event.message.usage))
        elif kind == "content_block_start":
            self._blocks[int(event.index)] = _as_dict(event.content_block)
            self._parts[int(event.index)] = []
        elif kind == "content_block_delta":
            return self._delta(int(event.index), event.delta)
        elif kind == "content_block_stop":
            self._close(int(event.index))
        elif kind == "message_delta":
            self._stop_reason = event.delta.stop_reason or self._stop_reason
            self._figures.update(_figures(event.usage))
        return ""

    def _delta(self, index: int, delta: Any) -> str:
        block = self._blocks[index]
        kind = getattr(delta, "type", None)
        if kind == "signature_delta":
            block["signature"] = str(delta.signature)
            return ""
        if kind == "citations_delta":
            block.setdefault("citations", []).append(_as_dict(delta.citation))
            return ""
        field = _PIECES.get(str(kind))
        if field is None:
            return ""  # a delta type this version does not know: nothing to add
        piece = getattr(delta, field)
        if not isinstance(piece, str):
            raise TypeError(f"a {kind} carries {type(piece).__name__}, not text")
        if has_lone_surrogate(piece):
            raise ValueError("the text holds a lone surrogate, which is not valid Unicode")
        self._size.add(piece)
        self._parts[index].append(piece)
        return piece if kind == "text_delta" else ""

    def _close(self, index: int) -> None:
        block = self._blocks[index]
        joined = "".join(self._parts.pop(index, []))
        if block.get("type") == "tool_use":
            block["input"] = json.loads(joined) if joined else block.get("input") or {}
            if has_lone_surrogate(json.dumps(block["input"], ensure_ascii=False)):
                raise ValueError("the tool input holds a lone surrogate, not valid Unicode")
        elif block.get("type") in ("text", "thinking"):
            key = str(block["type"])
            block[key] = str(block.get(key) or "") + joined

    def message(self) -> AssembledMessage:
        """The answer so far; ``stop_reason`` None when the stream ended before it was whole."""
        for index in list(self._parts):
            self._close(index)
        content = [self._blocks[i] for i in sorted(self._blocks)]
        usage = reported_usage(self._source, self._figures)
        return AssembledMessage(content, self._stop_reason, usage, self._model)
