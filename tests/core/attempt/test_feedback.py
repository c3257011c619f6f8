"""What goes back to the model after a review and a test run."""

from __future__ import annotations

from pathlib import Path

from orch_tui.core.attempt.feedback import (
    checks_output,
    clip_middle,
    describe_files,
    describe_review,
    patch_prompt,
    seen_files,
    system_prompt,
    without_repeated_lines,
)
from orch_tui.core.checks.runner import CheckResult, TestCase, TestReport
from orch_tui.core.config.models import CheckCommand, Config
from orch_tui.core.domain.proposal import Decisions, FileChange, HunkDecision, Proposal


def test_clip_middle_keeps_head_and_tail() -> None:
    text = "H" * 100 + "M" * 1000 + "T" * 100
    clipped = clip_middle(text, 200)
    assert clipped.startswith("H" * 100) and clipped.endswith("T" * 100)
    assert "1,000 characters cut" in clipped
    assert clip_middle("short", 200) == "short"


def proposal() -> Proposal:
    old = "a\nb\nc\nd\ne\nf\n"
    new = "A\nb\nc\nd\ne\nF\n"
    return Proposal(1, (FileChange("m.py", old, new), FileChange("n.py", None, "n\n")))


def test_rejected_hunks_and_edits_are_described() -> None:
    decisions = Decisions()
    decisions.set("m.py", 1, HunkDecision.REJECTED)
    decisions.edit("n.py", "edited\n")
    text = describe_review(proposal(), decisions)
    assert "m.py: the reviewer rejected this change (old lines 6-6)" in text and "\nF\n" in text
    assert "n.py: edited by the reviewer" in text
    assert "A\n" not in text.split("```")[1]  # the accepted hunk is not listed as rejected


def test_a_whole_rejection_carries_the_reason() -> None:
    decisions = Decisions(reject_reason="no globals please")
    assert "> no globals please" in describe_review(proposal(), decisions)


def failed_report(failing: TestCase, output: str) -> TestReport:
    """A pytest check that failed with one failing test."""
    check = CheckResult(
        name="tests",
        command=["pytest"],
        exit_code=1,
        timed_out=False,
        duration_s=0.1,
        output=output,
        dropped_bytes=0,
        tests=[failing],
    )
    return TestReport([check])


def test_patch_prompt_carries_failures_output_and_files(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("print('hi')\n")
    config = Config()
    config.feedback.output_chars = 600
    failing = TestCase(
        id="tests/test_m.py::test_x",
        outcome="failed",
        message="assert 1 == 2",
        traceback=f"{tmp_path}/tests/test_m.py:3: in test_x\n    assert 1 == 2\nE   assert 1 == 2",
    )
    output = "x" * 5000 + f"\nFAILED {tmp_path}/tests/test_m.py::test_x"
    prompt = patch_prompt(
        previous=0,
        report=failed_report(failing, output),
        proposal=proposal(),
        decisions=Decisions(),
        workspace=tmp_path,
        config=config,
    )
    assert "### tests/test_m.py::test_x (failed)" in prompt and "assert 1 == 2" in prompt
    assert str(tmp_path) not in prompt
    assert "characters cut" in prompt
    assert "### m.py\n```\nprint('hi')\n```" in prompt
    assert prompt.startswith("Attempt 0: accepted.\nChecks: 1 failed\n")


def test_how_to_read_the_feedback_is_in_the_system_prompt_not_the_patch_prompt(
    tmp_path: Path,
) -> None:
    """The fixed wording is in the cached system prompt; each patch prompt pays only its data."""
    (tmp_path / "m.py").write_text("A\nb\nc\nd\ne\nF\n")
    failing = TestCase(id="t::test_x", outcome="failed", message="boom", traceback="E   boom")
    prompt = patch_prompt(
        previous=0,
        report=failed_report(failing, "FAILED t::test_x - boom\n"),
        proposal=proposal(),
        decisions=Decisions(),
        workspace=tmp_path,
        config=Config(),
    )
    system = system_prompt(Config())
    fixed = ("smallest change that makes every check pass", "view them with the editor tool")
    for wording in fixed:
        assert wording in system and wording not in prompt, wording
    for label in ("`Attempt N:`", "`accepted`", "`Checks:`", "`Output:`", "`Unchanged:`"):
        assert label in system, label
    assert prompt == (
        "Attempt 0: accepted.\nChecks: 1 failed\n\n### t::test_x (failed)\n```\nE   boom\n```"
        "\n\nUnchanged: m.py\n"
    )


def test_the_system_prompt_names_the_test_command_and_protected_paths() -> None:
    config = Config()
    config.safety.protected_paths = ["tests/test_spec.py"]
    text = system_prompt(config)
    assert "python -m pytest" in text and "{junit}" not in text
    assert "tests/test_spec.py" in text and "/workspace" in text


def test_the_system_prompt_shows_extra_checks_without_placeholders() -> None:
    config = Config()
    config.checks.extra = [
        CheckCommand(name="types", command=["{python}", "-m", "mypy", "{workspace}"]),
        CheckCommand(name="lint", command=["ruff", "check", "."]),
    ]
    text = system_prompt(config)
    assert "then python -m mypy; ruff check ." in text
    assert "{" not in text.replace("{{", "")


def test_raw_output_drops_the_lines_the_test_details_carry() -> None:
    details = "### t::test_x (failed)\nassert 1 == 2\n```\nE       assert 1 == 2\n```"
    output = (
        "===== test session starts =====\nplatform linux -- Python 3.11\nrootdir: /w\n"
        "collected 1 item\n\ntests/test_x.py F.   [ 50%]\n..   [100%]\n\n==== FAILURES ====\n"
        "____ test_x ____\nE   assert 1 == 2\nsee the log\n"
        "----- generated xml file: /w/r.xml -----\nFAILED t::test_x - assert 1 == 2\n"
        "FAILED t::test_y - not shown\n===== 1 failed in 0.12s =====\n"
    )

    trimmed = without_repeated_lines(output, details)

    kept = "\n\nsee the log\nFAILED t::test_y - not shown"
    assert trimmed == kept + "\n===== 1 failed in 0.12s ====="
    assert without_repeated_lines(output, details, counted=True) == kept


def test_a_check_with_nothing_left_to_say_is_left_out_of_the_output(tmp_path: Path) -> None:
    failing = TestCase(id="t::test_x", outcome="failed", message="boom", traceback="E   boom")
    tests = failed_report(failing, "collected 2 items\nFAILED t::test_x - boom\n").checks[0]
    lint = CheckResult("lint", ["ruff"], 1, False, 0.1, "x.py:1: unused import\n", 0, [])
    details = "### t::test_x (failed)\nboom"

    assert checks_output(TestReport([tests, lint]), details, tmp_path) == (
        "$ lint\nx.py:1: unused import"
    )


def test_files_seen_are_those_untouched_or_landed_as_the_model_wrote_them() -> None:
    tree = {"m.py": "A\nb\nc\nd\ne\nF\n", "n.py": "edited\n", "old.py": "x\n", "e.py": ""}

    assert seen_files(tree, proposal()) == {"m.py", "old.py"}  # n.py: the reviewer edited it
    assert seen_files(tree, None) == {"n.py", "m.py", "old.py"}  # nothing landed


def test_seen_files_are_named_and_the_others_sent_in_full() -> None:
    tree = {"a.py": "seen\n", "b.py": "new\n"}

    text = describe_files(tree, 10_000, {"a.py"})

    assert text.startswith("Unchanged: a.py\n")
    assert "seen\n" not in text and "### b.py\n```\nnew\n```" in text
