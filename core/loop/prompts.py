"""The prompt pieces a run's requests share: the system blocks and the patch prompt.

The system blocks (instructions, the project's ``AGENTS.md``, the spec) form, with the
tools, the cached prefix of every request. The patch prompt is built from the previous
attempt's logs: its checks, its proposal, the person's decisions, the files as they stand.
"""

from __future__ import annotations

from typing import Any

from orch_tui.core.attempt.feedback import patch_prompt as render_patch_prompt
from orch_tui.core.attempt.feedback import system_prompt
from orch_tui.core.attempt.project_map import project_instructions
from orch_tui.core.checks.report import TestReport
from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.spec import Spec
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.runlog.writer import RunLog


def system_blocks(config: Config, paths: ProjectPaths, spec: Spec) -> list[dict[str, Any]]:
    """Instructions and spec: with the tools, the cached prefix of every request."""
    return [
        {"type": "text", "text": system_prompt(config, paths.prompts)},
        *project_instructions(paths.workspace),
        {
            "type": "text",
            "text": f'<spec path="{spec.path.name}">\n{spec.text}\n</spec>' + data_section(spec),
            "cache_control": {"type": "ephemeral"},
        },
    ]


DATA_INTRO = (
    "The data files below come with the spec. Each is copied into the workspace at the path "
    "shown: read it there as you read any file; it cannot be changed."
)
"""Names no tool: the same prefix goes to Claude Code, whose tools are its own (issue 25)."""


def data_section(spec: Spec) -> str:
    """The data files' descriptions, after the spec in the cached prefix ('' without any)."""
    if not spec.data:
        return ""
    return "\n\n" + "\n\n".join([DATA_INTRO, *(data.prompt_block() for data in spec.data)])


def patch_prompt(
    log: RunLog, config: Config, paths: ProjectPaths, spec: Spec, previous: int
) -> str:
    """The prompt of the attempt after ``previous``: what happened to it, what to fix."""
    from orch_tui.core.domain.proposal import Decisions, Proposal  # not before the first request

    report_at, report_data = last_report(log, previous)
    proposal_data = log.read_json(previous, runlog.PROPOSAL)
    decisions_data = log.read_json(previous, runlog.DECISIONS)
    return render_patch_prompt(
        previous=previous,
        report=TestReport.from_json(report_data) if report_data else None,
        report_attempt=report_at,
        proposal=Proposal.from_json(proposal_data) if proposal_data else None,
        decisions=Decisions.from_json(decisions_data) if decisions_data else None,
        workspace=paths.workspace,
        config=config,
        changed=changed_files(log, previous),
        task=spec.text,
        prompts_dir=paths.prompts,
    )


def last_report(log: RunLog, previous: int) -> tuple[int, Any | None]:
    """The checks report the next prompt carries, and its attempt: ``previous``'s, or after a
    rejected proposal (no checks ran) the last failing checks of an attempt before it."""
    for attempt in range(previous, -1, -1):
        data = log.read_json(attempt, runlog.REPORT)
        if data is None:
            continue
        if attempt != previous and TestReport.from_json(data).passed:
            break  # nothing was failing (a finished task, in plan mode)
        return attempt, data
    return previous, None


def changed_files(log: RunLog, last: int) -> list[str]:
    """The files the run's applied attempts up to ``last`` changed, latest first."""
    changed: list[str] = []
    for attempt in range(last, -1, -1):
        changed += [path for path in log.applied_paths(attempt) or () if path not in changed]
    return changed
