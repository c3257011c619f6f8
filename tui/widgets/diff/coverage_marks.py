"""Coverage in the diff: per changed line whether a test runs it, per hunk which tests do.

Pure Python (no Textual), like :mod:`rows`. A coverage map (``core.checks.coverage_map``) is
of the files as they stood when the checks ran, the *measured* text. Which side of a diff that
is depends on when the checks ran:

* after the change landed (an attempt in the history): the new side, line for line; when some
  hunks were rejected, the new lines that landed are found in the measured text (difflib's
  matching blocks) and the rejected ones get no mark;
* before the change (a proposal under review, with the last checks' coverage): the old side,
  the lines the hunk replaces.

Only statements get a mark: blank lines, comments and lines of an unmeasured file get none,
and a file the map does not know gets no marks and no notes at all (no noise).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from orch_tui.core.checks.coverage_map import CoverageMap, HunkCoverage
from orch_tui.core.domain.proposal import FileChange
from orch_tui.core.domain.unified_diff import git_lines

__all__ = ["CoverageMarks", "MarksFor", "coverage_marks", "next_uncovered"]

OLD, NEW = 0, 1
"""The sides of a diff, as in :mod:`paint` (0: old lines, 1: new lines)."""


@dataclass(frozen=True)
class CoverageMarks:
    """What coverage says about one file's diff."""

    side: int
    """The side whose lines were measured: NEW (after the change) or OLD (before it)."""
    lines: Mapping[int, bool]
    """0-based line of ``side`` -> whether a test runs it; changed statements only."""
    hunks: tuple[HunkCoverage | None, ...]
    """Per hunk; None when none of its lines on ``side`` is a measured statement."""

    def mark(self, side: int, line: int | None) -> bool | None:
        """True: a test runs this line; False: a statement no test runs; None: no mark."""
        if side != self.side or line is None:
            return None
        return self.lines.get(line)

    def note(self, hunk: int) -> str | None:
        """The hunk's note line ("run by test_a, test_b" / "no test runs this hunk")."""
        measured = self.hunks[hunk] if 0 <= hunk < len(self.hunks) else None
        if measured is None:
            return None
        if self.side == NEW:
            return measured.describe()
        if measured.tests:
            return "replaces lines run by " + ", ".join(_short(t) for t in measured.tests)
        return "replaces lines no test runs"

    def uncovered(self, hunk: int) -> bool:
        """No test runs any statement of the hunk (on its measured side)."""
        measured = self.hunks[hunk] if 0 <= hunk < len(self.hunks) else None
        return measured is not None and not measured.tests

    @property
    def noted(self) -> frozenset[int]:
        """The hunks that have a note row."""
        return frozenset(index for index, hunk in enumerate(self.hunks) if hunk is not None)


MarksFor = Callable[[FileChange], "CoverageMarks | None"]
"""What a screen gives the diff view: the marks of a file it shows (None: none)."""


def coverage_marks(
    change: FileChange, cmap: CoverageMap, measured: str | None
) -> CoverageMarks | None:
    """The marks of ``change`` from ``cmap``, which measured the file as ``measured`` (None:
    the file did not exist then, or is not known: no marks)."""
    measured_file = cmap.files.get(change.path)
    if measured_file is None or measured is None:
        return None
    at: Callable[[int], int | None]
    if measured == change.new_text:
        side, at = NEW, _same
    elif measured == change.old_text:
        side, at = OLD, _same
    elif change.new_text is not None:
        side, at = NEW, _matched(change.new_lines, measured)
    else:
        return None
    lines: dict[int, bool] = {}
    hunks: list[HunkCoverage | None] = []
    for hunk in change.hunks:
        span = range(hunk.new_start, hunk.new_end) if side else range(hunk.old_start, hunk.old_end)
        tests: set[str] = set()
        statements = uncovered = 0
        for index in span:
            line = at(index)
            if line is None or line not in measured_file.statements:
                continue
            ran_by = measured_file.executed.get(line)
            lines[index] = ran_by is not None
            statements += 1
            uncovered += ran_by is None
            tests.update(ran_by or ())
        hunks.append(
            HunkCoverage(True, tuple(sorted(tests)), statements, uncovered) if statements else None
        )
    return CoverageMarks(side, lines, tuple(hunks))


def _same(index: int) -> int | None:
    return index + 1


def _matched(shown: Sequence[str], measured: str) -> Callable[[int], int | None]:
    """0-based line of ``shown`` -> the 1-based line of ``measured`` it is, if it is there."""
    matcher = SequenceMatcher(None, shown, git_lines(measured), autojunk=False)
    found: dict[int, int] = {}
    for start, measured_start, size in matcher.get_matching_blocks():
        for offset in range(size):
            found[start + offset] = measured_start + offset + 1
    return found.get


def next_uncovered(
    changes: Sequence[FileChange], marks_for: MarksFor, file: int, hunk: int
) -> tuple[int, int] | None:
    """The (file, hunk) of the next hunk after (``file``, ``hunk``) that no test runs,
    wrapping round to the first; None when there is none."""
    stops = [(f, h) for f, change in enumerate(changes) for h in range(len(change.hunks))]
    if not stops:
        return None
    start = stops.index((file, hunk)) if (file, hunk) in stops else -1
    marks: dict[int, CoverageMarks | None] = {}
    for step in range(1, len(stops) + 1):
        f, h = stops[(start + step) % len(stops)]
        if f not in marks:
            marks[f] = marks_for(changes[f])
        found = marks[f]
        if found is not None and found.uncovered(h):
            return f, h
    return None


def _short(test: str) -> str:
    return test.rsplit("::", 1)[-1]
