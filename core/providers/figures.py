"""Usage and cost figures as a provider reports them, checked before anything stores them.

A server (or a proxy in front of it, or Claude Code) can report any JSON: a negative count, a
float, NaN, a string, a number larger than any response. Such a figure would be summed into
``state.json`` (after which every command refuses the file) or let a negative cost slip past
``--max-cost-usd``; here it becomes a :class:`ModelError` and nothing is recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orch_tui.core.domain.cost import Usage, cost_figure
from orch_tui.core.providers.base import RESUME_HINT, ModelError


def reported_usage(source: str, figures: Mapping[str, Any] | None) -> Usage:
    """The usage ``source`` reported (its figures by the Messages API's names), checked."""
    if figures is not None and not isinstance(figures, Mapping):
        raise bad_figure(source, f"usage is {type(figures).__name__}, not an object")
    try:
        return Usage.checked(figures or {})
    except ValueError as exc:
        raise bad_figure(source, str(exc)) from None


def reported_cost(source: str, value: Any) -> float:
    """The dollars ``source`` reported for a request, checked."""
    try:
        return cost_figure("total_cost_usd", value)
    except ValueError as exc:
        raise bad_figure(source, str(exc)) from None


def bad_figure(source: str, detail: str) -> ModelError:
    return ModelError(
        f"{source} reported an impossible usage figure ({detail}); nothing was recorded",
        "check what answers at the provider's address; " + RESUME_HINT,
    )
