"""Full collections held off by screens in any order (``tui/full_collections.py``)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from orch_tui.tui import full_collections


@pytest.fixture
def threshold() -> Iterator[tuple[int, int, int]]:
    before, enabled = gc.get_threshold(), gc.isenabled()
    gc.enable()
    yield before
    gc.set_threshold(*before)
    if not enabled:
        gc.disable()


def full_collections_run() -> int:
    return int(gc.get_stats()[2]["collections"])


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


def test_no_full_collection_runs_while_held_and_one_comes_once_let_go(
    threshold: tuple[int, int, int],
) -> None:
    """As many new containers as the collector tracks already: a full collection is due."""
    review = object()
    full_collections.hold(review)
    before = full_collections_run()
    kept = [[] for _ in range(len(gc.get_objects()))]
    assert full_collections_run() == before
    full_collections.let_go(review)
    more = [[] for _ in range(len(kept))]
    assert full_collections_run() > before
    del kept, more


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
