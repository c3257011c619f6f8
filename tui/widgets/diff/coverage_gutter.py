"""The coverage half of the diff view's painting: a mark beside each changed line's number,
and the note row that ends each measured hunk.

A line a test runs gets ``COVERED_MARK``, a statement no test runs ``UNCOVERED_MARK``, in the
column between its line number and its sign (a blank there without coverage, so nothing moves
when coverage comes or goes). What the marks are comes from :mod:`coverage_marks`; the screen
says where the coverage comes from with :meth:`CoverageGutter.set_coverage`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual.scroll_view import ScrollView

from orch_tui.core.util.terminal_text import escape_controls
from orch_tui.tui.widgets.diff.coverage_marks import CoverageMarks, MarksFor

if TYPE_CHECKING:
    from orch_tui.core.domain.proposal import FileChange

COVERED_MARK = "▌"
"""Beside a changed line some test runs."""
UNCOVERED_MARK = "◌"
"""Beside a changed statement no test runs."""
NOTE_MARK = "⤷"
"""Starts a hunk's note row."""


class CoverageGutter(ScrollView):
    """Coverage marks and hunk notes for the diff view (see the module docstring)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff-view--covered",
        "diff-view--uncovered",
        "diff-view--coverage-note",
        "diff-view--uncovered-note",
    }

    DEFAULT_CSS = """
    CoverageGutter > .diff-view--covered { color: $diff-gutter-accepted; text-style: bold; }
    CoverageGutter > .diff-view--uncovered { color: $diff-gutter-rejected; text-style: bold; }
    CoverageGutter > .diff-view--coverage-note { color: $diff-line-number; text-style: italic; }
    CoverageGutter > .diff-view--uncovered-note { color: $diff-gutter-rejected; text-style: italic; }
    """

    _change: FileChange | None
    _number_width: int
    _marks_for: MarksFor | None = None
    _marks: dict[int, tuple[FileChange, CoverageMarks | None]]

    if TYPE_CHECKING:  # the painter's and the widget's, beneath and above this class

        def _rich(self, classes: tuple[str, ...], syntax: str | None = None) -> RichStyle: ...
        def _relayout(self, *, keep_top: bool) -> None: ...

    def set_coverage(self, marks_for: MarksFor | None) -> None:
        """Where the marks of each file come from (None: no coverage, nothing shown)."""
        self._marks_for = marks_for
        self._marks = {}
        self._relayout(keep_top=True)

    @property
    def coverage(self) -> CoverageMarks | None:
        """The marks of the file shown, or None."""
        change = self._change
        if change is None or self._marks_for is None:
            return None
        known = self._marks.get(id(change))
        if known is None or known[0] is not change:
            known = self._marks[id(change)] = (change, self._marks_for(change))
        return known[1]

    @property
    def noted_hunks(self) -> frozenset[int]:
        """The hunks of the file shown that end with a note row."""
        marks = self.coverage
        return marks.noted if marks is not None else frozenset()

    def coverage_cell(self, side: int, line: int | None, classes: tuple[str, ...]) -> Segment:
        """The column after a line number: the line's coverage mark, or a blank."""
        marks = self.coverage
        covered = marks.mark(side, line) if marks is not None else None
        if covered is None:
            return Segment(" ", self._rich(classes))
        name = "diff-view--covered" if covered else "diff-view--uncovered"
        return Segment(COVERED_MARK if covered else UNCOVERED_MARK, self._rich((*classes, name)))

    def coverage_note(self, hunk: int | None) -> Segment:
        """A note row's text: which tests run the hunk."""
        marks = self.coverage
        note = marks.note(hunk) if marks is not None and hunk is not None else None
        name = "diff-view--coverage-note"
        if marks is not None and hunk is not None and marks.uncovered(hunk):
            name = "diff-view--uncovered-note"
        indent = " " * (self._number_width + 1)
        return Segment(f"{indent}{NOTE_MARK} {escape_controls(note or '')}", self._rich((name,)))
