"""Token usage, and what it costs by the config's price table."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from orch_tui.core.util.records import record

if TYPE_CHECKING:  # state.json's reader keeps usage figures: status loads no config models
    from orch_tui.core.config.models import Price

PER_TOKENS = 1_000_000

MAX_TOKEN_FIGURE = 100_000_000
"""More tokens than any one response reads or writes: a larger figure is a broken report."""
MAX_COST_FIGURE = 10_000.0
"""More dollars than any one request costs: a larger figure is a broken report."""

_DATED = re.compile(r"^(?P<family>.+)-\d{8}$")
"""``claude-sonnet-4-5-20250929``: a dated snapshot of ``claude-sonnet-4-5``."""


def price_for(prices: Mapping[str, Price], model: str) -> Price | None:
    """The model's price: its own entry, else its family's for a dated id; None when unknown."""
    if model in prices:
        return prices[model]
    dated = _DATED.match(model)
    return prices.get(dated["family"]) if dated else None


@record
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
    def checked(cls, figures: Mapping[str, Any]) -> Usage:
        """Usage from a provider's figures (absent or None: 0); ValueError names a bad one."""
        return cls(**{k: token_figure(k, figures.get(k)) for k in cls.__dataclass_fields__})

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


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def token_figure(name: str, value: Any) -> int:
    """A token count as a provider reported it: a whole number from 0 to
    :data:`MAX_TOKEN_FIGURE` (None: 0); ValueError says what is wrong with anything else."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} is {_shown(value)}, not a whole number of tokens")
    if not 0 <= value <= MAX_TOKEN_FIGURE:
        raise ValueError(f"{name} is {value}, outside 0 to {MAX_TOKEN_FIGURE:,}")
    return value


def cost_figure(name: str, value: Any) -> float:
    """Dollars as a provider reported them: a finite number from 0 to :data:`MAX_COST_FIGURE`;
    ValueError says what is wrong with anything else (None included: a cost must be reported)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{name} is {_shown(value)}, not a number of dollars")
    if not 0 <= value <= MAX_COST_FIGURE:
        raise ValueError(f"{name} is {value}, outside 0 to {MAX_COST_FIGURE:,.0f}")
    return float(value)
