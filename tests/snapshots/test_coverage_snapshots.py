"""Snapshots of the diff's coverage marks: a hunk some test runs, and one no test runs."""

from __future__ import annotations

from typing import Any

import pytest

from orch_tui.core.checks.coverage_map import CoverageMap
from tests.support.coverage_project import measure, write_project
from tests.tui.widgets.diff.test_diff_coverage import covered_app


@pytest.fixture(scope="module")
def cmap(tmp_path_factory: pytest.TempPathFactory) -> CoverageMap:
    root = tmp_path_factory.mktemp("coverage-snapshot")
    _report, measured = measure(write_project(root / "workspace"), root / "reports")
    return measured


@pytest.mark.parametrize("layout", ["split", "unified"])
def test_diff_with_covered_and_uncovered_lines(
    snap_compare: Any, cmap: CoverageMap, layout: str
) -> None:
    assert snap_compare(covered_app(cmap, layout), terminal_size=(100, 20))
