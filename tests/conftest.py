"""Shared fixtures: a fresh fake Messages API server and project folder per test (xdist-safe)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, settings

from tests.support.e2e_support import Project, make_project
from tests.support.fake_anthropic import FakeAnthropic

if TYPE_CHECKING:
    from tests.core.history.test_history import DemoProject

# The suite runs in parallel on two cores beside real pytest subprocesses, so example
# generation can be slow through no fault of the code: time is not what these tests check.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (the suite's default): one worker more than the cores. Many tests wait on
    real subprocesses, tmux and a Ray head more than they compute, so with a worker per core
    a core often sat idle: on 2 cores the suite took 9 min 50 s with 2 workers, 8 min 18 s
    with 3, in turn on the same clone."""
    return (os.cpu_count() or 1) + 1


LONG_MARKERS = ("slow", "e2e", "tmux")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests (marked slow, e2e or tmux: seconds to a minute each) run first, the
    rest keep their order. One of them started last would keep the run going after the other
    workers are done; started first, the short tests fill in around them."""
    items.sort(key=lambda item: not any(item.get_closest_marker(m) for m in LONG_MARKERS))


@pytest.fixture
def anyio_backend() -> str:
    """The async tests (Textual's Pilot) run on asyncio only, even where trio is installed
    (anyio's own fixture would run each on every backend it finds)."""
    return "asyncio"


@pytest.fixture
def fake_server() -> Iterator[Callable[..., FakeAnthropic]]:
    """Start a :class:`FakeAnthropic` on a free 127.0.0.1 port: ``fake_server(script, **kw)``.

    Every server started is stopped when the test ends.
    """
    started: list[FakeAnthropic] = []

    def start(script: Any = (), **kwargs: Any) -> FakeAnthropic:
        server = FakeAnthropic(script, **kwargs).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def project_factory(tmp_path: Path) -> Callable[..., Project]:
    """Make a project folder under this test's tmp dir: ``project_factory(spec_text=..., ...)``.

    Takes :func:`tests.support.e2e_support.make_project`'s keywords; ``name`` picks the sub-folder.
    """

    def make(name: str = "project", **kwargs: Any) -> Project:
        return make_project(tmp_path / name, **kwargs)

    return make


@pytest.fixture(autouse=True)
def _own_ui_state(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each test remembers UI choices (theme, layout) in a state folder of its own, not ~."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("state")))


@pytest.fixture(scope="session")
def demo_runs(tmp_path_factory: pytest.TempPathFactory) -> DemoProject:
    """Three real runs (a success, a failure, an unfinished one), built once per session (per
    xdist worker) for both history test files; tests copy the folder before touching it."""
    from tests.core.history.test_history import make_demo_project

    return make_demo_project(tmp_path_factory.mktemp("history") / "project")
