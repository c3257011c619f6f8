"""The run being driven: :class:`Run`, what the engine's steps share.

It holds the run's state and log once the run is open, the files the next transition
points to, and the collaborators (plan runner, roles); it moves the run from state to
state (:meth:`Run.transition`, persisted before the next step begins) and counts the
usage of every model turn. Roles and the plan runner see it only as a
:class:`~orch_tui.core.loop.context.RunContext`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from orch_tui.core.config.models import Config
from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.cost import price_for
from orch_tui.core.domain.events import Event, EventBus, StateChanged
from orch_tui.core.domain.spec import Spec
from orch_tui.core.domain.state import RunState, State, StateStore
from orch_tui.core.loop import budget, prompts
from orch_tui.core.loop.options import RunOptions
from orch_tui.core.loop.plan_runner import PlanRunner
from orch_tui.core.loop.review import Reviewer
from orch_tui.core.loop.roles import Roles
from orch_tui.core.providers.base import AssistantTurn, Provider, TurnRequest
from orch_tui.core.runlog.writer import RunLog
from orch_tui.core.util import atomic
from orch_tui.core.util.atomic import Commit

if TYPE_CHECKING:  # made after the first request: their modules load then
    from orch_tui.core.domain.evidence import Verdict
    from orch_tui.core.domain.proposal import Proposal


class RunParts(TypedDict):
    """What a run is made of, as callers hand it to the engine (keyword by keyword)."""

    paths: ProjectPaths
    config: Config
    spec: Spec
    provider: Provider
    reviewer: Reviewer
    bus: EventBus
    options: RunOptions


class Run:
    """One run's shared parts; ``state`` and ``log`` exist once the run is opened."""

    def __init__(self, **parts: Unpack[RunParts]) -> None:
        self.paths = parts["paths"]
        self.config = parts["config"]
        self.spec = parts["spec"]
        self.provider = parts["provider"]
        self.reviewer = parts["reviewer"]
        self.bus = parts["bus"]
        self.options = parts["options"]
        self.store = StateStore(self.paths.state)
        self.state: State
        self.log: RunLog
        self.files = Commit(settle_later=True)
        """Files written since the last transition that the next state points to: made
        durable together, in one commit with that state (not one fsync each). The state's
        own rename is made durable in the background while the next step starts: whatever
        that step makes durable waits for it first, and a finished run waits for it."""
        self.fresh_proposal: Proposal | None = None
        """The proposal this process just generated, hunks computed: the review step takes it
        instead of parsing proposal.json and diffing every file a second time."""
        self.fresh_applied: tuple[int, dict[str, str | None]] | None = None
        """The attempt and the files its review just decided (applied.json's): the checks step
        takes them instead of reading back the file texts written a moment before."""
        self.proposal_digests: dict[int, str] = {}
        """The digest of each attempt's proposal.json, by attempt, once this process made or
        read it. An attempt's proposal is written by its own model step alone (a person's
        proposal is a new attempt), so a digest known here stays true."""
        self.verdict: Verdict | None = None
        """The run's evidence once it succeeded (its last line, ``run_finished``'s fields)."""
        self.parse_note = ""
        """Said once in the next model prompt: the kept workspace's files that do not parse
        (:mod:`.unparsable`)."""
        self.planner = PlanRunner(self)
        self.roles = Roles(self, self.planner)

    @property
    def provider_name(self) -> str:
        return self.provider.name

    def emit(self, event: Event) -> None:
        self.bus.emit(event)

    def transition(self, new_state: RunState, attempt: int | None = None) -> None:
        """Move to ``new_state`` (and ``attempt``): on disk, with the files it points to, first."""
        self.state.state = new_state
        if attempt is not None:
            self.state.attempt = attempt
        self.store.save(self.state, self.files)
        self.files = Commit(settle_later=True)
        if new_state.terminal:
            atomic.settle()  # a finished run is on disk when it says so
        self.emit(
            StateChanged(
                state=new_state,
                attempt=self.state.attempt,
                max_retries=self.state.max_retries,
            )
        )

    def failing(self) -> list[str]:
        """The failing tests of the last checks run."""
        return list(self.state.last_test.failing) if self.state.last_test else []

    # -- usage and budget -----------------------------------------------------------------

    def request_max_tokens(self, asked: int, model: str) -> int:
        return budget.capped_max_tokens(
            asked,
            model,
            provider=self.provider,
            prices=self.config.prices,
            budget=self.options.max_cost_usd,
            spent=self.state.cost_usd,
        )

    def add_usage(self, attempt: int, index: int, turn: AssistantTurn, model: str) -> None:
        price = price_for(self.config.prices, model)
        self.emit(budget.count_usage(self.state, attempt, index, turn, price))

    def complete(
        self, request: TurnRequest, on_text: Callable[[str], None], turn: int = 0
    ) -> AssistantTurn:
        answer = self.provider.complete(request, on_text)
        self.add_usage(request.attempt, turn, answer, request.model)
        return answer

    # -- prompt pieces --------------------------------------------------------------------

    def system_blocks(self) -> list[dict[str, Any]]:
        return prompts.system_blocks(self.config, self.paths, self.spec)

    def patch_prompt(self, previous: int) -> str:
        return prompts.patch_prompt(self.log, self.config, self.paths, self.spec, previous)
