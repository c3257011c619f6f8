"""What goes back to the model: the system prompt, the generation prompt and the patch prompt.

The patch prompt carries the failing tests (names, messages, trimmed
tracebacks), the raw output cut to a budget (head and tail) without the lines
the test details already carry, what the reviewer decided, and the files as they
now stand: in full where they differ from what the model last saw (a reviewer's
edit, a rejected hunk), by name otherwise (it can ``view`` them).

It is the uncached part of a patch request, so it holds only what changes per attempt, under
short labels; what they mean and what to do with them is in the system prompt, which every
request reads from the cache.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING

from orch_tui.core.attempt.project_map import MAP_CHARS, files_that_matter, project_map
from orch_tui.core.attempt.prompt_templates import render
from orch_tui.core.config.models import Config
from orch_tui.core.domain.tools import CLAUDE_CODE_TOOLS
from orch_tui.core.util.patterns import LazyPattern
from orch_tui.core.util.records import record
from orch_tui.core.workspace.apply import read_tree

if TYPE_CHECKING:  # the patch prompt's: a run's first request needs only the system prompt
    from orch_tui.core.checks.junit import TestCase
    from orch_tui.core.checks.report import TestReport
    from orch_tui.core.domain.proposal import Decisions, Proposal


def clip_middle(text: str, budget: int) -> str:
    """Keep the head and the tail of ``text`` within ``budget`` characters."""
    if len(text) <= budget:
        return text
    half = budget // 2
    dropped = len(text) - 2 * half
    return f"{text[:half]}\n[... {dropped:,} characters cut ...]\n{text[-half:]}"


def _shown_command(command: list[str]) -> str:
    """A check's command as the model should read it: no machine paths, no placeholders."""
    shown = [arg for arg in command if "{junit}" not in arg and "{workspace}" not in arg]
    return " ".join(shown).replace("{python}", "python")


def system_prompt(config: Config, prompts_dir: Path | None = None) -> str:
    command = _shown_command(config.checks.test_command)
    extra = "; ".join(_shown_command(check.command) for check in config.checks.extra)
    protected = ", ".join([".git/", *config.safety.protected_paths])
    test_command = f"`{command}`" + (f", then {extra}" if extra else "")
    if config.model.provider == "claude-code":
        # Its own tools in a folder of its own: no editor tool, no /workspace, no ask_user.
        tools = ", ".join(CLAUDE_CODE_TOOLS.split(","))
        return render(
            "system_claude_code",
            prompts_dir,
            test_command=test_command,
            protected=protected,
            tools=tools,
        )
    return render("system", prompts_dir, test_command=test_command, protected=protected)


def generation_prompt(workspace: Path, prompts_dir: Path | None = None) -> str:
    return render("generate", prompts_dir, listing=project_map(workspace, MAP_CHARS))


def change_prompt(
    workspace: Path, previous_run: str, diff: str, prompts_dir: Path | None = None
) -> str:
    """A change run's first prompt: the spec's edit since ``previous_run`` and the project map."""
    return render(
        "change",
        prompts_dir,
        previous=previous_run,
        diff=diff,
        listing=project_map(workspace, MAP_CHARS),
    )


def describe_review(proposal: Proposal | None, decisions: Decisions | None) -> str:
    """The reviewer's decisions in words the model can act on."""
    if proposal is None or decisions is None:
        return "nothing to review (the proposal was empty)."
    if decisions.reject_reason is not None:
        return (
            "rejected whole; none of it was applied. The reviewer's reason:\n"
            f"> {decisions.reject_reason}"
        )
    from orch_tui.core.domain.proposal import HunkDecision, effective_proposal

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
        return "accepted."
    return "\n".join(["accepted with the reviewer's changes:", *lines])


_FAILURE_SITE = LazyPattern(r"^(\S+\.py:\d+): \w+", re.MULTILINE)
"""pytest's last traceback line, ``calc.py:12: ZeroDivisionError``: where a failure happened."""
SAME_WAY = "Failing the same way: "
MORE_FAILING = "More failing tests: "


