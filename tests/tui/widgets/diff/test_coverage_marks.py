"""The diff's coverage marks (pure): from a real coverage map of a tiny project."""

from __future__ import annotations

import pytest

from orch_tui.core.checks.coverage_map import CoverageMap
from orch_tui.core.domain.proposal import FileChange, HunkDecision
from orch_tui.tui.widgets.diff.coverage_marks import NEW, OLD, coverage_marks, next_uncovered
from orch_tui.tui.widgets.diff.rows import RowKind, build_rows
from tests.support.coverage_project import ADD, CALC, CALC_BEFORE, SUB, measure, write_project


@pytest.fixture(scope="module")
def cmap(tmp_path_factory: pytest.TempPathFactory) -> CoverageMap:
    root = tmp_path_factory.mktemp("marks")
    _report, measured = measure(write_project(root / "workspace"), root / "reports")
    return measured


def test_after_the_change_each_changed_statement_says_whether_a_test_runs_it(
    cmap: CoverageMap,
) -> None:
    added_mul = FileChange("calc.py", CALC_BEFORE, CALC)
    marks = coverage_marks(added_mul, cmap, CALC)
    assert marks is not None and marks.side == NEW
    # 0-based new lines 6..11: blank, blank, comment (no marks), def (run on import), body x2
    assert dict(marks.lines) == {9: True, 10: False, 11: False}
    assert marks.mark(NEW, 10) is False and marks.mark(NEW, 9) is True
    assert marks.mark(NEW, 7) is None and marks.mark(OLD, 10) is None
    assert marks.note(0) == "no test runs this hunk (run only on import)"
    assert marks.uncovered(0) and marks.noted == {0}

    both = FileChange("calc.py", CALC.replace("a + b", "b + a").replace("a - b", "-b + a"), CALC)
    marks = coverage_marks(both, cmap, CALC)
    assert marks is not None
    assert [marks.note(h) for h in range(2)] == ["run by test_add", "run by test_sub"]
    assert not marks.uncovered(0) and not marks.uncovered(1)
    assert marks.hunks[0] is not None and marks.hunks[0].tests == (ADD,)


def test_before_the_change_the_lines_it_replaces_are_marked(cmap: CoverageMap) -> None:
    """A proposal under review, with the last checks' coverage of the file as it stands."""
    proposal = FileChange("calc.py", CALC, CALC.replace("a - b", "b - a").replace("a * b", "b * a"))
    marks = coverage_marks(proposal, cmap, CALC)
    assert marks is not None and marks.side == OLD
    assert dict(marks.lines) == {5: True, 10: False}
    assert marks.mark(NEW, 5) is None  # the new line has not run yet: no mark
    assert marks.note(0) == "replaces lines run by test_sub"
    assert marks.note(1) == "replaces lines no test runs" and marks.uncovered(1)
    assert marks.hunks[0] is not None and marks.hunks[0].tests == (SUB,)


def test_a_rejected_hunk_did_not_land_so_its_lines_get_no_mark(cmap: CoverageMap) -> None:
    """In the history: coverage measured what landed; the accepted hunk's lines moved."""
    old = "import os\n" + CALC.replace("a + b", "b + a")
    change = FileChange("calc.py", old, CALC)  # hunk 0 drops "import os", hunk 1 restores add
    assert len(change.hunks) == 2
    landed = change.resolve([HunkDecision.REJECTED, HunkDecision.ACCEPTED])
    assert landed is not None and landed != CALC
    # coverage of the landed text is that of CALC one line lower: rebuild it that way
    shifted = CoverageMap(
        {
            "calc.py": type(cmap.files["calc.py"])(
                frozenset(n + 1 for n in cmap.files["calc.py"].statements) | {1},
                {n + 1: ids for n, ids in cmap.files["calc.py"].executed.items()},
            )
        }
    )
    marks = coverage_marks(change, shifted, landed)
    assert marks is not None and marks.side == NEW
    assert marks.hunks[0] is None  # removed a line only: nothing of it landed on the new side
    assert dict(marks.lines) == {1: True} and marks.note(1) == "run by test_add"


def test_no_map_of_the_file_or_no_measured_text_means_no_marks(cmap: CoverageMap) -> None:
    other = FileChange("other.py", "x = 1\n", "x = 2\n")
    assert coverage_marks(other, cmap, "x = 1\n") is None
    assert coverage_marks(FileChange("calc.py", CALC_BEFORE, CALC), cmap, None) is None
    assert coverage_marks(FileChange("calc.py", CALC, None), CoverageMap({}), CALC) is None


def test_next_uncovered_goes_across_files_and_wraps(cmap: CoverageMap) -> None:
    both = FileChange("calc.py", CALC.replace("a + b", "b + a").replace("a * b", "b * a"), CALC)
    other = FileChange("other.py", "x = 1\n", "x = 2\n")
    changes = [other, both]

    def marks_for(change: FileChange):  # type: ignore[no-untyped-def]
        return coverage_marks(change, cmap, CALC if change.path == "calc.py" else None)

    assert next_uncovered(changes, marks_for, 0, 0) == (1, 1)
    assert next_uncovered(changes, marks_for, 1, 1) == (1, 1)  # wraps round to itself
    covered = [FileChange("calc.py", CALC.replace("a + b", "b + a"), CALC)]
    assert next_uncovered(covered, marks_for, 0, 0) is None
    assert next_uncovered([], marks_for, 0, 0) is None


def test_a_noted_hunk_ends_with_a_note_row_that_belongs_to_it() -> None:
    change = FileChange("calc.py", CALC.replace("a + b", "b + a").replace("a * b", "b * a"), CALC)
    plain = build_rows(change, "split")
    noted = build_rows(change, "split", notes={1})
    assert len(noted) == len(plain) + 1
    rows = noted.hunk_rows(1)
    assert [noted[i].kind for i in rows] == [RowKind.CHANGED, RowKind.NOTE]
    assert noted[rows.stop - 1].hunk == 1 and noted[rows.stop - 1].new is None
    assert [noted[i].kind for i in noted.hunk_rows(0)] == [RowKind.CHANGED]
    unified = build_rows(change, "unified", notes={0, 1})
    assert [unified[i].kind for i in unified.hunk_rows(0)] == [
        RowKind.REMOVED,
        RowKind.ADDED,
        RowKind.NOTE,
    ]
    assert unified.find(new=10) is not None  # lines are still found past the note rows
