"""Optional judge and verifier models (DESIGN.md section 11), each off unless its model id is set.

- ``model.judge`` reads the attempt history after failed checks (with retries left) and
  decides: ``retry`` with guidance that goes into the next prompt, or ``ask`` a person
  (the run stops at NEEDS_HELP with the judge's question).
- ``model.verifier`` runs once every check passes and decides ``sufficient`` (the run, or
  the task, succeeds) or ``insufficient`` with the gaps: one more patch round whose prompt
  quotes them, as long as the retry budget lasts (after that the run succeeds on its passing
  checks and a notice names the gaps left).

Both answer through one forced tool call (``tool_choice`` names their tool, whose JSON schema
says what an answer holds), never parsed prose. An answer without that call, or whose input
does not fit the schema, counts as *no decision*: a ``role_decision`` event with decision
``"none"`` and the reason is logged, and the loop goes on as if the role were off (a retry
without guidance; the passing checks stand). A role is advice on top of a loop that works
without it, so a bad answer must not end a run; an API or network error is a model error
like any other (the run stops and resumes). Role turns count in the run's usage and cost,
priced at the role's model.

Every decision is saved in its attempt's folder (``judge.json``, ``verifier.json``: the model,
the prompt, the turn and the decision) before the loop moves on, so a resumed run reuses it
instead of asking again, and a replay (``--script logs/<run_id>``) answers with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from orch_tui.core.attempt.feedback import describe_files
from orch_tui.core.attempt.prompt_templates import render
from orch_tui.core.checks.report import TestReport
from orch_tui.core.domain.asking import GUIDANCE, Question, QuestionSource
from orch_tui.core.domain.events import Notice, RoleDecided
from orch_tui.core.domain.roles import Role, RoleDecision, RoleVerdict
from orch_tui.core.domain.state_records import RoleRecord
from orch_tui.core.loop.plan_runner import PlanRunner
from orch_tui.core.providers.base import AssistantTurn, TurnRequest
from orch_tui.core.runlog import layout as runlog
from orch_tui.core.workspace.apply import read_tree

if TYPE_CHECKING:
    from orch_tui.core.loop.context import RunContext

JUDGE, VERIFIER = Role.JUDGE, Role.VERIFIER
RETRY, ASK, SUFFICIENT, INSUFFICIENT, NO_DECISION = (
    RoleVerdict.RETRY,
    RoleVerdict.ASK,
    RoleVerdict.SUFFICIENT,
    RoleVerdict.INSUFFICIENT,
    RoleVerdict.NONE,
)
ROLE_MAX_TOKENS = 4000
"""A decision is a short tool call; this bounds what one role request may cost."""
ROLE_SYSTEM = (
    "You review the work of a coding model in orch-tui's build loop. Answer only by calling "
    "the tool you are given."
)

JUDGE_TOOL: dict[str, Any] = {
    "name": "judge_decision",
    "description": "Decide what the build loop does after failed checks.",
    "input_schema": {
        "type": "object",
        "properties": {
            "decision": {"type": "string", "enum": [RETRY, ASK]},
            "guidance": {
                "type": "string",
                "description": "retry: advice for the coding model's next attempt.",
            },
            "question": {"type": "string", "description": "ask: the question for the person."},
            "options": {
                "type": "array",
                "items": {"type": "string"},
                "description": "ask: answers the person can pick from.",
            },
            "recommendation": {"type": "string", "description": "ask: the option you recommend."},
            "reason": {"type": "string", "description": "Why, in one sentence."},
        },
        "required": ["decision"],
    },
}

VERIFIER_TOOL: dict[str, Any] = {
    "name": "verifier_verdict",
    "description": "Say whether the project implements and tests every requirement.",
    "input_schema": {
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": [SUFFICIENT, INSUFFICIENT]},
            "gaps": {
                "type": "array",
                "items": {"type": "string"},
                "description": "insufficient: each requirement missing, wrong or untested.",
            },
            "reason": {"type": "string", "description": "Why, in one sentence."},
        },
        "required": ["verdict"],
    },
}

TOOLS = {JUDGE: JUDGE_TOOL, VERIFIER: VERIFIER_TOOL}


class RoleAnswerError(ValueError):
    """A role's answer that is not a usable call of its tool; the message says what is wrong."""