def failure_groups(tests: Sequence[TestCase], workspace: Path, lines: int) -> list[FailureGroup]:
    """Failing tests grouped by how they fail: the same error at the same line is one group,
    in the order each first failed; a failure with no known site is a group of its own."""
    from orch_tui.core.checks.junit import path_prefixes, trim_traceback

    groups: dict[tuple[str, ...], FailureGroup] = {}
    prefixes = path_prefixes(workspace)
    for test in tests:
        trace = trim_traceback(test.traceback, prefixes, lines)
        sites = _FAILURE_SITE.findall(trace)
        key = (test.outcome, test.message, sites[-1]) if sites else (test.id,)
        if key in groups:
            groups[key].others.append(test.id)
        else:
            groups[key] = FailureGroup(test, trace)
    return list(groups.values())


@record
class FailureGroup:
    """Tests that fail the same way: the first one's detail stands for all of them."""

    first: TestCase
    trace: str
    others: list[str] = field(default_factory=list)

    def detail(self) -> str:
        test = self.first
        message = "" if _said_in_trace(test.message, self.trace) else f"{test.message}\n"
        text = f"### {test.id} ({test.outcome})\n{message}```\n{self.trace}\n```"
        if self.others:
            text += f"\n{SAME_WAY}{', '.join(self.others)}"
        return text

    @property
    def ids(self) -> list[str]:
        return [self.first.id, *self.others]


def _said_in_trace(message: str, trace: str) -> bool:
    """Every line of ``message`` is one of the traceback's ``E`` lines: pytest's assertion
    message stands there already, so the detail need not carry it twice."""
    said = {line[1:].strip() for line in trace.splitlines() if line.startswith("E ")}
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return bool(lines) and all(line in said for line in lines)


def describe_failures(report: TestReport, workspace: Path, config: Config) -> str:
    """Each way the tests fail, once (traceback and all), with every test that fails that way
    named; past ``feedback.max_failures`` ways, the remaining tests by name only."""
    feedback = config.feedback
    parts: list[str] = []
    for check in report.checks:
        if check.error:
            parts.append(f"- check `{check.name}`: {check.error}")
        failing = [t for t in check.tests if t.outcome in ("failed", "error")]
        groups = failure_groups(failing, workspace, feedback.traceback_lines)
        parts += [group.detail() for group in groups[: feedback.max_failures]]
        rest = [test_id for group in groups[feedback.max_failures :] for test_id in group.ids]
        if rest:
            parts.append(MORE_FAILING + ", ".join(rest))
    return "\n\n".join(parts) if parts else "No individual failing tests were reported."


_PYTEST_FRAMING = LazyPattern(
    r"(platform |rootdir: |configfile: |plugins: |cachedir: |-+ generated xml file"
    r"|collected \d+ items?( / \d+ errors?)?( / \d+ deselected)?$)"
    r"|[=_]{3,} (?!.* in [\d.]+s).*[=_]{3,}$"  # section banners, not the closing count line
    r"|(\S+\.py )?[.FEsxX]+\s+\[ *\d+%\]$"  # progress lines
)
_CLOSING_COUNT = LazyPattern(r"={3,} .* in [\d.]+s( \(.*\))? ={3,}$")
_SHORT_SUMMARY = LazyPattern(r"(?:FAILED|ERROR) (.+?)(?: - .*)?$")
_DETAIL_HEADER = LazyPattern(r"^### (.+) \((?:failed|error)\)$", re.MULTILINE)


def without_repeated_lines(output: str, details: str, *, counted: bool = False) -> str:
    """``output`` without the non-blank lines ``details`` already carries (spacing aside),
    the short summary's line for each test ``details`` shows (its id and message), and
    pytest's framing (its header, item count, section banners and progress lines); when the
    check's tests were ``counted`` (the summary line carries their counts), without pytest's
    closing count line either."""
    known = {" ".join(line.split()) for line in details.splitlines() if line.strip()}
    shown = set(_DETAIL_HEADER.findall(details)) | _named_in_lists(details)

    def repeated(line: str) -> bool:
        summary = _SHORT_SUMMARY.match(line)
        return (
            " ".join(line.split()) in known
            or _PYTEST_FRAMING.match(line) is not None
            or (summary is not None and summary.group(1) in shown)
            or (counted and _CLOSING_COUNT.match(line) is not None)
        )

    kept = [line for line in output.splitlines() if not line.strip() or not repeated(line)]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept))


