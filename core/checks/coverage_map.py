"""Coverage per test and per hunk: which tests run each changed line (DESIGN section 15).

The test check runs under coverage.py with one context per test, its pytest node id:
:func:`write_coverage_config` writes the settings and the runner (``coverage_runner``, whose
plugin switches the context as each test starts) into the check's own reports folder (the
data file beside them, never in the workspace), and :func:`under_coverage` turns the
configured ``{python} -m pytest ARGS`` into ``{python} REPORTS/coverage_runner.py RCFILE
ARGS``. After the check,
:func:`read_coverage` reads the data file with coverage's API into a :class:`CoverageMap`:
for each workspace file, its statements and, for each executed line, the ids of the tests
that ran it (``tests/test_x.py::TestA::test_b``; one id per test function, parameters
folded). The rest is pure: per changed line whether anything executes it
(:func:`changed_line_coverage`), per hunk which tests run it (:func:`hunk_coverage`:
"run by test_a, test_b" / "no test runs this hunk"), and the proposal's count of changed
executable lines no test runs (:func:`uncovered_lines`). Blank lines, comments and the like
are not statements, so they are never "uncovered".

Coverage is evidence, never a gate: a missing or unreadable data file is a
:class:`CoverageUnavailable` with the reason, and the run goes on without it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from orch_tui.core.checks.pytest_config import RUNNER_NAME
from orch_tui.core.domain.proposal import ChangeKind, FileChange, Hunk, Proposal
from orch_tui.core.util.records import record

CONFIG_NAME = "coveragerc"
"""The coverage settings, in the check's reports folder."""
DATA_NAME = "coverage.data"
"""coverage.py's data file, in the check's reports folder."""
OMITTED = (".venv/*", "venv/*", "*/test_*.py", "*_test.py", "*/conftest.py", "test_*.py")
"""Relative to the workspace: installed code and the tests themselves are not measured."""


@record(frozen=True)
class CoverageUnavailable:
    """Coverage could not be measured or read; ``reason`` says why, for people."""

    reason: str

    def describe(self) -> str:
        return f"coverage unavailable: {self.reason}"


@record(frozen=True)
class FileCoverage:
    """One measured file: its statements, and the tests that ran each executed line.

    A line executed outside any test (importing the module, collecting the tests) is in
    ``executed`` with no test ids."""

    statements: frozenset[int]
    executed: Mapping[int, frozenset[str]] = field(default_factory=dict)