def _tool_input(turn: AssistantTurn, tool: dict[str, Any]) -> dict[str, Any]:
    calls = [
        block
        for block in turn.content
        if block.get("type") == "tool_use" and block.get("name") == tool["name"]
    ]
    if not calls:
        raise RoleAnswerError(f"the answer did not call {tool['name']}")
    data = calls[0].get("input")
    if not isinstance(data, dict):
        raise RoleAnswerError(f"{tool['name']}'s input is not an object")
    return data


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise RoleAnswerError(f'"{key}" must be a string, not {value!r}')
    return value.strip()


def _texts(data: dict[str, Any], key: str) -> list[str]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise RoleAnswerError(f'"{key}" must be a list of strings, not {value!r}')
    return [item.strip() for item in value if item.strip()]


def parse_decision(role: Role, model: str, turn: AssistantTurn) -> RoleDecision:
    """The decision in ``turn``'s call of the role's tool; RoleAnswerError when it has none."""
    data = _tool_input(turn, TOOLS[role])
    key, allowed = (
        ("decision", (RETRY, ASK)) if role == JUDGE else ("verdict", (SUFFICIENT, INSUFFICIENT))
    )
    answered = data.get(key)
    decision = next((verdict for verdict in allowed if verdict == answered), None)
    if decision is None:
        raise RoleAnswerError(f'"{key}" must be one of {", ".join(allowed)}, not {answered!r}')
    found = RoleDecision(role=role, model=model, decision=decision, reason=_text(data, "reason"))
    if role == JUDGE:
        found.guidance = _text(data, "guidance")
        found.question = _text(data, "question")
        found.options = _texts(data, "options")
        found.recommendation = _text(data, "recommendation")
        if decision == ASK and not found.question:
            raise RoleAnswerError('"ask" needs a "question"')
    else:
        found.gaps = _texts(data, "gaps")
        if decision == INSUFFICIENT and not found.gaps:
            raise RoleAnswerError('"insufficient" needs at least one gap in "gaps"')
    return found


def role_file(role: Role) -> str:
    return f"{role}.json"


