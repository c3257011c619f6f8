"""The diff row model: layouts, folding, hunk positions and word ranges."""

from __future__ import annotations

import pytest

from orch_tui.core.domain.proposal import FileChange
from orch_tui.tui.widgets.diff.rows import (
    DiffRows,
    Row,
    RowKind,
    build_rows,
    line_text,
    word_ranges,
)


def numbered(count: int) -> str:
    return "".join(f"line {i}\n" for i in range(count))


def kinds(rows: DiffRows) -> list[RowKind]:
    return [row.kind for row in rows]


def test_added_file_is_one_hunk_of_added_rows() -> None:
    rows = build_rows(FileChange("new.py", None, "a\nb\nc\n"), "split")
    assert list(rows) == [Row(RowKind.ADDED, None, i, 0) for i in range(3)]
    assert rows.hunk_rows(0) == range(0, 3)
    unified = build_rows(FileChange("new.py", None, "a\nb\nc\n"), "unified")
    assert [(row.kind, row.old, row.new) for row in unified] == [
        (RowKind.ADDED, None, 0),
        (RowKind.ADDED, None, 1),
        (RowKind.ADDED, None, 2),
    ]


def test_deleted_file_is_one_hunk_of_removed_rows() -> None:
    for layout in ("split", "unified"):
        rows = build_rows(FileChange("old.py", "a\nb\n", None), layout)
        assert [(row.kind, row.old, row.new, row.hunk) for row in rows] == [
            (RowKind.REMOVED, 0, None, 0),
            (RowKind.REMOVED, 1, None, 0),
        ]


@pytest.mark.parametrize("change", [FileChange("e.txt", None, ""), FileChange("e.txt", "", None)])
def test_empty_added_or_deleted_file_has_one_empty_row_for_its_hunk(change: FileChange) -> None:
    rows = build_rows(change, "split")
    assert kinds(rows) == [RowKind.EMPTY]
    assert rows.hunk_count == 1
    assert rows.hunk_rows(0) == range(0, 1)
    assert rows.hunk_at(0) == 0


def test_split_pairs_replaced_lines_and_continues_the_longer_side() -> None:
    change = FileChange("m.py", "keep\nold1\nold2\nend\n", "keep\nnew1\nnew2\nnew3\nend\n")
    rows = build_rows(change, "split")
    assert [(row.kind, row.old, row.new) for row in rows] == [
        (RowKind.CONTEXT, 0, 0),
        (RowKind.CHANGED, 1, 1),
        (RowKind.CHANGED, 2, 2),
        (RowKind.ADDED, None, 3),
        (RowKind.CONTEXT, 3, 4),
    ]
    assert rows.hunk_rows(0) == range(1, 4)


def test_unified_lists_removed_then_added_with_word_partners() -> None:
    change = FileChange("m.py", "keep\nold1\nold2\nend\n", "keep\nnew1\nnew2\nnew3\nend\n")
    rows = build_rows(change, "unified")
    assert [(row.kind, row.old, row.new, row.pair) for row in rows] == [
        (RowKind.CONTEXT, 0, 0, None),
        (RowKind.REMOVED, 1, None, 1),
        (RowKind.REMOVED, 2, None, 2),
        (RowKind.ADDED, None, 1, 1),
        (RowKind.ADDED, None, 2, 2),
        (RowKind.ADDED, None, 3, None),
        (RowKind.CONTEXT, 3, 4, None),
    ]
    assert rows.hunk_rows(0) == range(1, 6)
    assert [rows.hunk_at(i) for i in range(len(rows))] == [None, 0, 0, 0, 0, 0, None]


def test_missing_trailing_newline_is_a_change_of_the_last_line() -> None:
    change = FileChange("n.txt", "a\nb\n", "a\nb")
    rows = build_rows(change, "split")
    assert [(row.kind, row.old, row.new) for row in rows] == [
        (RowKind.CONTEXT, 0, 0),
        (RowKind.CHANGED, 1, 1),
    ]
    assert line_text(change.old_lines[1]) == line_text(change.new_lines[1]) == "b"
    assert word_ranges("b", "b") == ((), ())


def test_long_unchanged_regions_fold_keeping_three_lines_of_context() -> None:
    old = numbered(100)
    change = FileChange("f.txt", old, old.replace("line 50\n", "line fifty\n"))
    rows = build_rows(change, "split")
    assert kinds(rows) == [
        RowKind.FOLD,
        *[RowKind.CONTEXT] * 3,
        RowKind.CHANGED,
        *[RowKind.CONTEXT] * 3,
        RowKind.FOLD,
    ]
    assert (rows[0].fold, rows[0].hidden, rows[0].old) == (0, 47, 0)
    assert (rows[-1].fold, rows[-1].hidden, rows[-1].old) == (1, 46, 54)
    assert [row.old for row in rows[1:4]] == [47, 48, 49]
    assert rows.folds == (0, 1)
    assert rows.hunk_rows(0) == range(4, 5)


