"""The contract every model provider keeps.

A provider answers one request with one assistant turn. The tool-use
conversation around it (running the editor tool, sending results back,
bounding the number of turns) lives in :mod:`core.attempt`, so the Anthropic
provider and the scripted provider go through exactly the same engine code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol


@dataclass
class Usage:
    """Token counts of one response (or a sum of several)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
        )

    @property
    def total(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_creation_input_tokens
            + self.cache_read_input_tokens
        )

    def to_json(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Usage:
        data = data or {}
        return cls(**{k: int(data.get(k) or 0) for k in cls.__dataclass_fields__})


@dataclass
class TurnRequest:
    """Everything one Messages API request carries, in the API's own shapes."""

    model: str
    system: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    max_tokens: int
    attempt: int = 0
    """Which attempt of the run this request belongs to (never sent to the API; replay uses it)."""


@dataclass
class AssistantTurn:
    """One complete assistant message: content blocks as API dicts."""

    content: list[dict[str, Any]]
    stop_reason: str
    usage: Usage = field(default_factory=Usage)
    model: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "stop_reason": self.stop_reason,
            "usage": self.usage.to_json(),
            "model": self.model,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AssistantTurn:
        return cls(
            content=list(data["content"]),
            stop_reason=str(data.get("stop_reason") or "end_turn"),
            usage=Usage.from_json(data.get("usage")),
            model=str(data.get("model") or ""),
        )


class ModelError(Exception):
    """The model could not answer; the message is meant for a person.

    ``hint`` says what the person can do about it (set a key, check the
    network, retry later).
    """

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


TextSink = Callable[[str], None]


class Provider(Protocol):
    """Answers one request with one assistant turn, streaming text to ``on_text``."""

    name: str

    def complete(self, request: TurnRequest, on_text: TextSink) -> AssistantTurn: ...