def _named_in_lists(details: str) -> set[str]:
    """The test ids ``details`` names in its lists of tests failing the same way (or more)."""
    named: set[str] = set()
    for line in details.splitlines():
        for label in (SAME_WAY, MORE_FAILING):
            if line.startswith(label):
                named.update(line[len(label) :].split(", "))
    return named


def checks_output(report: TestReport, details: str, workspace: Path) -> str:
    """Each check's output as ``$ name`` and the lines ``details`` does not carry; a check
    with nothing left is left out."""
    from orch_tui.core.checks.junit import strip_paths

    blocks = []
    for check in report.checks:
        output = strip_paths(check.output, workspace)
        kept = without_repeated_lines(output, details, counted=bool(check.tests)).strip("\n")
        if kept.strip():
            blocks.append(f"$ {check.name}\n{kept}")
    return "\n".join(blocks)


def seen_files(tree: dict[str, str], proposal: Proposal | None) -> set[str]:
    """The files of ``tree`` the model has seen as they stand: unchanged since its last turn.

    The workspace changes only where a proposal lands, so a file is unchanged since the
    model's last attempt unless that attempt's proposal touched it; a touched file is still
    as the model saw it when it landed exactly as proposed (no reviewer edit, no rejected
    hunk). An empty file is never worth a name instead of its text.
    """
    proposed = {c.path: c.new_text for c in proposal.changes} if proposal else {}
    return {
        path for path, text in tree.items() if text.strip() and proposed.get(path, text) == text
    }


def describe_files(tree: dict[str, str], budget: int, seen: Collection[str] = ()) -> str:
    """The files in full within ``budget`` characters; the ``seen`` ones only by name."""
    blocks: list[str] = []
    used = 0
    named = [path for path in tree if path in seen]
    if named:
        blocks.append("Unchanged: " + ", ".join(named))
    shown = [path for path in tree if path not in seen]
    for count, path in enumerate(shown):
        text = tree[path]
        newline = "" if text.endswith("\n") else "\n"
        block = f"### {path}\n```\n{text}{newline}```"
        if used + len(block) > budget:
            rest = len(shown) - count
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
    changed: Sequence[str] = (),
    task: str = "",
    prompts_dir: Path | None = None,
    report_attempt: int | None = None,
) -> str:
    """``report`` is the checks of ``report_attempt`` (None: of ``previous``): after a rejected
    proposal, the last checks that ran. When the project is large, the files sent in full are
    those the run ``changed`` and those the failures or the ``task`` name."""
    mentions: list[str] = [task]
    not_run = "the tests did not run: the proposal was rejected before it was applied."
    if report is None:
        summary = not_run
        failures = ""
        output = ""
    else:
        summary = report.summary()
        if report_attempt is not None and report_attempt != previous:
            summary = f"{not_run} Still failing from attempt {report_attempt}'s checks: {summary}"
        failures = describe_failures(report, workspace, config)
        output = checks_output(report, failures, workspace)
        output = clip_middle(output, config.feedback.output_chars)
        mentions += [failures, output]
    tree = read_tree(workspace)
    project = ""
    if sum(len(text) + len(path) + 12 for path, text in tree.items()) > config.feedback.file_chars:
        project = (
            "Project map (read any other file with `view`):\n"
            + project_map(workspace, config.feedback.file_chars // 4)
            + "\n\n"
        )
        focus = files_that_matter(workspace, changed, mentions)
        tree = {path: tree[path] for path in focus if path in tree}
    return render(
        "patch",
        prompts_dir,
        previous=previous,
        review=describe_review(proposal, decisions),
        summary=summary,
        failures=f"{failures}\n\n" if failures else "",
        output=f"Output:\n```\n{output}\n```\n\n" if output else "",
        files=project
        + describe_files(
            tree, config.feedback.file_chars - len(project), seen_files(tree, proposal)
        ),
    )
