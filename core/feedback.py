"""What goes back to the model: the generation prompt and the patch prompt.

The patch prompt carries the failing tests (names, messages, trimmed
tracebacks), the raw output cut to a budget (head and tail), what the reviewer
decided, and the files as they now stand.
"""

from __future__ import annotations

from pathlib import Path

from core.checks import TestReport, trim_traceback
from core.config import Config
from core.junit import strip_paths
from core.prompts import render
from core.proposal import Decisions, HunkDecision, Proposal, effective_proposal
from core.workspace import read_tree


def clip_middle(text: str, budget: int) -> str:
    """Keep the head and the tail of ``text`` within ``budget`` characters."""
    if len(text) <= budget:
        return text
    half = budget // 2
    dropped = len(text) - 2 * half
    return f"{text[:half]}\n[... {dropped:,} characters cut ...]\n{text[-half:]}"


def system_prompt(config: Config) -> str:
    shown = [
        arg
        for arg in config.checks.test_command
        if "{junit}" not in arg and "{workspace}" not in arg
    ]
    command = " ".join(shown).replace("{python}", "python")
    extra = "; ".join(" ".join(check.command) for check in config.checks.extra)
    protected = ", ".join([".git/", *config.safety.protected_paths])
    return render(
        "system",
        test_command=f"`{command}`" + (f", then {extra}" if extra else ""),
        protected=protected,
    )


def generation_prompt(workspace: Path) -> str:
    files = sorted(read_tree(workspace))
    listing = (
        "\n".join(f"- {path}" for path in files) if files else "(none: the workspace is empty)"
    )
    return render("generate", listing=listing)


def describe_review(proposal: Proposal | None, decisions: Decisions | None) -> str:
    """The reviewer's decisions in words the model can act on."""
    if proposal is None or decisions is None:
        return "Nothing was reviewed (the proposal was empty)."
    if decisions.reject_reason is not None:
        return (
            "The reviewer rejected your whole proposal; none of it was applied. Their reason:\n"
            f"> {decisions.reject_reason}"
        )
    lines: list[str] = []
    effective = effective_proposal(proposal, decisions)
    for change in effective.changes:
        if change.path in decisions.edits:
            lines.append(
                f"- {change.path}: edited by the reviewer before it landed; the file below is "
                "what landed. Keep their edit."
            )
        states = decisions.for_file(change)
        for hunk in change.hunks:
            if states[hunk.index] is not HunkDecision.REJECTED:
                continue
            proposed = "".join(change.new_lines[hunk.new_start : hunk.new_end]).rstrip("\n")
            lines.append(
                f"- {change.path}: the reviewer rejected this change (old lines "
                f"{hunk.old_start + 1}-{hunk.old_end}); it was not applied:\n```\n{proposed}\n```"
            )
    if not lines:
        return "The reviewer accepted your proposal as it was."
    return "\n".join(lines)


def describe_failures(report: TestReport, workspace: Path, config: Config) -> str:
    feedback = config.feedback
    parts: list[str] = []
    for check in report.checks:
        if check.error:
            parts.append(f"- check `{check.name}`: {check.error}")
        failing = [t for t in check.tests if t.outcome in ("failed", "error")]
        for test in failing[: feedback.max_failures]:
            trace = trim_traceback(test.traceback, workspace, feedback.traceback_lines)
            parts.append(f"### {test.id} ({test.outcome})\n{test.message}\n```\n{trace}\n```")
        if len(failing) > feedback.max_failures:
            parts.append(f"(and {len(failing) - feedback.max_failures} more failing tests)")
    return "\n\n".join(parts) if parts else "No individual failing tests were reported."


def describe_files(workspace: Path, budget: int) -> str:
    blocks: list[str] = []
    used = 0
    tree = read_tree(workspace)
    for path, text in tree.items():
        newline = "" if text.endswith("\n") else "\n"
        block = f"### {path}\n```\n{text}{newline}```"
        if used + len(block) > budget:
            rest = len(tree) - len(blocks)
            blocks.append(f"({rest} more files not shown: view them with the editor tool)")
            break
        blocks.append(block)
        used += len(block)
    return "\n\n".join(blocks) if blocks else "(the workspace is empty)"


def patch_prompt(
    *,
    previous: int,
    report: TestReport | None,
    proposal: Proposal | None,
    decisions: Decisions | None,
    workspace: Path,
    config: Config,
) -> str:
    if report is None:
        summary = "The tests did not run: the proposal was rejected before it was applied."
        failures = ""
        output = ""
    else:
        summary = report.summary()
        failures = describe_failures(report, workspace, config)
        raw = "\n".join(f"$ {c.name}\n{c.output}" for c in report.checks)
        output = clip_middle(strip_paths(raw, workspace), config.feedback.output_chars)
    return render(
        "patch",
        previous=previous,
        review=describe_review(proposal, decisions),
        summary=summary,
        failures=failures,
        output=output,
        files=describe_files(workspace, config.feedback.file_chars),
    )
