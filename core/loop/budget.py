"""The run's usage and its cost budget: every model turn counted, every request capped.

Each turn's tokens and dollars (priced at the model that answered, or as the provider
reported them) add up in ``state.json``; the budget (``--max-cost-usd``) is checked before
each model step and caps each request's ``max_tokens`` (:mod:`orch_tui.core.domain.budget`).
"""

from __future__ import annotations

from collections.abc import Mapping

from orch_tui.core.config.models import Price
from orch_tui.core.domain.budget import request_max_tokens
from orch_tui.core.domain.cost import price_for, usage_cost
from orch_tui.core.domain.events import ModelTurn
from orch_tui.core.domain.state import State
from orch_tui.core.providers.base import AssistantTurn, Provider


def budget_spent(spent: float, budget: float | None) -> bool:
    """Whether the run has spent its whole cost budget (never, without one)."""
    return budget is not None and spent >= budget


def capped_max_tokens(
    asked: int,
    model: str,
    *,
    provider: Provider,
    prices: Mapping[str, Price],
    budget: float | None,
    spent: float,
) -> int:
    """``asked`` capped by the cost budget left; BudgetSpent when no request fits in it.

    A provider that reports its own cost (Claude Code) needs no price, and takes no cap.
    """
    if getattr(provider, "reports_cost", False):
        return asked
    return request_max_tokens(asked, budget, spent, price_for(prices, model), model)


def count_usage(
    state: State, attempt: int, index: int, turn: AssistantTurn, price: Price | None
) -> ModelTurn:
    """Add ``turn``'s tokens and cost to the run's totals; the event that says so."""
    state.usage = state.usage + turn.usage
    reported = turn.cost_usd
    state.cost_usd += reported if reported is not None else usage_cost(turn.usage, price)
    return ModelTurn(
        attempt=attempt,
        turn=index,
        stop_reason=turn.stop_reason,
        input_tokens=turn.usage.input_tokens,
        output_tokens=turn.usage.output_tokens,
        cache_write_tokens=turn.usage.cache_creation_input_tokens,
        cache_read_tokens=turn.usage.cache_read_input_tokens,
        run_tokens=state.usage.total,
        run_cost_usd=round(state.cost_usd, 6),
    )
