"""A replay that runs out of recorded turns says so plainly, not as a model error."""

from __future__ import annotations

from pathlib import Path

import pytest

from orch_tui.core.loop.engine import EXIT_FAILED
from tests.core.loop.test_engine import BAD, TEST, make_engine, state_of
from tests.support.scripting import attempt, create


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    (tmp_path / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    return tmp_path


def test_a_replay_past_its_recording_stops_saying_it_diverged(project: Path) -> None:
    engine, _ = make_engine(
        project, [attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST))]
    )

    assert engine.run() == EXIT_FAILED
    state = state_of(project)
    assert state.stop_reason.startswith("the recording has no more turns: this replay diverged")
    assert "model error" not in state.stop_reason
    assert not state.retryable  # the same replay would diverge the same way again
