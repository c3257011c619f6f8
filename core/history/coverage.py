"""An attempt's coverage record read back, and the last one before an attempt.

The checks of an attempt write ``attempt-NN/coverage.json`` (``core.checks.coverage_map``'s
:func:`~orch_tui.core.checks.coverage_map.coverage_record`): which tests ran each line of the
workspace as it stood after that attempt's change landed. A proposal under review is made
against that workspace, so the last record before its attempt says which tests run the lines
it replaces.
"""

from __future__ import annotations

from pathlib import Path

from orch_tui.core.checks.coverage_map import CoverageMap, CoverageUnavailable, coverage_from_record
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.reader import read_json_file


def attempt_coverage(run_folder: Path, attempt: int) -> CoverageMap | CoverageUnavailable | None:
    """The coverage record of ``attempt``; None when it has none or it is damaged."""
    path = run_folder / runlog.attempt_dir_name(attempt) / runlog.COVERAGE
    if not path.is_file():
        return None
    data, problem = read_json_file(path)
    return None if problem else coverage_from_record(data)


def last_coverage(run_folder: Path, before: int) -> tuple[int, CoverageMap] | None:
    """The latest attempt before ``before`` whose checks measured coverage, and its map.

    An attempt without a record where nothing landed is passed over: the workspace is as the
    one before it left it. One whose coverage was unavailable, or that landed a change with no
    record, ends the search: nothing older is shown as if it measured the workspace of now.
    """
    for attempt in range(before - 1, -1, -1):
        measured = attempt_coverage(run_folder, attempt)
        if isinstance(measured, CoverageMap):
            return attempt, measured
        if measured is not None or _landed(run_folder, attempt):
            return None
    return None


def _landed(run_folder: Path, attempt: int) -> bool:
    """Whether ``attempt`` wrote a change to the workspace (or its record cannot say)."""
    path = run_folder / runlog.attempt_dir_name(attempt) / runlog.APPLIED
    if not path.exists():
        return False
    data, problem = read_json_file(path)
    return problem is not None or not isinstance(data, dict) or bool(data.get("files"))
