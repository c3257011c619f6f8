"""The help lists every key of the review screen (issue 25, item 7: `t` was missing)."""

from __future__ import annotations

from textual.binding import Binding

from orch_tui.tui.screens.dialogs import HELP
from orch_tui.tui.screens.review.screen import ReviewScreen

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
