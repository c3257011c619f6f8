"""The installed ``orch-tui spec.md`` in a real terminal (tmux), against a local fake API.

Each test has its own tmux server (``tmux -L``), project folder and fake Anthropic server; it
types keys with ``send-keys``, reads the screen with ``capture-pane`` until the expected text
shows (or a deadline passes), and checks what landed in the workspace and what the model was
sent.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from tests.support.e2e_support import Project, attempt_turns, first_requests, orch_tui, write_tree
from tests.support.fake_anthropic import FakeAnthropic, Turn
from tests.support.tui_support import (
    ADD_TESTS,
    CALC_BUGGY,
    CALC_FIXED,
    CALC_TESTS,
    FIRST_ATTEMPT,
    FIX_ADD,
    FIX_MUL,
    SPEC_TEXT,
    TmuxTui,
)

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

MUL_STILL_BROKEN = CALC_FIXED.replace("return a * b", "return a + b")


def turns(*attempts: Sequence[Turn]) -> list[Turn]:
    return [turn for attempt in attempts for turn in attempt]


@pytest.fixture
def open_tui(
    fake_server: Callable[..., FakeAnthropic], project_factory: Callable[..., Project]
) -> Iterator[Callable[..., tuple[TmuxTui, Project, FakeAnthropic]]]:
    """``open_tui(*attempts)``: the calc project, a fake serving those attempts, orch-tui open."""
    opened: list[TmuxTui] = []

    def open_(*attempts: Sequence[Turn]) -> tuple[TmuxTui, Project, FakeAnthropic]:
        fake = fake_server(turns(*attempts))
        project = project_factory(spec_text=SPEC_TEXT, fake_url=fake.url)
        write_tree(project.workspace, {"calc.py": CALC_BUGGY})
        tui = TmuxTui(project.root, project.env)
        opened.append(tui)
        tui.start([orch_tui(), "spec.md"])
        tui.wait_for("REVIEWING", "calc.py", "tests/test_calc.py", "0 accepted")
        return tui, project, fake

    yield open_
    for tui in opened:
        tui.close()


def read(project: Project, relative: str) -> str | None:
    path = project.workspace / relative
    return path.read_text(encoding="utf-8") if path.exists() else None


def quit_saved(tui: TmuxTui) -> None:
    tui.keys("q")
    assert tui.wait_for_exit() == 130


def test_accept_all_see_the_tests_fail_review_the_patch_and_succeed(open_tui: Any) -> None:
    tui, project, _fake = open_tui(
        attempt_turns("add first", [FIX_ADD, ADD_TESTS]), attempt_turns("now mul", [FIX_MUL])
    )
    tui.keys("Enter")
    screen = tui.wait_for("attempt 1/", "REVIEWING", "1 failing → 0; fixes test_mul")
    assert "✗ tests/test_calc.py::test_mul" in screen or "1 failed" in screen
    tui.keys("Enter")
    tui.wait_for("SUCCESS", "0 rewritten, 0 weakened")
    tui.keys("q")
    assert tui.wait_for_exit() == 0
    assert read(project, "calc.py") == CALC_FIXED
    assert project.state()["state"] == "SUCCESS"


def test_N_rejects_a_file_and_it_is_absent_from_the_workspace(open_tui: Any) -> None:
    tui, project, _fake = open_tui(FIRST_ATTEMPT, attempt_turns("tests again", [ADD_TESTS]))
    tui.keys("}", "N")
    tui.wait_for("0 accepted · 1 rejected · 2 undecided")
    tui.keys("Enter")
    tui.wait_for("attempt 1/", "REVIEWING")
    assert read(project, "calc.py") == CALC_FIXED
    assert read(project, "tests/test_calc.py") is None
    quit_saved(tui)


def test_n_rejects_one_hunk_and_only_that_hunk_stays_out(open_tui: Any) -> None:
    tui, project, _fake = open_tui(FIRST_ATTEMPT, attempt_turns("mul again", [FIX_MUL]))
    tui.keys("]", "n", "Enter")  # typed at once: enter waits behind the decision
    tui.wait_for("attempt 1/", "REVIEWING")
    assert read(project, "calc.py") == MUL_STILL_BROKEN
    assert read(project, "tests/test_calc.py") == CALC_TESTS
    quit_saved(tui)


def test_e_edits_a_file_and_the_edit_is_in_the_workspace(open_tui: Any) -> None:
    tui, project, _fake = open_tui(FIRST_ATTEMPT)
    tui.keys("}", "e")
    tui.wait_for("Editing tests/test_calc.py")
    tui.type("# checked by hand")
    tui.keys("Enter", "C-s")
    tui.wait_for("Edited tests/test_calc.py")
    tui.keys("Enter")
    tui.wait_for("SUCCESS")
    assert read(project, "tests/test_calc.py") == "# checked by hand\n" + CALC_TESTS
    tui.keys("q")
    assert tui.wait_for_exit() == 0


def test_f_rejects_the_proposal_and_the_reason_is_in_the_next_request(open_tui: Any) -> None:
    tui, project, fake = open_tui(FIRST_ATTEMPT, attempt_turns("bugs only", [FIX_ADD, FIX_MUL]))
    tui.keys("f")
    tui.wait_for("Tell the model why")
    tui.type("keep the tests out of this")
    tui.keys("Enter")
    tui.wait_for("attempt 1/", "REVIEWING")
    assert read(project, "calc.py") == CALC_BUGGY
    opening = first_requests(request.body for request in fake.requests)
    assert len(opening) == 2
    assert "keep the tests out of this" in str(opening[1]["messages"][0]["content"])
    quit_saved(tui)


def test_quit_mid_review_then_resume_from_the_history_with_the_same_decisions(
    open_tui: Any,
) -> None:
    tui, project, _fake = open_tui(FIRST_ATTEMPT, attempt_turns("add again", [FIX_ADD]))
    tui.keys("n")
    tui.wait_for("0 accepted · 1 rejected · 2 undecided")
    tui.keys("q")
    assert tui.wait_for_exit() == 130
    tui.start([orch_tui(), "history"])
    tui.wait_for("Run history", "REVIEWING")
    tui.keys("r")
    tui.wait_for("orch-tui · run", "0 accepted · 1 rejected · 2 undecided", "file 1/2 · hunk 2/2")
    tui.keys("Enter")
    tui.wait_for("attempt 1/", "REVIEWING")  # the rejected hunk kept add broken: tests fail
    assert read(project, "calc.py") == CALC_BUGGY.replace("return a + b", "return a * b")
    quit_saved(tui)
