"""DiffView and FileList in a small host App, driven with Pilot, plus snapshots per theme."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from pygments.token import Token
from textual.app import App, ComposeResult
from textual.color import Color
from textual.strip import Strip

from orch_tui.core.domain.proposal import Decisions, FileChange, HunkDecision, Proposal
from orch_tui.themes import DEFAULT_THEME, THEMES, register_themes, theme_variable_defaults
from orch_tui.tui.widgets.diff.file_cache import _token_style
from orch_tui.tui.widgets.diff.paint import window_start
from orch_tui.tui.widgets.diff.rows import RowKind
from orch_tui.tui.widgets.diff.view import DiffView
from orch_tui.tui.widgets.file_list import FileList
from tests.support.painted_lines import PaintedLines

OLD = '''"""Greeting helpers."""
import os


def greet(name):
    """Say hello."""
    return "Hello, " + name


def farewell(name):
    return "Bye " + name


def unused():
    pass
'''
NEW = '''"""Greeting helpers."""
import os
import sys


def greet(name: str) -> str:
    """Say hello."""
    return f"Hello, {name}!"


def farewell(name):
    return "Bye " + name
'''
SMALL = FileChange("greet.py", OLD, NEW)
pytestmark = pytest.mark.anyio
U, A, R = HunkDecision.UNDECIDED, HunkDecision.ACCEPTED, HunkDecision.REJECTED


def numbered(count: int) -> str:
    return "".join(f"value_{i} = {i}\n" for i in range(count))


def big_change(lines: int = 20_000) -> FileChange:
    old = numbered(lines)
    new = old
    for at in (100, lines // 2, lines - 100):
        new = new.replace(f"value_{at} = {at}\n", f"value_{at} = {at} + 1\n")
    return FileChange("big.py", old, new)


class CountingDiffView(DiffView):
    """Counts render_line calls, to check only visible rows are rendered."""

    calls = 0

    def render_line(self, y: int) -> Strip:
        CountingDiffView.calls += 1
        return super().render_line(y)


class DiffApp(App[None]):
    def __init__(
        self,
        change: FileChange | None = SMALL,
        decisions: Sequence[HunkDecision] = (U, U, U, U),
        *,
        theme: str = DEFAULT_THEME,
        layout: str = "split",
    ) -> None:
        super().__init__()
        self.animation_level = "none"  # scroll keys jump, so each renders one screenful
        self._change = change
        self._decisions = decisions
        self._theme_name = theme
        self._layout = layout

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        yield CountingDiffView()

    def on_mount(self) -> None:
        register_themes(self)
        self.theme = self._theme_name
        view = self.query_one(DiffView)
        view.diff_layout = self._layout
        view.show(self._change, self._decisions)
        view.focus()


def texts(view: DiffView) -> list[str]:
    return [view.render_line(y).text for y in range(view.scrollable_content_region.height)]


def row_text(view: DiffView, index: int) -> str:
    """The rendered text of a row (scrolls it into view first)."""
    view.scroll_to(y=index, animate=False)
    return view.render_line(index - round(view.scroll_y)).text


def background_of(strip: Strip, text: str) -> Color:
    for segment in strip:
        if text in segment.text and segment.style and segment.style.bgcolor:
            return Color.from_rich_color(segment.style.bgcolor)
    raise AssertionError(f"{text!r} not in {strip.text!r}")


async def test_split_shows_old_and_new_side_by_side_and_unified_one_above_the_other() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 24)) as pilot:
        view = app.query_one(DiffView)
        split = texts(view)
        line = next(text for text in split if "def greet(name):" in text)
        assert "def greet(name: str) -> str:" in line and "│" in line
        view.diff_layout = "unified"
        await pilot.pause()
        unified = texts(view)
        old_row = next(text for text in unified if "def greet(name):" in text)
        assert "str" not in old_row and "│" not in old_row
        assert any("+ def greet(name: str) -> str:" in text for text in unified)
        assert len(view.rows) > sum(1 for text in split if text.strip())


async def test_a_new_or_deleted_file_uses_the_whole_width_in_split_view() -> None:
    long_line = "x = '" + "a" * 70 + "'\n"
    for change in (FileChange("new.py", None, long_line), FileChange("old.py", long_line, None)):
        app = DiffApp(change, (U,))
        async with app.run_test(size=(100, 24)):
            view = app.query_one(DiffView)
            assert view.diff_layout == "split"
            shown = "\n".join(texts(view))
            assert "a" * 70 in shown and "│" not in shown


async def test_layout_rejects_unknown_names() -> None:
    app = DiffApp()
    async with app.run_test(size=(80, 20)):
        with pytest.raises(ValueError):
            app.query_one(DiffView).diff_layout = "sideways"


async def test_gutter_marks_follow_set_decisions() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 24)) as pilot:
        view = app.query_one(DiffView)
        assert view.rows.hunk_count == 4
        first_rows = [view.rows.hunk_rows(h).start for h in range(4)]
        assert [row_text(view, i)[0] for i in first_rows] == ["●", "●", "●", "●"]
        view.set_decisions([A, R, U, A])
        await pilot.pause()
        assert [row_text(view, i)[0] for i in first_rows] == ["✓", "✗", "●", "✓"]
        later = view.rows.hunk_rows(3)[1]
        assert row_text(view, later)[0] == "▎"


TESTS_BEFORE = "".join(
    f"def test_{n}():\n    value = {n}\n    assert value == {n}\n\n\n" for n in range(6)
)


async def test_a_hunk_that_deletes_an_assert_in_a_test_file_is_marked() -> None:
    weakened = TESTS_BEFORE.replace("    assert value == 0\n", "").replace(
        "value = 5", "value = 5  # checked below"
    )
    for path, marked in (("tests/test_values.py", ["●!", "● "]), ("values.py", ["● ", "● "])):
        app = DiffApp(FileChange(path, TESTS_BEFORE, weakened), (U, U))
        async with app.run_test(size=(100, 40)):
            view = app.query_one(DiffView)
            assert view.rows.hunk_count == 2
            starts = [view.rows.hunk_rows(hunk).start for hunk in range(2)]
            assert [row_text(view, row)[:2] for row in starts] == marked, path


LONG_PREFIX = (
    "MESSAGE = 'the quick brown fox jumps over the lazy dog, then over the sleepy cat, then"
    " over the fence, and runs on and on to the far end: "
)
LONG_CHANGE = FileChange(
    "long.py",
    f"{LONG_PREFIX}tortoise'\nOTHER = 1\n",
    f"{LONG_PREFIX}hedgehog'\nOTHER = 1\n",
)


@pytest.mark.parametrize("layout", ["split", "unified"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_long_line_changed_past_the_edge_is_shown_from_its_change(
    size: tuple[int, int], layout: str
) -> None:
    """At 80 and 120 columns the change at the end of a long line is in view, its hidden start
    marked; scrolled sideways, the line is shown as scrolled."""
    app = DiffApp(LONG_CHANGE, (U,), layout=layout)
    async with app.run_test(size=size) as pilot:
        view = app.query_one(DiffView)
        assert view._text_width(view.scrollable_content_region.width) < len(LONG_PREFIX)
        shown = "\n".join(texts(view))
        assert "tortoise" in shown and "hedgehog" in shown
        assert "MESSAGE = 'the" not in shown
        changed = [line for line in shown.splitlines() if "hedgehog" in line or "tortoise" in line]
        assert changed and all("…far end: " in line for line in changed)  # from a word before it
        view.scroll_to(x=len(LONG_PREFIX), animate=False)
        await pilot.pause()
        assert all("…" not in line for line in texts(view))
        assert "hedgehog" in "\n".join(texts(view))


def test_the_window_is_counted_in_painted_columns_tabs_and_wide_characters_included() -> None:
    text = "\t" * 10 + "界" * 10 + " a b changed"  # 40 + 20 columns before " a b changed"
    first = text.index("changed")
    start = window_start(text, ((first, first + 7),), 30, 0)
    assert start == 60  # the space after the wide characters hides under the mark: "…a b changed"
    assert window_start(text, ((first, first + 7),), 80, 0) == 0  # in view: not moved


async def test_changed_words_get_their_own_background() -> None:
    app = DiffApp(layout="unified")
    async with app.run_test(size=(100, 24)):
        view = app.query_one(DiffView)
        row = next(i for i, r in enumerate(view.rows) if r.kind is RowKind.ADDED and r.new == 5)
        strip = view.render_line(row)
        assert "def greet(name: str) -> str:" in strip.text
        line_bg = background_of(strip, "def")
        word_bg = background_of(strip, "str")
        assert line_bg != word_bg


async def test_cursor_hunk_scrolls_the_hunk_into_view() -> None:
    app = DiffApp(big_change(2_000), (U, U, U))
    async with app.run_test(size=(100, 20)) as pilot:
        view = app.query_one(DiffView)
        view.toggle_folds()
        await pilot.pause()
        assert view.scroll_y == 0
        view.cursor_hunk = 2
        await pilot.pause()
        hunk = view.rows.hunk_rows(2)
        top, height = round(view.scroll_y), view.scrollable_content_region.height
        assert top > 0
        assert top <= hunk.start and hunk.stop <= top + height
        view.cursor_hunk = 0
        await pilot.pause()
        assert round(view.scroll_y) <= view.rows.hunk_rows(0).start


async def test_cursor_hunk_is_clamped_to_the_hunks() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 24)):
        view = app.query_one(DiffView)
        view.cursor_hunk = 99
        assert view.cursor_hunk == 3
        view.cursor_hunk = -5
        assert view.cursor_hunk == 0


async def test_a_20000_line_file_renders_only_the_visible_rows() -> None:
    app = DiffApp(big_change(), (U, U, U))
    async with app.run_test(size=(120, 30)) as pilot:
        view = app.query_one(DiffView)
        view.toggle_folds()
        await pilot.pause()
        assert len(view.rows) == 20_000
        height = view.scrollable_content_region.height
        CountingDiffView.calls = 0
        await pilot.press("end")
        await pilot.pause()
        assert view.scroll_y == view.max_scroll_y > 19_000
        assert 0 < CountingDiffView.calls <= 3 * height
        CountingDiffView.calls = 0
        await pilot.press("pageup")
        await pilot.pause()
        assert 0 < CountingDiffView.calls <= 3 * height


async def test_clicking_a_fold_row_expands_it() -> None:
    old = numbered(60)
    change = FileChange("f.py", old, old.replace("value_30 = 30\n", "value_30 = 31\n"))
    app = DiffApp(change, (U,))
    async with app.run_test(size=(100, 24)) as pilot:
        view = app.query_one(DiffView)
        assert view.rows[0].kind is RowKind.FOLD
        assert "⋯ 27 unchanged lines" in view.render_line(0).text
        await pilot.click(DiffView, offset=(10, 0))
        await pilot.pause()
        assert view.rows[0].kind is RowKind.CONTEXT
        assert view.rows.folds == (1,)


async def test_keys_expand_the_folds_around_the_cursor_and_unfold_all() -> None:
    old = numbered(200)
    new = old.replace("value_50 = 50\n", "x\n").replace("value_150 = 150\n", "y\n")
    app = DiffApp(FileChange("f.py", old, new), (U, U))
    async with app.run_test(size=(100, 24)) as pilot:
        view = app.query_one(DiffView)
        assert view.rows.folds == (0, 1, 2)
        view.cursor_hunk = 1
        await pilot.press("o")
        assert view.rows.folds == (0,)
        await pilot.press("z")
        assert view.unfolded and len(view.rows) == 200 and view.rows.folds == ()
        await pilot.press("z")
        assert not view.unfolded and view.rows.folds == (0, 1, 2)


async def test_show_replaces_the_content_and_resets_folds() -> None:
    app = DiffApp()
    async with app.run_test(size=(100, 24)) as pilot:
        view = app.query_one(DiffView)
        view.toggle_folds()
        view.show(FileChange("new.md", None, "# Title\n"), [A])
        await pilot.pause()
        assert not view.unfolded
        assert "# Title" in view.render_line(0).text
        assert view.render_line(0).text.startswith("✓")
        view.show(None, [])
        await pilot.pause()
        assert "No file selected" in view.render_line(0).text


async def test_colours_follow_the_app_theme() -> None:
    app = DiffApp(layout="unified")
    async with app.run_test(size=(100, 24)) as pilot:
        view = app.query_one(DiffView)
        row = next(i for i, r in enumerate(view.rows) if r.kind is RowKind.ADDED)
        dark = background_of(view.render_line(row), "import")
        app.theme = "vscode-light"
        await pilot.pause()
        light = background_of(view.render_line(row), "import")
        assert light != dark
        assert light == Color.parse(THEMES["vscode-light"].variables["diff-added-background"])


async def test_builtin_textual_themes_get_derived_diff_colours() -> None:
    app = DiffApp(theme="textual-dark", layout="unified")
    async with app.run_test(size=(100, 24)):
        view = app.query_one(DiffView)
        row = next(i for i, r in enumerate(view.rows) if r.kind is RowKind.ADDED)
        added = background_of(view.render_line(row), "import")
        surface = Color.parse(view.styles.background.hex)
        assert added != surface


class FileListApp(App[None]):
    def __init__(self, proposal: Proposal, decisions: Decisions) -> None:
        super().__init__()
        self.proposal = proposal
        self.decisions = decisions
        self.picked: list[int] = []

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return theme_variable_defaults(self.current_theme)

    def compose(self) -> ComposeResult:
        yield FileList()

    def on_mount(self) -> None:
        file_list = self.query_one(FileList)
        file_list.show(self.proposal, self.decisions)
        file_list.focus()

    def on_file_list_selected(self, message: FileList.Selected) -> None:
        self.picked.append(message.index)


def proposal_with_three_files() -> tuple[Proposal, Decisions]:
    proposal = Proposal(
        1,
        (
            FileChange("src/b.py", "a\nb\nc\nd\ne\n", "a\nB\nc\nd\nE\n"),
            FileChange("src/a.py", None, "x\ny\n"),
            FileChange("old.txt", "z\n", None),
        ),
    )
    decisions = Decisions.undecided(proposal)
    decisions.set("src/a.py", 0, A)
    decisions.set("old.txt", 0, R)
    decisions.set("src/b.py", 0, A)
    return proposal, decisions


def option_texts(file_list: FileList) -> list[str]:
    return [str(option.prompt) for option in file_list.options]


async def test_file_list_shows_kind_counts_and_progress() -> None:
    proposal, decisions = proposal_with_three_files()
    app = FileListApp(proposal, decisions)
    async with app.run_test(size=(60, 10)):
        file_list = app.query_one(FileList)
        lines = option_texts(file_list)
        assert [line.split()[:2] for line in lines] == [
            ["D", "old.txt"],
            ["A", "src/a.py"],
            ["M", "src/b.py"],
        ]
        assert lines[0].split()[-1] == "✗"
        assert lines[1].split()[-3:] == ["+2", "-0", "✓"]
        assert lines[2].split()[-4:] == ["+2", "-2", "●", "1"]
        assert file_list.current == 0


async def test_file_list_posts_selected_and_keeps_the_current_file_on_refresh() -> None:
    proposal, decisions = proposal_with_three_files()
    app = FileListApp(proposal, decisions)
    async with app.run_test(size=(60, 10)) as pilot:
        file_list = app.query_one(FileList)
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert app.picked == [2]
        decisions.set("src/b.py", 1, A)
        file_list.show(proposal, decisions)
        assert file_list.current == 2
        assert option_texts(file_list)[2].split()[-1] == "✓"


SNAPSHOT_SIZE = (100, 18)


@pytest.mark.parametrize("theme", sorted(THEMES))
@pytest.mark.parametrize("layout", ["split", "unified"])
def test_snapshot(snap_compare, theme: str, layout: str) -> None:  # type: ignore[no-untyped-def]
    app = DiffApp(SMALL, (A, R, U, U), theme=theme, layout=layout)
    assert snap_compare(app, terminal_size=SNAPSHOT_SIZE)


async def test_page_down_moves_a_whole_page_at_once() -> None:
    """No scroll animation: the page is there on the next frame."""
    change = FileChange("big.py", None, "".join(f"x{i} = {i}\n" for i in range(2000)))
    app = DiffApp(change, (U,))
    app.animation_level = "full"  # what a person has; the other tests turn animations off
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(DiffView)
        view.focus()
        await pilot.pause()
        view.action_page_down()  # what pagedown runs; checked before any animation frame
        assert view.scroll_y >= view.scrollable_content_region.height - 1


async def test_a_test_file_hunk_deleting_an_assert_is_marked() -> None:
    old = "def test_a():\n    x = 1\n    assert x == 1\n\n\ndef test_b():\n    assert True\n"
    new = "def test_a():\n    x = 2\n    assert x == 2\n\n\ndef test_b():\n    pass\n"
    app = DiffApp(FileChange("tests/test_x.py", old, new), (U, U))
    async with app.run_test(size=(100, 24)):
        view = app.query_one(DiffView)
        first_rows = [view.rows.hunk_rows(h).start for h in range(view.rows.hunk_count)]
        assert [row_text(view, i)[:2] for i in first_rows] == ["● ", "●!"]


class RowCountingDiffView(DiffView):
    """Records which rows are rendered afresh (not served from the line cache)."""

    def __init__(self) -> None:
        super().__init__()
        self.rendered: list[int] = []

    def _render_row(self, index: int, width: int, scroll_x: int) -> Strip:
        self.rendered.append(index)
        return super()._render_row(index, width, scroll_x)

    def _styling(self) -> Iterator[None]:
        """None ahead: styling the next hunk while idle renders its rows too, and a pause
        longer than the idle delay (a loaded machine) would count them."""
        return iter(())


class RowCountingApp(DiffApp):
    def compose(self) -> ComposeResult:
        yield RowCountingDiffView()


async def test_a_decision_or_cursor_move_re_renders_only_the_rows_of_the_hunks_it_changes() -> None:
    app = RowCountingApp()
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(RowCountingDiffView)
        await pilot.pause()
        hunk_rows = [set(view.rows.hunk_rows(h)) for h in range(view.rows.hunk_count)]
        assert len(hunk_rows) >= 3
        view.rendered.clear()

        view.set_decisions((U, A, U, U))
        await pilot.pause()
        decided = set(view.rendered)
        view.rendered.clear()
        view.cursor_hunk = 2
        await pilot.pause()
        moved = set(view.rendered)

    assert decided == hunk_rows[1]
    assert moved == hunk_rows[0] | hunk_rows[2]


class TextCountingDiffView(DiffView):
    """Counts how often a line's styled text is built."""

    def __init__(self) -> None:
        super().__init__()
        self.built = 0

    def _styled_text(self, *args, **kwargs) -> Strip:  # type: ignore[no-untyped-def]
        self.built += 1
        return super()._styled_text(*args, **kwargs)


