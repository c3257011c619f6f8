"""Full collections held off by screens in any order (``tui/full_collections.py``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from orch_tui.tui import full_collections


@pytest.fixture
def threshold() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    yield before
    gc.set_threshold(*before)


def test_held_until_the_last_holder_lets_go_in_any_order(threshold: tuple[int, int, int]) -> None:
    review, history = object(), object()
    full_collections.hold(review)
    assert gc.get_threshold()[:2] == threshold[:2]  # young collections go on
    assert gc.get_threshold()[2] > 1_000_000  # no full one
    full_collections.hold(history)
    full_collections.hold(history)  # holding twice is holding once
    full_collections.let_go(history)
    assert full_collections.held() and gc.get_threshold()[2] > 1_000_000
    full_collections.let_go(review)
    assert not full_collections.held() and gc.get_threshold() == threshold


def test_letting_go_without_holding_changes_nothing(threshold: tuple[int, int, int]) -> None:
    review = object()
    full_collections.hold(review)
    full_collections.let_go(object())
    assert full_collections.held()
    full_collections.let_go(review)
    full_collections.let_go(review)
    assert gc.get_threshold() == threshold


def test_nothing_is_frozen_or_unfrozen(threshold: tuple[int, int, int]) -> None:
    """start-up's frozen objects stay frozen through a review and a history list."""
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        holder = object()
        full_collections.hold(holder)
        full_collections.let_go(holder)
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
