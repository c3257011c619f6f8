"""Data files with the spec, in the loop: copied in, described in the cached prefix, never edited."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.datafiles.inputs import read_data_files
from orch_tui.core.domain.events import Event, EventBus, Notice
from orch_tui.core.domain.spec import read_spec
from orch_tui.core.loop.engine import EXIT_SUCCESS, Engine, RunOptions
from orch_tui.core.loop.review import AcceptAllReviewer
from orch_tui.core.workspace.run_workspace import WorkspaceError
from tests.core.loop.test_engine import GOOD, TEST, fast_config
from tests.support.scripting import CountingProvider, attempt, create, replace

SALES = "id,fruit,price\n1,apple,1.5\n2,pear,2\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    (tmp_path / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    (tmp_path / "sales.csv").write_text(SALES)
    return tmp_path


def data_engine(project: Path, attempts, events: list[Event] | None = None, workspace: str = ""):
    provider = CountingProvider(attempts)
    bus = EventBus()
    if events is not None:
        bus.subscribe(events.append)
    spec = dataclasses.replace(
        read_spec(project / "spec.md"), data=read_data_files([project / "sales.csv"])
    )
    engine = Engine(
        paths=ProjectPaths(project).with_workspace(workspace),
        config=fast_config(),
        spec=spec,
        provider=provider,
        reviewer=AcceptAllReviewer(),
        bus=bus,
        options=RunOptions(max_retries=2),
    )
    return engine, provider


def build_calc():
    return attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))


def test_the_data_is_copied_described_in_the_cached_prefix_and_never_edited(project: Path) -> None:
    engine, provider = data_engine(
        project,
        [
            [
                *attempt(replace("data/sales.csv", "apple", "APPLE"))[:1],
                *build_calc(),
            ]
        ],
    )

    assert engine.run() == EXIT_SUCCESS

    assert (project / "workspace" / "data" / "sales.csv").read_text() == SALES
    cached = provider.requests[0].system[-1]
    assert cached.get("cache_control") == {"type": "ephemeral"}
    assert '<data path="data/sales.csv">' in cached["text"]
    assert "columns (3): id (integer), fruit (text), price (decimal)" in cached["text"]
    assert "cannot be changed" in cached["text"]
    assert "view command" not in cached["text"]  # Claude Code gets this prefix: no editor tool
    refused = json.dumps(provider.requests[1].messages[-1])
    assert "data/sales.csv is a data file given with the spec" in refused
    assert '"is_error": true' in refused
    assert all(r.system == provider.requests[0].system for r in provider.requests)


def test_a_changed_data_file_starts_a_change_run_with_the_new_copy(project: Path) -> None:
    engine, _ = data_engine(project, [build_calc()])
    assert engine.run() == EXIT_SUCCESS
    first_run = engine.state.run_id

    (project / "sales.csv").write_text(SALES + "3,fig,4\n")
    events: list[Event] = []
    engine, _ = data_engine(project, [build_calc()], events)
    assert engine.run() == EXIT_SUCCESS

    assert engine.state.run_id != first_run
    notes = [e.message for e in events if isinstance(e, Notice)]
    assert any(n.startswith("the spec or its data files changed: run ") for n in notes), notes
    assert (project / "workspace" / "data" / "sales.csv").read_text() == SALES + "3,fig,4\n"


def test_a_different_file_already_at_the_data_path_is_not_overwritten(project: Path) -> None:
    existing = project / "mine"
    (existing / "data").mkdir(parents=True)
    (existing / "data" / "sales.csv").write_text("the person's own\n")
    engine, _ = data_engine(project, [build_calc()], workspace=str(existing))

    with pytest.raises(WorkspaceError, match="already exists and differs"):
        engine.run()
    assert (existing / "data" / "sales.csv").read_text() == "the person's own\n"
