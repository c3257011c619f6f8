"""Rejected hunks back to the model: a new attempt of the batch run, with the person's reason.

The run is reopened in its own folder (``orch-tui spec.md --auto --rework --guidance TEXT``
with the batch's run options), in the background and in a session of its own, so it goes on
after the inbox closes; its output goes to ``batch-run.log``. The guidance names each rejected
hunk and quotes it, then the reason. The batch's record says the run is reworking, and when the
new attempt finishes it holds the attempt's end (:mod:`core.batch.rework`) and the run is back
in the inbox.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

from orch_tui.core.batch.rework import mark_reworking, rework_command
from orch_tui.core.batch.run_one import RUN_LOG
from orch_tui.core.domain.proposal import Decisions, HunkDecision, Proposal

MAX_QUOTED_LINES = 40
"""Lines of one rejected hunk quoted in the guidance; the rest is said in a count."""


def guidance_for(proposal: Proposal, decisions: Decisions, reason: str) -> str:
    """What the model reads: which hunks the person rejected, each quoted, and why."""
    parts = ["The person reviewed your whole change and rejected these hunks:"]
    for change in proposal.changes:
        for index, (hunk, decided) in enumerate(
            zip(change.hunks, decisions.for_file(change), strict=True)
        ):
            if decided is not HunkDecision.REJECTED:
                continue
            lines = [f"-{line}" for line in change.old_lines[hunk.old_start : hunk.old_end]]
            lines += [f"+{line}" for line in change.new_lines[hunk.new_start : hunk.new_end]]
            shown = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
            cut = shown.splitlines(keepends=True)
            if len(cut) > MAX_QUOTED_LINES:
                shown = (
                    "".join(cut[:MAX_QUOTED_LINES])
                    + f"… ({len(cut) - MAX_QUOTED_LINES} more lines)\n"
                )
            parts.append(f"{change.path}, hunk {index + 1}:\n```diff\n{shown}```")
    parts.append(f"Their reason: {reason}")
    parts.append(
        "The hunks they accepted are in their project already; change only what they rejected."
    )
    return "\n\n".join(parts)


def send_back(folder: Path, run_options: Sequence[str], guidance: str) -> int:
    """Start the run's new attempt in the background; returns the process id."""
    batch_folder, name = folder.parent, folder.name
    mark_reworking(batch_folder, name)
    options = (*run_options, "--rework", "--guidance", guidance)
    with open(folder / RUN_LOG, "ab") as log:
        process = subprocess.Popen(
            rework_command(batch_folder, name, options),
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    return process.pid
