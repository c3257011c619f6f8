"""`orch-tui history` in a real terminal, over runs made by the installed `orch-tui --auto`."""

from __future__ import annotations

import shutil

import pytest

from tests.support.e2e_support import make_project, orch_tui
from tests.support.fake_anthropic import Turn
from tests.support.tui_support import TmuxTui

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]

SPECS = {
    "alpha.md": "alpha_value",
    "beta.md": "beta_value",
    "gamma.md": "gamma_value",
}


def one_attempt(function: str) -> list[Turn]:
    module = f"def {function}():\n    return 42\n"
    test = f"from values import {function}\n\n\ndef test_{function}():\n    assert {function}() == 42\n"
    return [
        Turn.edits(
            f"Writing {function}.",
            [("create", "values.py", module), ("create", "tests/test_values.py", test)],
        ),
        Turn.say("Done."),
    ]


def test_history_lists_filters_and_opens_a_run_and_its_diff(tmp_path, fake_server) -> None:
    server = fake_server([turn for function in SPECS.values() for turn in one_attempt(function)])
    project = make_project(tmp_path / "project", spec_text="# alpha\n", fake_url=server.url)
    for name, function in SPECS.items():
        (project.root / name).write_text(f"# {name}\n\nA function `{function}` returning 42.\n")
        result = project.run(name, "--auto")  # each spec starts its own run
        assert result.returncode == 0, result.stdout + result.stderr
    assert len(project.run_dirs()) == 3

    tmux = TmuxTui(project.root, project.env)
    try:
        browse_history(tmux)
    finally:
        tmux.close()


def browse_history(tmux: TmuxTui) -> None:
    tmux.start([orch_tui(), "history"])
    screen = tmux.wait_for("gamma.md")
    assert "alpha.md" in screen and "beta.md" in screen and "SUCCESS" in screen

    tmux.keys("/")
    tmux.wait_for("filter: spec name")
    tmux.type("beta")
    screen = tmux.wait_gone("gamma.md")
    assert "beta.md" in screen and "alpha.md" not in screen

    tmux.keys("Enter")  # leave the filter for the list
    tmux.wait_for("⏎ Open")  # the list has the keys: a second Enter sent at once could reach
    # the filter again before it hands them over (it did on a loaded CI machine)
    tmux.keys("Enter")  # open the run: it is read in a worker, then its attempts show
    screen = tmux.wait_for("Tests × attempts", "0 generate")
    assert "beta.md" in screen
    tmux.keys("Enter")  # open its first attempt: files in path order, the test file first
    tmux.wait_for("from values import beta_value")
    tmux.keys("}")  # the next file
    screen = tmux.wait_for("def beta_value():")
    assert "return 42" in screen
