"""A kept workspace whose Python files do not parse (a person edited one by hand between
runs, before a change run or a resumed one): nothing is moved or refused, the start says
so, and the model's next prompt names each error once, as a thing to fix with its change.

Checked when a run opens (once per process), not before every attempt: the model's own
broken files reach it through the checks' collection errors already.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orch_tui.core.attempt.project_map import unparsable_files
from orch_tui.core.config.paths import shown_workspace
from orch_tui.core.domain.events import Notice

if TYPE_CHECKING:
    from orch_tui.core.loop.run import Run

SHOWN = 8
"""Files named in the notice and the note; the rest are counted."""


def note_unparsable(run: Run) -> None:
    """Tell the person which files of the workspace do not parse, and keep the model's note."""
    broken = unparsable_files(run.paths.workspace)
    if not broken:
        return
    where = shown_workspace(run.paths).rstrip("/")
    named = [f"{where}/{path} ({why})" for path, why in list(broken.items())[:SHOWN]]
    more = f" and {len(broken) - SHOWN} more" if len(broken) > SHOWN else ""
    run.emit(
        Notice(
            message=f"{', '.join(named)}{more} "
            f"{'does' if len(broken) == 1 else 'do'} not parse: left as it is; "
            "the model's next prompt names the error to fix"
        )
    )
    listing = [f"- {path}: {why}" for path, why in list(broken.items())[:SHOWN]]
    if more:
        listing.append(f"- ...{more}")
    run.parse_note = (
        "These Python files in /workspace do not parse as they stand now (a person may have "
        "edited them by hand: keep what they meant); make them parse with your change:\n"
        + "\n".join(listing)
        + "\n\n"
    )


def take_parse_note(run: Run) -> str:
    """The note for the next prompt (said once), or ""."""
    note, run.parse_note = run.parse_note, ""
    return note