class TextCountingApp(DiffApp):
    def compose(self) -> ComposeResult:
        yield TextCountingDiffView()


async def test_a_horizontal_scroll_crops_the_cached_line_texts_instead_of_building_them() -> None:
    wide = "".join(f"value_{n} = {'x' * 150}  # {n}\n" for n in range(10))
    change = FileChange("wide.py", wide, wide.replace("value_4 =", "value_4: int ="))
    app = TextCountingApp(change, (U,))
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(TextCountingDiffView)
        await pilot.pause()
        before = texts(view)
        built = view.built
        view.scroll_to(x=40, animate=False)
        await pilot.pause()
        after = texts(view)

    assert built > 0 and view.built == built
    assert after != before and any("xxxx" in line for line in after)


async def test_going_back_to_a_file_reuses_its_styled_lines() -> None:
    app = TextCountingApp(big_change(), (U, U, U))
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(TextCountingDiffView)
        big = view.change
        await pilot.pause()
        before = texts(view)
        built = view.built
        view.show(SMALL, (U, U, U, U))
        await pilot.pause()
        texts(view)
        built_small = view.built
        view.show(big, (U, U, U))
        await pilot.pause()
        after = texts(view)

    assert built > 0 and built_small > built
    assert view.built == built_small  # the big file's lines came from its cache
    assert after == before


