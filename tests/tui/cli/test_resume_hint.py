"""The resume hint prints a command that resumes: no --fresh, no spent --guidance."""

from __future__ import annotations

import pytest

from orch_tui.tui.cli.resume_hint import resume_command, resume_hint


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["spec.md", "--auto"], "orch-tui spec.md --auto"),
        (["spec.md", "--auto", "--fresh"], "orch-tui spec.md --auto"),
        (["spec.md", "--guidance", "use a dict", "--auto"], "orch-tui spec.md --auto"),
        (["spec.md", "--guidance=3"], "orch-tui spec.md"),
        (["spec.md", "--continue", "--max-retries", "2"], "orch-tui spec.md"),
        (["spec.md", "--continue", "--max-retries=2"], "orch-tui spec.md"),
        (["spec.md", "--max-retries", "2", "--fresh"], "orch-tui spec.md --max-retries 2"),
        (
            ["my spec.md", "--give-up", "--config", "a b.toml"],
            "orch-tui 'my spec.md' --config 'a b.toml'",
        ),
    ],
)
def test_the_command_that_resumes(argv: list[str], command: str) -> None:
    assert resume_command(argv) == command


def test_the_hint_names_the_command_only_when_it_is_not_the_same() -> None:
    assert resume_hint(["s.md", "--fresh"]) == "run `orch-tui s.md` to resume"
    assert resume_hint(["s.md", "--auto"]) == "run the same command to resume"
