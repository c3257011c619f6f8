"""The narrow view of a run that roles and the plan runner get: :class:`RunContext`.

They read the run (config, paths, spec, state, log), tell subscribers (``emit``), ask a
model with the run's usage counted (``complete``), and reuse the run's prompt pieces; they
never see the engine, its steps or how the run moves from state to state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.events import Event
from orch_tui.core.domain.spec import Spec
from orch_tui.core.domain.state import State
from orch_tui.core.loop.review import Reviewer
from orch_tui.core.providers.base import AssistantTurn, TurnRequest
from orch_tui.core.runlog.writer import RunLog


class RunContext(Protocol):
    """What roles and the plan runner may use of the run being driven."""

    @property
    def config(self) -> Config: ...

    @property
    def paths(self) -> ProjectPaths: ...

    @property
    def spec(self) -> Spec: ...

    @property
    def state(self) -> State: ...

    @property
    def log(self) -> RunLog: ...

    @property
    def reviewer(self) -> Reviewer: ...

    @property
    def provider_name(self) -> str: ...

    def emit(self, event: Event) -> None: ...

    def complete(
        self, request: TurnRequest, on_text: Callable[[str], None], turn: int = 0
    ) -> AssistantTurn:
        """The provider's answer to ``request``, its usage counted as turn ``turn`` of
        ``request.attempt``, priced at ``request.model``."""
        ...

    def request_max_tokens(self, asked: int, model: str) -> int:
        """``asked`` capped by the cost budget left (BudgetSpent when nothing fits)."""
        ...

    def system_blocks(self) -> list[dict[str, Any]]:
        """The run's cached prefix: instructions, the project's AGENTS.md, the spec."""
        ...

    def patch_prompt(self, previous: int) -> str:
        """The coding model's prompt after attempt ``previous``."""
        ...