def test_expanding_one_fold_shows_its_lines_and_keeps_the_others() -> None:
    old = numbered(100)
    change = FileChange("f.txt", old, old.replace("line 50\n", "line fifty\n"))
    rows = build_rows(change, "split", expanded={0})
    assert [row.old for row in rows[:50]] == list(range(50))
    assert rows[50].kind is RowKind.CHANGED
    assert rows.folds == (1,)
    assert rows.fold_row(0) is None
    assert rows.fold_row(1) == len(rows) - 1


def test_unfold_all_shows_every_line() -> None:
    old = numbered(100)
    change = FileChange("f.txt", old, old.replace("line 50\n", "line fifty\n"))
    rows = build_rows(change, "unified", unfold_all=True)
    assert len(rows) == 101  # 99 context rows, one removed, one added
    assert rows.folds == ()
    assert RowKind.FOLD not in kinds(rows)


def test_short_gaps_between_hunks_are_not_folded() -> None:
    old = numbered(20)
    new = old.replace("line 5\n", "five\n").replace("line 13\n", "thirteen\n")
    rows = build_rows(FileChange("g.txt", old, new), "split")
    # 7 unchanged lines between the hunks: 3 + 3 context would hide one line, not worth a fold
    between = rows[rows.hunk_rows(0).stop : rows.hunk_rows(1).start]
    assert [row.old for row in between] == list(range(6, 13))
    assert rows.folds == (0, 2)


def test_unchanged_file_folds_whole() -> None:
    text = numbered(10)
    rows = build_rows(FileChange("same.txt", text, text), "split")
    assert list(rows) == [Row(RowKind.FOLD, 0, 0, fold=0, hidden=10)]
    assert rows.hunk_count == 0


def test_hunk_rows_map_each_hunk_to_its_own_rows() -> None:
    old = numbered(200)
    new = old.replace("line 20\n", "").replace("line 120\n", "a\nb\n")
    rows = build_rows(FileChange("h.txt", old, new), "unified")
    assert rows.hunk_count == 2
    first, second = rows.hunk_rows(0), rows.hunk_rows(1)
    assert [(rows[i].kind, rows[i].old) for i in first] == [(RowKind.REMOVED, 20)]
    assert [(rows[i].kind, rows[i].old, rows[i].new) for i in second] == [
        (RowKind.REMOVED, 120, None),
        (RowKind.ADDED, None, 119),
        (RowKind.ADDED, None, 120),
    ]
    assert all(rows[i].hunk == 1 for i in second)


def test_find_locates_a_line_or_the_fold_that_hides_it() -> None:
    old = numbered(100)
    change = FileChange("f.txt", old, old.replace("line 50\n", "line fifty\n"))
    rows = build_rows(change, "split")
    assert rows.find(old=10) == 0  # folded: the fold row
    assert rows.find(old=48) == 2
    assert rows.find(new=50) == 4
    assert rows.find(old=99) == len(rows) - 1


def test_rows_support_negative_indexes_slices_and_bounds() -> None:
    rows = build_rows(FileChange("x", "a\n", "b\n"), "unified")
    assert rows[-1] == rows[1]
    assert rows[0:2] == [rows[0], rows[1]]
    with pytest.raises(IndexError):
        rows[2]


def test_building_rows_does_not_touch_every_line() -> None:
    old = numbered(20_000)
    change = FileChange("big.txt", old, old.replace("line 10000\n", "changed\n"))
    rows = build_rows(change, "split", unfold_all=True)
    assert len(rows) == 20_000
    assert len(rows._runs) == 3  # context, the hunk, context: one run each, not one per line


def test_word_ranges_mark_a_renamed_identifier_whole() -> None:
    old_ranges, new_ranges = word_ranges("total = compute(items)", "total = summarise(items)")
    assert old_ranges == ((8, 15),)
    assert new_ranges == ((8, 17),)


def test_word_ranges_of_an_insertion_mark_only_the_new_side() -> None:
    old_ranges, new_ranges = word_ranges("call(a)", "call(a, b)")
    assert old_ranges == ()
    assert "call(a, b)"[slice(*new_ranges[0])] == ", b"


def test_word_ranges_keep_unchanged_words_between_changes_unmarked() -> None:
    old_ranges, new_ranges = word_ranges("x = 1", "y += 2")
    assert old_ranges == ((0, 1), (4, 5))
    assert new_ranges == ((0, 1), (2, 3), (5, 6))  # "y", "+", "2": the "=" is shared


def test_line_text_drops_only_the_line_break() -> None:
    assert line_text("a b \r\n") == "a b "
    assert line_text("tail") == "tail"
