"""The cost budget, checked before every model request so a run cannot overshoot it.

Each request's ``max_tokens`` is capped by what the budget has left at the model's output
price, and a request the budget cannot cover is not sent at all. A model with no known price
cannot be counted against a budget: it is never taken to be free.
"""

from __future__ import annotations

from orch_tui.core.config.models import Price
from orch_tui.core.domain.cost import PER_TOKENS

MIN_REQUEST_TOKENS = 256
"""A request that may answer with fewer output tokens than this is not worth sending."""


class BudgetSpent(Exception):
    """The next request does not fit in the cost budget; the message says why, for a person."""


def request_max_tokens(
    max_tokens: int, budget: float | None, spent: float, price: Price | None, model: str
) -> int:
    """``max_tokens`` for the next request, capped by the budget left; BudgetSpent: send none."""
    if budget is None:
        return max_tokens
    if price is None:
        raise BudgetSpent(
            f"cost budget ${budget:.4f} cannot be kept: model {model} has no known price "
            f'(add [prices."{model}"] to orchestrator.toml)'
        )
    left = budget - spent
    affordable = int(left * PER_TOKENS / price.output) if price.output > 0 else max_tokens
    if affordable < MIN_REQUEST_TOKENS:
        raise BudgetSpent(
            f"cost budget spent: ${spent:.4f} of ${budget:.4f}; the ${max(left, 0):.4f} left "
            f"buys fewer than {MIN_REQUEST_TOKENS} output tokens of {model}"
        )
    return min(max_tokens, affordable)