class Roles:
    """The run's judge and verifier; they read and write the run's state and log."""

    def __init__(self, context: RunContext, planner: PlanRunner) -> None:
        self.context = context
        self.planner = planner
        self._refused: set[str] = set()

    def _model(self, role: Role) -> str:
        """The role's model id; "" when the role is off (or the provider cannot force a tool)."""
        context = self.context
        model: str = getattr(context.config.model, role)
        if model and context.provider_name == "claude-code":
            if role not in self._refused:
                self._refused.add(role)
                context.emit(
                    Notice(
                        message=f"model.{role} is off: the claude-code provider has no tool calls"
                    )
                )
            return ""
        return model

    # -- the two decisions the engine asks for ----------------------------------------------

    def judge(self, attempt: int) -> Question | None:
        """After failed checks with retries left: the judge's question, or None to patch again."""
        decision = self._decide(JUDGE, attempt, self._judge_prompt)
        if decision is None or decision.decision != ASK:
            return None
        return Question(
            text=decision.question,
            options=decision.options,
            recommendation=decision.recommendation,
            source=QuestionSource.JUDGE,
        )

    def wants_more(self, attempt: int) -> bool:
        """Once every check passed: whether the verifier sends one more patch round."""
        decision = self._decide(VERIFIER, attempt, self._verifier_prompt)
        if decision is None or decision.decision != INSUFFICIENT:
            return False
        if attempt - self.planner.base_attempt() < self.context.state.max_retries:
            return True
        self.context.emit(
            Notice(
                message="no retries left for the verifier's gaps: "
                + "; ".join(decision.gaps)
                + " (--continue gives the run a fresh budget)"
            )
        )
        return False

    def prompt_note(self, attempt: int) -> str:
        """What ``attempt``'s prompt adds: the judge's guidance or the verifier's gaps about the
        attempt before it ("" when there are none)."""
        if attempt <= 0:
            return ""
        log, folder = self.context.log, self.context.paths.prompts
        notes = []
        for role in (JUDGE, VERIFIER):
            saved = log.read_json(attempt - 1, role_file(role))
            if not saved:
                continue
            decision = RoleDecision.from_json(saved["decision"])
            if decision.decision == RETRY and decision.guidance:
                notes.append(render("judge_guidance", folder, guidance=decision.guidance))
            elif decision.decision == INSUFFICIENT:
                gaps = "\n".join(f"- {gap}" for gap in decision.gaps)
                notes.append(render("verifier_gaps", folder, gaps=gaps, scope=self._scope()))
        return "".join(f"\n\n{note.rstrip()}" for note in notes)

    # -- asking a role ------------------------------------------------------------------------

    def _decide(
        self, role: Role, attempt: int, make_prompt: Callable[[int], str]
    ) -> RoleDecision | None:
        """The role's decision about ``attempt`` (asked once, then read back); None: role off."""
        model = self._model(role)
        if not model:
            return None
        context = self.context
        saved = context.log.read_json(attempt, role_file(role))
        if saved and saved.get("decision"):
            return RoleDecision.from_json(saved["decision"])  # decided before a crash: never twice
        prompt = make_prompt(attempt)
        request = TurnRequest(
            model=model,
            system=self._system(),
            tools=[dict(TOOLS[role])],
            messages=[{"role": "user", "content": prompt}],
            max_tokens=min(context.config.model.max_tokens, ROLE_MAX_TOKENS),
            attempt=attempt,
            tool_choice={"type": "tool", "name": TOOLS[role]["name"]},
            role=role,
        )
        turn = context.complete(request, lambda text: None)
        try:
            decision = parse_decision(role, model, turn)
        except RoleAnswerError as exc:
            decision = RoleDecision(
                role=role, model=model, decision=NO_DECISION, reason=f"no usable answer: {exc}"
            )
        context.log.write_json(
            attempt,
            role_file(role),
            {
                "model": model,
                "prompt": prompt,
                "turn": turn.to_json(),
                "decision": decision.to_json(),
            },
        )
        context.emit(RoleDecided(attempt=attempt, **decision.to_json()))
        context.state.roles[role] = RoleRecord(attempt, decision)
        return decision

    def _system(self) -> list[dict[str, Any]]:
        spec = self.context.spec
        return [
            {"type": "text", "text": ROLE_SYSTEM},
            {
                "type": "text",
                "text": f'<spec path="{spec.path.name}">\n{spec.text}\n</spec>',
                "cache_control": {"type": "ephemeral"},
            },
        ]

    def _scope(self) -> str:
        return "task" if self.planner.current() is not None else "spec"

    def _judge_prompt(self, attempt: int) -> str:
        feedback = self.planner.prompt_prefix() + self.context.patch_prompt(attempt)
        return render(
            "judge", self.context.paths.prompts, history=self._history(attempt), feedback=feedback
        )

    def _history(self, last: int) -> str:
        """One entry per attempt of the run (or task): changes, review, checks, advice given."""
        log = self.context.log
        base = self.planner.base_attempt()
        lines = []
        for number in range(base, last + 1):
            proposal = log.read_json(number, runlog.PROPOSAL) or {}
            files = [change.get("path") for change in proposal.get("changes") or []]
            kind = "generation" if number == base else "patch"
            line = f"- attempt {number} ({kind}): changed {', '.join(map(str, files)) or 'nothing'}"
            reason = (log.read_json(number, runlog.DECISIONS) or {}).get("reject_reason")
            if reason:
                line += f"; the reviewer rejected it: {reason}"
            report = log.read_json(number, runlog.REPORT)
            if report:
                tests = TestReport.from_json(report)
                failing = ", ".join(tests.failing[:10])
                line += f"; checks: {tests.summary()}" + (
                    f"; failing: {failing}" if failing else ""
                )
            guidance = log.read_json(number, GUIDANCE)
            if guidance:
                line += f"\n  the person's guidance for it: {guidance.get('text')}"
            judged = log.read_json(number, role_file(JUDGE))
            if judged and number < last:
                advice = RoleDecision.from_json(judged["decision"])
                line += f"\n  your advice after it: {advice.decision} {advice.guidance}".rstrip()
            lines.append(line)
        return "\n".join(lines)

    def _verifier_prompt(self, attempt: int) -> str:
        context = self.context
        saved = context.log.read_json(attempt, runlog.REPORT)
        report = TestReport.from_json(saved) if saved is not None else TestReport(checks=[])
        passed = [test.id for check in report.checks for test in check.tests]
        summary = report.summary()
        if passed:
            summary += "\n\nTests run:\n" + "\n".join(f"- {test}" for test in passed[:200])
        prefix = self.planner.prompt_prefix()
        tree = read_tree(context.paths.workspace)
        return render(
            "verifier",
            context.paths.prompts,
            scope=self._scope(),
            task=f"\n{prefix.strip()}\n" if prefix else "",
            summary=summary,
            files=describe_files(tree, context.config.feedback.file_chars),
        )
