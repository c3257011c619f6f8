"""Counted nouns in messages: "1 attempt", "2 attempts", "1 entry"."""

from __future__ import annotations


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``count`` with its noun in the right number (``plural_form`` defaults to noun + s)."""
    noun = singular if count == 1 else plural_form or f"{singular}s"
    return f"{count:,} {noun}"


def planning_cost(tokens: int, cost_usd: float) -> str:
    """``3,940 tokens, $0.0108``: what a plan-mode run's planning turn took, as every reader
    (status, the summary line, the plan's event) words it."""
    return f"{tokens:,} tokens, ${cost_usd:.4f}"
