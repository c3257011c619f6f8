"""What the command line adds on top of the config for one run: :class:`RunOptions`."""

from __future__ import annotations

from orch_tui.core.util.records import record


@record
class RunOptions:
    """What the command line adds on top of the config."""

    max_retries: int
    max_cost_usd: float | None = None
    fresh: bool = False
    max_retries_given: bool = False
    """A resumed run keeps its own bound unless the person gave one on the command line."""
    notices: tuple[str, ...] = ()
    """Said once the run is open: a replay announcement, a clamped setting."""
    allow_dirty: bool = False
    """Start a run in a git work tree with uncommitted changes to tracked files."""
    plan: bool = False
    """Plan mode (``--plan`` / ``loop.plan``): a new run plans tasks first, then one loop per task."""
    continue_run: bool = False
    """--continue: reopen a FAILED or NEEDS_HELP run with a fresh budget of max_retries patches."""
    guidance: str | None = None
    """--guidance: the person's answer, verbatim into the next prompt (implies continue_run)."""
    rework: bool = False
    """--rework: with guidance, reopen even a SUCCESS run (the review inbox sends back the hunks
    the person rejected this way)."""
    give_up: bool = False
    """--give-up: end the saved run FAILED, with no model request (as the stuck question's
    "Give up on this run" does)."""
    ask_when_stuck: bool = False
    """Ask a person instead of failing when stuck (the TUI; --auto follows loop.on_stuck)."""
    task: str | None = None
    """--task ID: run this one task of the approved plan, leaving the others as they are."""
