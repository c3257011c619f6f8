"""``orch-tui inbox`` in a real terminal, over a batch the installed ``orch-tui batch`` ran."""

from __future__ import annotations

import shutil

import pytest

from orch_tui.core.batch.reviewed import read_review
from tests.support.e2e_support import child_env, orch_tui
from tests.support.inbox_support import CALC, TEST, batch_project
from tests.support.tui_support import TmuxTui

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def test_the_inbox_opens_a_run_lands_the_accepted_hunks_and_forgets_it(tmp_path) -> None:
    project = batch_project(tmp_path / "project")
    tmux = TmuxTui(project, child_env())
    try:
        tmux.start([orch_tui(), "inbox"])
        screen = tmux.wait_for("/one", "/two", "2 of 2 runs waiting")
        assert "SUCCESS" in screen and "1 passed" in screen
        tmux.type("two")
        screen = tmux.wait_gone("/one")
        assert "1 of 2 runs waiting" in screen
        tmux.keys("Enter")
        screen = tmux.wait_for("tests ✓ 1 passed", "def add(a, b):")
        assert "accepted hunks land in" in screen
        tmux.keys("y")  # calc.py
        tmux.wait_for("1 accepted")
        tmux.keys("n")  # extra.py
        tmux.wait_for("1 rejected")
        tmux.keys("y", "Enter")  # the test, then land
        tmux.wait_for("hunk rejected")
        tmux.keys("Escape")  # drop the rejected hunk: nothing goes back
        tmux.wait_for("0 of 1 runs waiting", "2 file(s) landed")  # the filter still says two
        tmux.keys("Escape")
        assert tmux.wait_for_exit() == 0
    finally:
        tmux.close()

    workspace = project / "workspace"
    assert (workspace / "calc.py").read_text() == CALC
    assert (workspace / "tests/test_calc.py").read_text() == TEST
    assert not (workspace / "extra.py").exists()
    (batch,) = (project / "batches").iterdir()
    review = read_review(batch / "two")
    assert review is not None and review.rejected_hunks == 1 and review.sent_back == ""
