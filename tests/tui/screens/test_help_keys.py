"""The help lists every key of the review screen (issue 25, item 7: `t` was missing) and every
mark it draws (`!` had no legend), the status line says what `!` means on its hunk, and `l`
switches the Model and Tests tabs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.binding import Binding
from textual.widgets import TabbedContent

from orch_tui.tui.screens.dialogs import HELP
from orch_tui.tui.screens.review.screen import ReviewScreen
from orch_tui.tui.widgets.diff.coverage_gutter import COVERED_MARK, UNCOVERED_MARK
from orch_tui.tui.widgets.diff.paint import MARKS, WEAKENING_MARK
from tests.support.e2e_support import attempt_turns
from tests.support.tui_support import (
    CALC_BUGGY,
    CALC_TESTS,
    FIX_MUL,
    SIZE,
    make_tui_project,
    status_text,
    wait_for_review,
)
from tests.tui.screens.review import test_tui_review

# The review tests' fixture: workspace pytest without plugin autoload.
_fast_workspace_pytest = test_tui_review._fast_workspace_pytest

SYMBOLS = {
    "right_square_bracket": "]",
    "left_square_bracket": "[",
    "right_curly_bracket": "}",
    "left_curly_bracket": "{",
    "question_mark": "?",
}


def review_bindings() -> list[Binding]:
    """The review screen's bindings that have an id: its own and its base screens'."""
    return [
        binding
        for cls in ReviewScreen.__mro__
        for binding in cls.__dict__.get("BINDINGS", [])
        if isinstance(binding, Binding) and binding.id
    ]


def test_every_review_key_is_in_the_help() -> None:
    missing = [
        binding.id
        for binding in review_bindings()
        if not any(f"`{SYMBOLS.get(key, key)}`" in HELP for key in binding.key.split(","))
    ]
    assert missing == []


def test_every_review_key_is_in_the_readmes_keymap_ids_with_its_key() -> None:
    """`ui.keymap` remaps by id: the README lists each id of the review screen (its own keys
    and those of the screens it is built on), with the key it has."""
    readme = (Path(__file__).parents[3] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Keys of the review screen", 1)[1].split("\n### ", 1)[0]
    listed = dict(re.findall(r"`([a-z_]+\.[a-z_]+)`\s+\(([^)]+)\)", section))
    bindings = review_bindings()
    assert len(bindings) > 15
    wrong = {
        binding.id: listed.get(binding.id)
        for binding in bindings
        if listed.get(binding.id) != SYMBOLS.get(binding.key, binding.key)
    }
    assert wrong == {}


def test_every_mark_of_the_diff_and_the_file_list_has_a_legend_in_the_help() -> None:
    legend = HELP.partition("**Marks**")[2]
    marks = [*MARKS.values(), WEAKENING_MARK, COVERED_MARK, UNCOVERED_MARK, "✎ edited"]
    assert [mark for mark in marks if f"`{mark}`" not in legend] == []
    assert "`!` beside a hunk's mark: the hunk weakens a test" in legend


@pytest.mark.anyio
async def test_the_status_line_says_what_the_mark_means_on_a_hunk_that_weakens_a_test(
    tmp_path: Path,
) -> None:
    weaken = ("str_replace", "tests/test_calc.py", "assert add(2, 3) == 5", "assert True")
    script = [attempt_turns("The add test is wrong.", [FIX_MUL, weaken])]
    seed = {"calc.py": CALC_BUGGY, "tests/test_calc.py": CALC_TESTS}
    app = make_tui_project(tmp_path, script, seed=seed).app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for_review(pilot, app)
        assert "file 1/2 · hunk 1/1 · " in status_text(screen)
        assert "weakens" not in status_text(screen)
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert "file 2/2 · hunk 1/1 ! weakens a test · " in status_text(screen)
        await pilot.press("q")


@pytest.mark.anyio
async def test_l_switches_between_the_model_and_tests_tabs(tmp_path: Path) -> None:
    project = make_tui_project(tmp_path)
    app = project.app()
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_review(pilot, app)
        tabs = app.screen.query_one(TabbedContent)
        first = tabs.active
        await pilot.press("l")
        await pilot.pause()
        second = tabs.active
        await pilot.press("l")
        await pilot.pause()
        assert {first, second} == {"model-tab", "tests-tab"} and tabs.active == first
        await pilot.press("q")
