"""The diff view's coverage marks and hunk notes, driven with Pilot over a real coverage map."""

from __future__ import annotations

import pytest

from orch_tui.core.checks.coverage_map import CoverageMap
from orch_tui.core.domain.proposal import FileChange, HunkDecision
from orch_tui.tui.widgets.diff.coverage_gutter import COVERED_MARK, NOTE_MARK, UNCOVERED_MARK
from orch_tui.tui.widgets.diff.coverage_marks import coverage_marks
from orch_tui.tui.widgets.diff.rows import RowKind
from orch_tui.tui.widgets.diff.view import DiffView
from tests.support.coverage_project import CALC, measure, write_project
from tests.tui.widgets.diff.test_diff_view import DiffApp, row_text

pytestmark = pytest.mark.anyio
U = HunkDecision.UNDECIDED
# Two hunks: add's body changed (test_add runs it), mul added (no test runs it).
CHANGE = FileChange("calc.py", CALC.replace("a + b", "b + a").split("\n\n# mult")[0] + "\n", CALC)


@pytest.fixture(scope="module")
def cmap(tmp_path_factory: pytest.TempPathFactory) -> CoverageMap:
    root = tmp_path_factory.mktemp("diff-coverage")
    _report, measured = measure(write_project(root / "workspace"), root / "reports")
    return measured


class CoveredApp(DiffApp):
    def __init__(self, cmap: CoverageMap | None, layout: str) -> None:
        super().__init__(CHANGE, (U, U), layout=layout)
        self.cmap = cmap

    def on_mount(self) -> None:
        super().on_mount()
        cmap = self.cmap
        if cmap is not None:
            marks = lambda change: coverage_marks(change, cmap, CALC)  # noqa: E731
            self.query_one(DiffView).set_coverage(marks)


def covered_app(cmap: CoverageMap | None, layout: str = "split") -> DiffApp:
    return CoveredApp(cmap, layout)


@pytest.mark.parametrize("layout", ["split", "unified"])
async def test_changed_lines_show_whether_a_test_runs_them_and_each_hunk_which_tests(
    cmap: CoverageMap, layout: str
) -> None:
    app = covered_app(cmap, layout)
    async with app.run_test(size=(110, 30)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        assert [view.rows[i].kind for i in view.rows.hunk_rows(0)][-1] is RowKind.NOTE
        first = view.rows.hunk_rows(0)
        changed = [row_text(view, i) for i in first]
        assert any(f"{COVERED_MARK}+" in t and "return a + b" in t for t in changed), changed
        assert not any(f"{COVERED_MARK}-" in t or f"{UNCOVERED_MARK}-" in t for t in changed)
        assert f"{NOTE_MARK} run by test_add" in row_text(view, first.stop - 1)
        second = view.rows.hunk_rows(1)
        texts = [row_text(view, i) for i in second]
        assert any(UNCOVERED_MARK in text and "product = a * b" in text for text in texts)
        assert any(COVERED_MARK in text and "def mul" in text for text in texts)
        comment = next(text for text in texts if "# multiplication" in text)
        assert COVERED_MARK not in comment and UNCOVERED_MARK not in comment  # no statement
        assert "no test runs this hunk (run only on import)" in texts[-1]


async def test_without_a_coverage_record_nothing_is_shown(cmap: CoverageMap) -> None:
    bare, covered = covered_app(None), covered_app(cmap)
    async with bare.run_test(size=(110, 30)) as pilot:
        await pilot.pause()
        view = bare.query_one(DiffView)
        plain = [row_text(view, i) for i in range(len(view.rows))]
    assert all(kind is not RowKind.NOTE for kind in (row.kind for row in view.rows))
    assert not any(COVERED_MARK in t or UNCOVERED_MARK in t or NOTE_MARK in t for t in plain)
    async with covered.run_test(size=(110, 30)) as pilot:
        await pilot.pause()
        view = covered.query_one(DiffView)
        marked = [row_text(view, i) for i in range(len(view.rows))]
        view.set_coverage(None)  # the coverage goes: so do the marks and the note rows
        await pilot.pause()
        assert [row_text(view, i) for i in range(len(view.rows))] == plain
    notes = [t for t in marked if NOTE_MARK in t]
    assert len(marked) == len(plain) + 2 and len(notes) == 2
    # the marks take the blank column after the number: nothing else moves
    unmarked = [t.replace(COVERED_MARK, " ").replace(UNCOVERED_MARK, " ") for t in marked]
    assert [t for t in unmarked if NOTE_MARK not in t] == plain