def documented_functions(count: int, *, changed: bool) -> str:
    """``count`` functions of 40 lines, each with a docstring over three lines."""
    return "".join(
        f"def f_{i}():\n"
        '    """Doc of f_%d.\n    its middle line\n    """\n'
        % i
        + "".join(f"    value_{i}_{j} = {j}\n" for j in range(35))
        + f"    return {i}{' + 1' if changed else ''}\n"
        for i in range(count)
    )


async def settle_lexing(pilot: Any, view: DiffView) -> None:
    """Wait until the background lexing around the view has stopped."""
    await pilot.pause(0.1)
    for _ in range(100):
        if view._prelex_timer is None:
            return
        await pilot.pause(0.05)


def lexed_rows(view: DiffView) -> list[int]:
    """The rows whose new-side line has its syntax spans ready."""
    assert view._highlighters is not None
    new = view._highlighters[1]
    return [i for i, row in enumerate(view.rows) if row.new is not None and new.lexed(row.new)]


async def test_a_file_switch_lexes_only_the_rows_near_the_view_and_a_scroll_lexes_more() -> None:
    """A folded file of 100 hunks: showing it lexes the rows near the view, not the whole
    file; scrolling to the middle lexes the rows there, coloured as Python in context."""
    change = FileChange(
        "mod.py", documented_functions(100, changed=False), documented_functions(100, changed=True)
    )
    app = DiffApp(SMALL, (U, U, U, U))
    async with app.run_test(size=(100, 20)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        view.show(change, (U,) * 100)
        await settle_lexing(pilot, view)
        height = view.scrollable_content_region.height
        after_switch = lexed_rows(view)
        middle = len(view.rows) // 2
        view.scroll_to(y=middle, animate=False)
        await settle_lexing(pilot, view)
        after_scroll = lexed_rows(view)
        assert view._highlighters is not None
        new = view._highlighters[1]
        shown = [view.rows[i].new for i in range(middle, middle + height)]
        doc_lines = [n for n in shown if n is not None and "its middle line" in new_text(change, n)]
        doc_spans = [new.spans(n) for n in doc_lines]
        def_lines = [n for n in shown if n is not None and new_text(change, n).startswith("def")]
        def_spans = [new.spans(n) for n in def_lines]

    assert len(view.rows) > 10 * height  # most of the folded file is far from the view
    assert set(range(height)) <= set(after_switch)  # the view itself
    assert max(after_switch) < 4 * height  # the next hunk and half a page: no further
    assert len(after_switch) < len(view.rows) // 4
    assert set(range(middle, middle + height)) <= set(after_scroll)  # lexed as it came into view
    assert not set(after_scroll) & set(range(len(view.rows) - 2 * height, len(view.rows)))
    string = _token_style(Token.Literal.String.Doc)
    assert doc_spans and all(spans == ((0, 19, string),) for spans in doc_spans)
    keyword = _token_style(Token.Keyword)
    assert def_spans and all(spans[0] == (0, 3, keyword) for spans in def_spans)


def new_text(change: FileChange, line: int) -> str:
    return change.new_lines[line]


async def test_the_hunks_next_to_the_cursor_are_lexed_before_a_key_goes_there() -> None:
    old_text = numbered(20_000)
    new_text = old_text
    for at in (100, 5_000, 10_000, 15_000, 19_900):
        new_text = new_text.replace(f"value_{at} = {at}\n", f"value_{at} = {at} + 1\n")
    app = DiffApp(FileChange("big.py", old_text, new_text), (U,) * 5)
    async with app.run_test(size=(100, 12)) as pilot:
        view = app.query_one(DiffView)
        view.toggle_folds()
        view.cursor_hunk = 1
        assert view._highlighters is not None
        old, new = view._highlighters
        await pilot.pause(2.0)
        assert old.lexed(10_000) and new.lexed(10_000)  # hunk 2: where ] goes
        assert not old.lexed(15_000)  # two hunks away


class LayoutCountingDiffView(DiffView):
    """Records the refreshes that ask for a layout pass of the screen."""

    def __init__(self) -> None:
        super().__init__()
        self.layouts = 0

    def refresh(self, *regions, repaint=True, layout=False, recompose=False):  # type: ignore[no-untyped-def]
        self.layouts += layout
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)


