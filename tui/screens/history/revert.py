"""History's ``X``: the hunks blamed for broken tests, reverted as a proposal put up for review.

No Textual here: the run screen calls :func:`propose_revert` and shows what it says. The
proposal is made against the workspace as it is now (``core.history.blame.revert_proposal``)
and becomes the current run's next attempt (``core.loop.person_proposal``); resuming the run
reviews it like any proposal.
"""

from __future__ import annotations

from pathlib import Path

from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.history.blame import Blame, revert_proposal
from orch_tui.core.loop.person_proposal import ProposalRefused, next_attempt, open_for_review


def propose_revert(project: ProjectPaths, run_id: str, blames: list[Blame]) -> tuple[str, bool]:
    """(what was done or why not, whether a proposal now waits for review)."""
    blamed = [found for found in blames if found.hunks]
    if not blamed:
        return (
            "no hunk to revert: no test went from passing to failing in a measured attempt",
            False,
        )
    try:
        attempt, workspace = next_attempt(project, run_id)
        paths = sorted({hunk.change.path for found in blamed for hunk in found.hunks})
        current = {path: _read(workspace / path) for path in paths}
        proposal, left = revert_proposal(blamed, current, attempt)
        skipped = f"; not reverted: {', '.join(left)}" if left else ""
        if proposal.is_empty:
            return f"nothing left to revert{skipped}", False
        tests = ", ".join(sorted({found.test.rsplit("::", 1)[-1] for found in blamed}))
        note = f"revert the hunks that broke {tests}{skipped}"
        return open_for_review(project, run_id, proposal, note), True
    except ProposalRefused as exc:
        return str(exc), False
    except OSError as exc:
        return f"could not prepare the revert: {exc}", False


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
