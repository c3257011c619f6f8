"""Shared fixtures: a fresh fake Messages API server and project folder per test (xdist-safe)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_support import Project, make_project
from tests.fake_anthropic import FakeAnthropic


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

    Takes :func:`tests.e2e_support.make_project`'s keywords; ``name`` picks the sub-folder.
    """

    def make(name: str = "project", **kwargs: Any) -> Project:
        return make_project(tmp_path / name, **kwargs)

    return make
