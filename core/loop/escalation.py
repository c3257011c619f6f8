"""Which model answers an attempt: ``model.escalate_to`` takes over after failed attempts.

Once ``loop.escalate_after`` attempts of the run (of the task, in plan mode) have failed,
the stronger model answers; the switch is logged once, as an ``escalated`` event.
"""

from __future__ import annotations

from orch_tui.core.config.models import Config
from orch_tui.core.domain.events import Escalated
from orch_tui.core.loop.run import Run


def model_at(config: Config, attempt: int, base_attempt: int) -> str:
    """The model that answers ``attempt`` of a run (or task) that began at ``base_attempt``."""
    stronger = config.model.escalate_to
    failed = attempt - base_attempt
    if not stronger or failed < config.loop.escalate_after:
        return config.model.name
    return stronger


def model_for(run: Run, attempt: int) -> str:
    """:func:`model_at` for the run, with the ``escalated`` event logged on the switch."""
    config = run.config
    base = run.planner.base_attempt()
    chosen = model_at(config, attempt, base)
    failed = attempt - base
    if chosen == config.model.name:
        return chosen
    if failed == config.loop.escalate_after:
        run.emit(
            Escalated(
                attempt=attempt,
                from_model=config.model.name,
                to_model=chosen,
                failed_attempts=failed,
            )
        )
    return chosen


def escalated_from(config: Config, attempt: int, base_attempt: int) -> int | None:
    """The last attempt before the stronger model took over, when it answers ``attempt``."""
    if model_at(config, attempt, base_attempt) == config.model.name:
        return None
    return base_attempt + config.loop.escalate_after - 1