@record(frozen=True)
class CoverageMap:
    """Workspace-relative posix path -> :class:`FileCoverage`; lines are 1-based."""

    files: Mapping[str, FileCoverage]

    def tests_for(self, path: str, line: int) -> frozenset[str]:
        measured = self.files.get(path)
        return measured.executed.get(line, frozenset()) if measured else frozenset()

    def to_json(self) -> dict[str, Any]:
        return {
            path: {
                "statements": sorted(measured.statements),
                "executed": {str(n): sorted(ids) for n, ids in sorted(measured.executed.items())},
            }
            for path, measured in sorted(self.files.items())
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CoverageMap:
        return cls(
            {
                str(path): FileCoverage(
                    frozenset(int(n) for n in entry.get("statements") or ()),
                    {int(n): frozenset(map(str, ids)) for n, ids in entry["executed"].items()},
                )
                for path, entry in data.items()
            }
        )


def coverage_record(measured: CoverageMap | CoverageUnavailable) -> dict[str, Any]:
    """What an attempt's ``coverage.json`` holds (read back by :func:`coverage_from_record`)."""
    if isinstance(measured, CoverageUnavailable):
        return {"unavailable": measured.reason}
    return {"map": measured.to_json()}


def coverage_from_record(data: Any) -> CoverageMap | CoverageUnavailable | None:
    """An attempt's ``coverage.json`` read back; None when there is none or it is damaged."""
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("unavailable"), str):
        return CoverageUnavailable(data["unavailable"])
    try:
        return CoverageMap.from_json(data["map"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


# -- running the tests under coverage ---------------------------------------------------------


def coverage_config(workspace: Path, report_dir: Path) -> str:
    """The settings coverage runs with (an ini file): the workspace's own code, no branches
    (the runner's plugin sets the contexts)."""
    root = workspace.resolve()
    omit = ",\n    ".join(str(root / pattern) for pattern in OMITTED)
    return (
        "[run]\n"
        "branch = False\n"
        f"data_file = {report_dir.resolve() / DATA_NAME}\n"
        f"source =\n    {root}\n"
        f"omit =\n    {omit}\n"
    )


def write_coverage_config(workspace: Path, report_dir: Path) -> Path:
    """Write :func:`coverage_config` and the runner into ``report_dir``; an old data file is
    removed, so a check that writes none is never read with the last run's.

    ``report_dir`` is the check's own folder, which nothing reads before the check starts and a
    killed run's is swept: each file is written in place, without the temp file and rename of
    an atomic write (each a file made and a folder entry moved, in every attempt)."""
    report_dir.mkdir(parents=True, exist_ok=True)
    (report_dir / DATA_NAME).unlink(missing_ok=True)
    (report_dir / RUNNER_NAME).write_bytes(_runner_text().encode("utf-8"))
    path = report_dir / CONFIG_NAME
    path.write_bytes(coverage_config(workspace, report_dir).encode("utf-8"))
    return path


@functools.cache
def _runner_text() -> str:
    """The runner's source, read from the package once per process (it is written per check)."""
    return Path(__file__).with_name(RUNNER_NAME).read_text(encoding="utf-8")


def under_coverage(command: list[str], config: Path) -> list[str] | None:
    """``command`` (``PYTHON -m pytest ARGS``) run under coverage with ``config`` (by the runner
    beside it); None for a command of another shape (a script, tox), which then runs as it is,
    without coverage."""
    if len(command) < 3 or command[1:3] != ["-m", "pytest"]:
        return None
    return [command[0], str(config.with_name(RUNNER_NAME)), str(config), *command[3:]]


# -- reading the data --------------------------------------------------------------------------


def read_coverage(report_dir: Path, workspace: Path) -> CoverageMap | CoverageUnavailable:
    """The data file the check wrote in ``report_dir``, for the files under ``workspace``.

    Reads with coverage's own API (``CoverageData``: ``contexts_by_lineno``; the statements from
    its analysis of each file), so the data must come from a coverage of the same data format.
    The file is opened and read once, by ``Coverage.load``, whose data both questions ask.
    """
    data_file = report_dir / DATA_NAME
    if not data_file.is_file():
        return CoverageUnavailable("the tests wrote no coverage data")
    try:
        import coverage  # only when coverage is read: start-up stays lean
    except ImportError:
        return CoverageUnavailable("coverage.py is not installed with orch-tui")
    root = workspace.resolve()
    try:
        reader = coverage.Coverage(data_file=str(data_file), config_file=False)
        reader.load()
        data = reader.get_data()
        inside = [Path(name) for name in sorted(data.measured_files())]
        inside = [path for path in inside if path.is_relative_to(root) and path.is_file()]
        files: dict[str, FileCoverage] = {}
        for path in inside:
            statements = frozenset(reader.analysis2(str(path))[1])
            executed = {
                line: frozenset(filter(None, map(context_test_id, contexts)))
                for line, contexts in data.contexts_by_lineno(str(path)).items()
            }
            files[path.relative_to(root).as_posix()] = FileCoverage(statements, executed)
    except (coverage.CoverageException, OSError, ValueError) as exc:
        return CoverageUnavailable(f"the coverage data cannot be read: {exc}")
    return CoverageMap(files)


def context_test_id(context: str) -> str:
    """The test id of a context the runner set: the test's pytest node id with its parameters
    folded (``tests/test_x.py::TestA::test_b[1-2]`` -> ``tests/test_x.py::TestA::test_b``: one
    id per test function). Empty: outside any test."""
    path, sep, names = context.partition("::")
    return f"{path}{sep}{names.split('[', 1)[0]}" if sep else context


# -- per line, per hunk, per proposal (pure) ---------------------------------------------------


def changed_lines(change: FileChange) -> list[int]:
    """The 1-based lines of the new text a change adds or alters."""
    if change.kind is ChangeKind.DELETED:
        return []
    return [n + 1 for hunk in change.hunks for n in range(hunk.new_start, hunk.new_end)]


def changed_line_coverage(cmap: CoverageMap, change: FileChange) -> dict[int, bool | None]:
    """For each changed line: True if something executes it, False if it is a statement
    nothing executes, None if it is no statement or its file is not measured."""
    measured = cmap.files.get(change.path)
    result: dict[int, bool | None] = {}
    for line in changed_lines(change):
        if measured is None or line not in measured.statements:
            result[line] = None
        else:
            result[line] = line in measured.executed
    return result


@record(frozen=True)
class HunkCoverage:
    measured: bool
    tests: tuple[str, ...]
    """The ids of the tests that run a line of the hunk, sorted."""
    statements: int
    """The hunk's changed lines that are statements."""
    uncovered: int
    """Of those, the lines nothing executes."""

    def describe(self) -> str:
        if not self.measured:
            return "coverage not measured for this file"
        if self.tests:
            return "run by " + ", ".join(_short(test) for test in self.tests)
        if self.statements and self.uncovered < self.statements:
            return "no test runs this hunk (run only on import)"
        return "no test runs this hunk" if self.statements else "no statements in this hunk"


def hunk_coverage(cmap: CoverageMap, change: FileChange, hunk: Hunk) -> HunkCoverage:
    measured = cmap.files.get(change.path)
    if measured is None or change.kind is ChangeKind.DELETED:
        return HunkCoverage(False, (), 0, 0)
    lines = [n + 1 for n in range(hunk.new_start, hunk.new_end)]
    statements = [line for line in lines if line in measured.statements]
    tests = sorted({test for line in lines for test in measured.executed.get(line, ())})
    uncovered = sum(1 for line in statements if line not in measured.executed)
    return HunkCoverage(True, tuple(tests), len(statements), uncovered)


@record(frozen=True)
class UncoveredLines:
    """``3 of 140 changed lines run by no test``: counted over changed executable lines of
    measured files."""

    uncovered: int
    executable: int

    def describe(self) -> str:
        return f"{self.uncovered} of {self.executable} changed lines run by no test"


def uncovered_lines(cmap: CoverageMap, proposal: Proposal) -> UncoveredLines:
    uncovered = executable = 0
    for change in proposal.changes:
        for covered in changed_line_coverage(cmap, change).values():
            if covered is not None:
                executable += 1
                uncovered += not covered
    return UncoveredLines(uncovered, executable)


def _short(test: str) -> str:
    return test.rsplit("::", 1)[-1]
