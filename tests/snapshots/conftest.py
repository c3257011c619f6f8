"""What every snapshot here shares: a fixed run id, and no pytest plugins in the checks."""

from __future__ import annotations

import pytest

RUN_ID = "20260101-120000-snap"


@pytest.fixture(autouse=True)
def _deterministic_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setattr("orch_tui.core.loop.opening.new_run_id", lambda: RUN_ID)
