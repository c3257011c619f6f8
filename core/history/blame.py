"""Blame: for each test that went from passing to failing, the attempt and the hunks that broke it.

In the tests × attempts grid (:mod:`grid`) a test that passed in one attempt's checks and
failed in the next one's was broken by what landed in between: the workspace's change from
after the first attempt to after the second (:func:`~orch_tui.core.history.detail.compare`).
Of that change, the hunks the test itself runs are the suspects: the second attempt's coverage
record (which tests ran each line of what it landed) says which. A hunk that only deletes lines
has no line left for a test to run, so it is never named; without a coverage record the
attempt is named with no hunks. :func:`revert_proposal` turns the suspects into a proposal that
puts their old lines back, for the person to review like any other.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from orch_tui.core.checks.coverage_map import CoverageMap, hunk_coverage
from orch_tui.core.domain.proposal import FileChange, Hunk, Proposal
from orch_tui.core.history.detail import RunDetail, compare
from orch_tui.core.history.grid import FAILED, PASSED, test_grid
from orch_tui.core.util.records import record

_PARAMETERS = re.compile(r"\[.*\]$")


@record(frozen=True)
class BlamedHunk:
    """One hunk of the change that broke a test, which that test runs."""

    change: FileChange
    """The file from after the last passing attempt to after the failing one."""
    hunk: Hunk

    def describe(self) -> str:
        first, last = self.hunk.new_start + 1, self.hunk.new_end
        lines = f"line {first}" if first == last else f"lines {first}-{last}"
        return f"{self.change.path} {lines}"


@record(frozen=True)
class Blame:
    test: str
    passed_in: int
    """The last attempt whose checks it passed."""
    broke_in: int
    """The next attempt whose checks ran: it fails there."""
    hunks: tuple[BlamedHunk, ...]
    measured: bool
    """Whether ``broke_in`` has a coverage map (without one, the hunks are not known)."""

    def describe(self) -> str:
        head = f"{self.test} passed in attempt {self.passed_in}, broken by attempt {self.broke_in}"
        if not self.measured:
            return f"{head} (no coverage: the hunks are not known)"
        if not self.hunks:
            return f"{head} (the test runs none of its hunks)"
        return f"{head}: " + ", ".join(hunk.describe() for hunk in self.hunks)


def blame(detail: RunDetail) -> list[Blame]:
    """Every pass-to-fail flip of the run's grid, in the grid's order of tests, then attempts."""
    grid = test_grid(detail)
    found: list[Blame] = []
    for test, cells in zip(grid.tests, grid.cells, strict=True):
        for column in range(1, len(cells)):
            if cells[column - 1] == PASSED and cells[column] == FAILED:
                before, after = grid.attempts[column - 1], grid.attempts[column]
                found.append(_blame(detail, test, before, after))
    return found


def _blame(detail: RunDetail, test: str, before: int, after: int) -> Blame:
    coverage = detail.attempt(after).coverage
    if not isinstance(coverage, CoverageMap):
        return Blame(test, before, after, (), measured=False)
    function = _PARAMETERS.sub("", test)  # coverage has one context per test function
    hunks = tuple(
        BlamedHunk(change, hunk)
        for change in compare(detail, before, after)
        for hunk in change.hunks
        if function in hunk_coverage(coverage, change, hunk).tests
    )
    return Blame(test, before, after, hunks, measured=True)


def revert_proposal(
    blames: list[Blame], current: Mapping[str, str | None], attempt: int
) -> tuple[Proposal, list[str]]:
    """A proposal for ``attempt`` that puts the blamed hunks' old lines back into the files as
    they are now (``current``: path -> text, None when missing), and what could not be reverted.

    Each hunk's new lines are looked for in the current text: found once, they are replaced by
    the old ones; gone (a later attempt changed them) or found more than once, the hunk is
    named in the second list instead and left alone.
    """
    texts: dict[str, str | None] = {}
    left: list[str] = []
    seen: set[tuple[str, int]] = set()
    for found in blames:
        for blamed in found.hunks:
            change, hunk = blamed.change, blamed.hunk
            if (change.path, hunk.index) in seen:
                continue
            seen.add((change.path, hunk.index))
            text = texts.get(change.path, current.get(change.path))
            new = "".join(change.new_lines[hunk.new_start : hunk.new_end])
            old = "".join(change.old_lines[hunk.old_start : hunk.old_end])
            if text is None or text.count(new) != 1:
                left.append(f"{blamed.describe()} (changed since attempt {found.broke_in})")
                continue
            texts[change.path] = text.replace(new, old, 1)
    changes = tuple(
        FileChange(path, current.get(path), text)
        for path, text in sorted(texts.items())
        if text != current.get(path)
    )
    return Proposal(attempt, changes), left
