"""Token usage, and what it costs by the config's price table."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from orch_tui.core.config.models import Price

PER_TOKENS = 1_000_000

_DATED = re.compile(r"^(?P<family>.+)-\d{8}$")
"""``claude-sonnet-4-5-20250929``: a dated snapshot of ``claude-sonnet-4-5``."""


def price_for(prices: Mapping[str, Price], model: str) -> Price | None:
    """The model's price: its own entry, else its family's for a dated id; None when unknown."""
    if model in prices:
        return prices[model]
    dated = _DATED.match(model)
    return prices.get(dated["family"]) if dated else None


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
