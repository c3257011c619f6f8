"""Token usage to dollars, from the config's price table."""

from __future__ import annotations

from core.config import Price
from core.providers.base import Usage

PER_TOKENS = 1_000_000


def usage_cost(usage: Usage, price: Price | None) -> float:
    """Dollars for ``usage``; 0 when the model has no price (the caller says so once)."""
    if price is None:
        return 0.0
    return (
        usage.input_tokens * price.input
        + usage.output_tokens * price.output
        + usage.cache_creation_input_tokens * price.cache_write
        + usage.cache_read_input_tokens * price.cache_read
    ) / PER_TOKENS
