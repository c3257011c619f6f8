"""How an attempt ended, as history tells it."""

from __future__ import annotations

from enum import StrEnum


class AttemptOutcome(StrEnum):
    """An attempt's outcome in history. An attempt still under way has the run's state
    (:class:`~orch_tui.core.domain.state.RunState`) instead."""

    PASSED = "passed"
    FAILED = "failed"
    REJECTED = "rejected"
    """Every hunk was rejected, or the proposal as a whole."""
    NO_CHANGE = "no change"
    ASKED = "asked"
    """The model asked a person instead of proposing a change."""
    PLANNED = "planned"
    """Plan mode: the attempt that wrote the plan."""
    STOPPED = "stopped"
    """The run ended here for another reason (its stop reason says which)."""
    UNKNOWN = "unknown"
    """A folder the event log does not mention."""


DECIDED_OUTCOMES = frozenset(
    {
        AttemptOutcome.PASSED,
        AttemptOutcome.FAILED,
        AttemptOutcome.REJECTED,
        AttemptOutcome.NO_CHANGE,
        AttemptOutcome.ASKED,
    }
)
"""Attempt outcomes that a later state change does not overwrite."""
