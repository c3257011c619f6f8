"""Prices: a dated model id costs what its family costs; an unknown one has no price."""

from __future__ import annotations

from orch_tui.core.config.models import Config
from orch_tui.core.domain.cost import price_for, usage_cost
from orch_tui.core.providers.base import Usage


def test_a_dated_model_id_is_priced_by_its_family() -> None:
    prices = Config().prices
    assert price_for(prices, "claude-sonnet-4-5-20250929") == prices["claude-sonnet-4-5"]
    assert price_for(prices, "claude-sonnet-4-5") == prices["claude-sonnet-4-5"]
    cost = usage_cost(
        Usage(input_tokens=1_000_000), price_for(prices, "claude-sonnet-4-5-20250929")
    )
    assert cost == 3.0


def test_an_unknown_model_has_no_price() -> None:
    prices = Config().prices
    assert price_for(prices, "claude-new-9") is None
    assert price_for(prices, "claude-new-9-20300101") is None
