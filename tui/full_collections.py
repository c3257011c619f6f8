"""Full garbage collections held off while a screen keeps many long-lived objects.

A full collection walks every object the collector tracks: with a 200-file proposal under
review, or 100,000 runs in the history list, that is about 0.1 s in the middle of a key, every
few keys. A screen holding such objects calls :func:`hold` with itself and :func:`let_go` when
it is done with them; while anyone holds, the oldest generation's threshold is out of reach, so
only the young generations are collected. Screens hold and let go in any order (the history
opened over a review lets go while the review still holds), and nothing is frozen: start-up's
frozen objects (``cli.executable.start_collecting``) stay frozen, and what the screens held is
collectable again once the last lets go.
"""

from __future__ import annotations

import gc

_OUT_OF_REACH = 1_000_000_000
"""Young collections between two full ones while held: never, in practice."""

_holders: set[int] = set()
_saved_threshold: tuple[int, int, int] | None = None


def hold(holder: object) -> None:
    """Keep full collections off until ``holder`` (and every other holder) lets go."""
    global _saved_threshold
    if not _holders:
        _saved_threshold = gc.get_threshold()
        young, middle, _old = _saved_threshold
        gc.set_threshold(young, middle, _OUT_OF_REACH)
    _holders.add(id(holder))


def let_go(holder: object) -> None:
    """``holder`` no longer needs full collections held off; nothing if it did not hold."""
    global _saved_threshold
    if id(holder) not in _holders:
        return
    _holders.discard(id(holder))
    if not _holders and _saved_threshold is not None:
        gc.set_threshold(*_saved_threshold)
        _saved_threshold = None


def held() -> bool:
    """Whether some screen holds full collections off."""
    return bool(_holders)