class LayoutCountingApp(DiffApp):
    def compose(self) -> ComposeResult:
        yield LayoutCountingDiffView()


async def test_a_layout_or_fold_switch_that_keeps_the_scrollbars_lays_nothing_out() -> None:
    app = LayoutCountingApp(big_change(), (U, U, U))
    async with app.run_test(size=(100, 12)) as pilot:  # folded or not, the rows need scrolling
        view = app.query_one(LayoutCountingDiffView)
        await pilot.press("z")
        await pilot.pause()
        view.layouts = 0
        view.diff_layout = "unified"
        await pilot.pause()
        rows = len(view.rows)
        scrollbar = view.vertical_scrollbar.window_virtual_size
        view.toggle_folds()
        view.toggle_folds()
        await pilot.pause()

    assert view.layouts == 0
    assert rows == 20_003 and view.virtual_size.height == rows and scrollbar == rows


@pytest.mark.parametrize("first_short", [True, False], ids=["short-then-long", "long-then-short"])
async def test_switching_between_a_short_and_a_long_file_lays_nothing_out(
    first_short: bool,
) -> None:
    """The vertical scrollbar is always there, so a file switch repaints the view alone (a
    short file's bar is an empty track) and the text never shifts by the bar's width."""
    short = FileChange("short.py", "a = 1\n", "a = 2\n"), (U,)
    long = big_change(), (U, U, U)
    first, then = (short, long) if first_short else (long, short)
    app = LayoutCountingApp(*first)
    async with app.run_test(size=(100, 20)) as pilot:
        view = app.query_one(LayoutCountingDiffView)
        await pilot.pause()
        assert view.show_vertical_scrollbar
        text_region = view.scrollable_content_region
        view.layouts = 0
        view.show(*then)
        await pilot.pause()
        layouts = view.layouts
        region = view.scrollable_content_region

    assert view.show_vertical_scrollbar and not view.show_horizontal_scrollbar
    assert view.max_scroll_x == 0 and region == text_region
    assert layouts == 0


