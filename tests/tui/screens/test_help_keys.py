"""The help lists every key of the review screen (issue 25, item 7: `t` was missing), and `l`
switches the Model and Tests tabs."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.binding import Binding
from textual.widgets import TabbedContent

from orch_tui.tui.screens.dialogs import HELP
from orch_tui.tui.screens.review.screen import ReviewScreen
from tests.support.tui_support import SIZE, make_tui_project, wait_for_review
from tests.tui.screens.review import test_tui_review

# The review tests' fixtures: asyncio for anyio, and workspace pytest without plugin autoload.
anyio_backend = test_tui_review.anyio_backend
_fast_workspace_pytest = test_tui_review._fast_workspace_pytest

SYMBOLS = {
    "right_square_bracket": "]",
    "left_square_bracket": "[",
    "right_curly_bracket": "}",
    "left_curly_bracket": "{",
    "question_mark": "?",
}


def test_every_review_key_is_in_the_help() -> None:
    missing = [
        binding.id
        for binding in ReviewScreen.BINDINGS
        if isinstance(binding, Binding)
        and not any(f"`{SYMBOLS.get(key, key)}`" in HELP for key in binding.key.split(","))
    ]
    assert missing == []


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
