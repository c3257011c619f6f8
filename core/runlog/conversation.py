"""``conversation.json``: one attempt's model conversation, each turn's content held once.

The file holds the requests' ``model``, ``system`` and ``tools``, the ``messages`` sent and
received, and a record of each model turn (``turns``: stop reason, usage, model, cost), which
the replay (``--script logs/<run_id>``) turns back into the model's answers and history reads
the model's text from.

Version 2 (``"version": 2``): a turn's record names the assistant message that holds its
content (``"message": index``) instead of repeating it. A turn that writes 200 files carries
their texts, and version 1 (no ``"version"`` key) held them twice, in the message and in the
turn's ``content``: 8 MB of JSON written before a 200-file proposal could be reviewed. Both
versions are read by :func:`turns_with_content`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

VERSION = 2


def conversation_record(
    model: str,
    system: Any,
    tools: Any,
    messages: Sequence[dict[str, Any]],
    turns: Sequence[dict[str, Any]],
) -> dict[str, Any]:
    """The file's content; ``turns``: :func:`turn_record`'s, one per assistant message."""
    return {
        "version": VERSION,
        "model": model,
        "system": system,
        "tools": tools,
        "messages": messages,
        "turns": turns,
    }


def turn_record(turn: Mapping[str, Any], message: int) -> dict[str, Any]:
    """``turn`` (``AssistantTurn.to_json()``) without its content, which is ``messages[message]``'s."""
    record = {key: value for key, value in turn.items() if key != "content"}
    record["message"] = message
    return record


def assistant_indexes(messages: Sequence[Mapping[str, Any]]) -> list[int]:
    """The positions of the assistant's messages: the n-th is the n-th turn's."""
    return [index for index, message in enumerate(messages) if message.get("role") == "assistant"]


def turns_with_content(conversation: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Every turn's record with its ``content``, from a file of either version.

    Raises ``ValueError`` (or ``KeyError``, ``TypeError``) for a record that names no
    assistant message, as the replay must not answer with a turn it cannot rebuild.
    """
    messages = conversation.get("messages") or []
    turns = []
    for record in conversation.get("turns") or []:
        if "content" in record:  # version 1
            turns.append(dict(record))
            continue
        index = record["message"]
        if not isinstance(index, int) or not 0 <= index < len(messages):
            raise ValueError(f"turn names message {index!r}, of {len(messages)}")
        message = messages[index]
        if message.get("role") != "assistant" or not isinstance(message.get("content"), list):
            raise ValueError(f"message {index} is not an assistant turn's")
        turns.append({**record, "content": message["content"]})
    return turns