class PaintCountingDiffView(PaintedLines, DiffView):
    """Records the view's lines Textual asks for when it repaints (dirty lines only)."""


class PaintCountingApp(DiffApp):
    def compose(self) -> ComposeResult:
        yield PaintCountingDiffView()


async def test_a_cursor_move_inside_the_view_repaints_only_the_two_hunks_rows() -> None:
    app = PaintCountingApp()
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(PaintCountingDiffView)
        await pilot.pause()
        assert len(view.rows) < view.scrollable_content_region.height  # no scrolling
        view.painted.clear()
        view.cursor_hunk = 2
        await pilot.pause()

    changed = set(view.rows.hunk_rows(0)) | set(view.rows.hunk_rows(2))
    assert set(view.painted) == changed


class WalkCountingDiffView(DiffView):
    """Counts the lines the background lexing walks over, the walks it starts, its slices."""

    def __init__(self) -> None:
        super().__init__()
        self.walked = 0
        self.walks = 0
        self.slices = 0

    def _lines_near_view(self) -> Iterator[tuple[int, int]]:
        self.walks += 1
        for pair in super()._lines_near_view():
            self.walked += 1
            yield pair

    def _prelex(self) -> None:
        self.slices += 1
        super()._prelex()


class WalkCountingApp(DiffApp):
    def compose(self) -> ComposeResult:
        yield WalkCountingDiffView()


async def test_background_lexing_walks_the_rows_near_the_view_once_across_its_slices() -> None:
    old_text = numbered(20_000)
    new_text = old_text
    for at in range(50, 20_000, 500):  # 40 hunks, each in a chunk of its own
        new_text = new_text.replace(f"value_{at} = {at}\n", f"value_{at} = {at} + 1\n")
    app = WalkCountingApp(FileChange("big.py", old_text, new_text), (U,) * 40)
    async with app.run_test(size=(100, 40)) as pilot:
        view = app.query_one(WalkCountingDiffView)
        await settle_lexing(pilot, view)
        height = view.scrollable_content_region.height
        near = range(height + height // 2)  # the view and half a page below it
        shown = [(view.rows[i].old, view.rows[i].new) for i in near]
        assert view._highlighters is not None
        old, new = view._highlighters
        lexed = all(old.lexed(o) for o, _ in shown if o is not None) and all(
            new.lexed(n) for _, n in shown if n is not None
        )

    assert lexed
    assert view.slices > 1  # about 20 chunks: more than one 4 ms slice
    assert view.walks == 1  # one walk, resumed slice after slice
    hunk_screen = 2 * height  # the next hunk's screen is walked first, both sides
    assert view.walked <= hunk_screen + 2 * len(near)
