"""One streamed Chat Completions answer, assembled from its chunks in linear time.

Each piece of text and of a tool call's name and arguments is kept in a list and joined once,
and counted against the turn's :class:`TurnSize` as it arrives. The usage figures are
gathered by the Messages API's names, for :func:`core.providers.figures.reported_usage`.
"""

from __future__ import annotations

from typing import Any

from orch_tui.core.providers.turn_size import TurnSize


class ChatAnswer:
    """One streamed answer, its pieces kept in lists (joined once: linear time) and counted
    against the turn's size cap as they arrive."""

    def __init__(self, size: TurnSize, model: str) -> None:
        self._size = size
        self.model = model
        self.finish_reason: str | None = None
        self.figures: dict[str, Any] = {}
        self._texts: list[str] = []
        self._calls: dict[int, dict[str, Any]] = {}

    def take(self, chunk: Any) -> str:
        """Take one chunk; returns the text it adds, to show."""
        self.model = chunk.model or self.model
        if chunk.usage is not None:
            self.figures = _figures(chunk.usage)
        added: list[str] = []
        for choice in chunk.choices:
            self.finish_reason = choice.finish_reason or self.finish_reason
            delta = choice.delta
            if delta.content:
                self._size.add(delta.content)
                self._texts.append(delta.content)
                added.append(delta.content)
            for call in delta.tool_calls or []:
                slot = self._calls.setdefault(call.index, {"id": "", "name": [], "arguments": []})
                slot["id"] = call.id or slot["id"]
                if call.function is not None:
                    for key in ("name", "arguments"):
                        piece = getattr(call.function, key) or ""
                        self._size.add(piece)
                        slot[key].append(piece)
        return "".join(added)

    def text(self) -> str:
        return "".join(self._texts)

    def calls(self) -> list[dict[str, str]]:
        return [
            {
                "id": call["id"],
                "name": "".join(call["name"]),
                "arguments": "".join(call["arguments"]),
            }
            for _, call in sorted(self._calls.items())
        ]


def _figures(usage: Any) -> dict[str, Any]:
    """The usage figures of a chunk, by the Messages API's names (cached tokens split out)."""
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) if details is not None else None
    prompt = getattr(usage, "prompt_tokens", None)
    if isinstance(prompt, int) and isinstance(cached, int) and not isinstance(cached, bool):
        prompt = max(0, prompt - cached)
    return {
        "input_tokens": prompt,
        "output_tokens": getattr(usage, "completion_tokens", None),
        "cache_read_input_tokens": cached,
    }
