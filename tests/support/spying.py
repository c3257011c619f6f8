"""calls_to: what a function of ours is called with, the calls still going through.

For the tests that count work (an encoding, a hash, an escape done once, not twice): the real
function runs, so what the code under test writes is what it would write anyway."""

from __future__ import annotations

from typing import Any

import pytest


def calls_to(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[Any]:
    """The first argument of every call to ``owner.name`` from now on."""
    seen: list[Any] = []
    real = getattr(owner, name)

    def recording(first: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(first)
        return real(first, *args, **kwargs)

    monkeypatch.setattr(owner, name, recording)
    return seen
