"""Control characters in model-chosen text are spelt out before they reach a terminal."""

from __future__ import annotations

import io
import json

from hypothesis import given
from hypothesis import strategies as st

from orch_tui.core.domain.events import Notice, ToolEdit
from orch_tui.core.util.terminal_text import (
    CONTROL_CODES,
    escape_controls,
    escape_json_controls,
    is_unsafe,
    mask_unsafe,
)
from orch_tui.tui.cli.printer import JsonPrinter, LinePrinter


def test_control_characters_are_spelt_out_and_tab_is_kept() -> None:
    assert escape_controls("a\r\x1b[2Kb\tc\x9b\x7f\n") == "a\\r\\x1b[2Kb\tc\\x9b\\x7f\\n"
    assert escape_controls("one\ntwo\r", newlines=True) == "one\ntwo\\r"
    assert escape_controls("plain é ✓ [b]") == "plain é ✓ [b]"


def test_a_lone_surrogate_is_spelt_out_so_it_can_be_printed() -> None:
    assert escape_controls("x\udc80y") == "x\\udc80y"
    escape_controls("x\udc80y").encode("utf-8")


BIDI_AND_INVISIBLE = "\u202e\u2066\u2069\u200e\u061c\u200b\u200d\u2060\ufeff\u00ad\u2028\U000e0041"


def test_bidi_controls_and_invisible_characters_are_spelt_out() -> None:
    """``\u202e`` shows ``evil\u202egnp.py`` as ``evilyp.png``; a zero-width space or a tag
    character hides text in plain sight."""
    assert escape_controls(f"evil{BIDI_AND_INVISIBLE}gnp.py") == (
        "evil\\u202e\\u2066\\u2069\\u200e\\u061c\\u200b\\u200d\\u2060\\ufeff\\xad"
        "\\u2028\\U000e0041gnp.py"
    )
    assert mask_unsafe("a\u202eb\tc\x1b") == "a\ufffdb\tc\ufffd"  # one column per character
    line = escape_json_controls(json.dumps(f"x{BIDI_AND_INVISIBLE}", ensure_ascii=False))
    assert not any(is_unsafe(char) for char in line)
    assert json.loads(line) == f"x{BIDI_AND_INVISIBLE}"


@given(st.text())
def test_nothing_a_terminal_acts_on_is_left(text: str) -> None:
    shown = escape_controls(text)
    assert not {ord(char) for char in shown} & (CONTROL_CODES - {0x09})
    assert not [char for char in shown if is_unsafe(char) and char != "\t"]
    assert escape_controls(shown) == shown
    shown.encode("utf-8")
    assert len(mask_unsafe(text)) == len(text)


def test_auto_lines_escape_a_refused_edits_detail_and_a_notice() -> None:
    out = io.StringIO()
    printer = LinePrinter(out)
    printer(ToolEdit(attempt=0, command="create", path="a\x1b]0;x\x07", ok=False, detail="no\rpe"))
    printer(Notice(message="note\x1b[31m\u202e\u200b"))
    assert out.getvalue() == (
        "[0/0]   create a\\x1b]0;x\\x07 (refused: no\\rpe)\nnote: note\\x1b[31m\\u202e\\u200b\n"
    )


def test_json_lines_escape_c1_and_lone_surrogates_and_stay_json() -> None:
    out = io.StringIO()
    JsonPrinter(out)(Notice(message="csi\x9b surrogate\udc80 é"))
    line = out.getvalue()
    assert "\x9b" not in line and "\udc80" not in line and "é" in line
    line.encode("utf-8")
    assert json.loads(line)["message"] == "csi\x9b surrogate\udc80 é"
