"""A cap on how much one assistant turn may stream, counted as it arrives.

A server that streams without end (or a model stuck repeating itself) would otherwise fill
memory and the logs; the cap is checked on every piece, so it stops the stream at once.
"""

from __future__ import annotations

from orch_tui.core.providers.base import ModelError

MAX_TURN_CHARS = 1_000_000
"""The most text, thinking and tool input one turn may hold: ample for a turn's files."""


class TurnSize:
    """Counts the characters of one turn; ModelError the moment they pass ``limit``."""

    def __init__(self, limit: int = MAX_TURN_CHARS) -> None:
        self.limit = limit
        self.used = 0

    def add(self, piece: str) -> None:
        self.used += len(piece)
        if self.used > self.limit:
            raise ModelError(
                f"the model's answer passed {self.limit:,} characters of text and tool input "
                "in one turn, so it was stopped there and nothing of it was kept",
                "the model may be repeating itself: run again, or split the spec into steps",
            )
