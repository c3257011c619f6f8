"""Replays recorded model turns: the bundled demo, past runs, and tests.

A script is JSON: ``{"attempts": [[turn, turn, ...], ...]}`` where each turn is
an assistant message (``content`` blocks, ``stop_reason``, ``usage``). The turn
to answer is picked from the request itself (its attempt number and how many
assistant turns it already holds), so a resumed run replays from exactly where
it stopped. A past run's log folder is a script too.

A judge's or verifier's answer (core.roles) is scripted apart from the attempts, by role and
by the attempt it decides about: ``"roles": {"judge": {"1": turn}, "verifier": {"2": turn}}``,
where each turn calls the role's tool (``judge_decision`` / ``verifier_verdict``). A run's log
folder answers with the ``judge.json`` / ``verifier.json`` its attempts saved.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from orch_tui.core.providers.base import AssistantTurn, ModelError, TextSink, TurnRequest
from orch_tui.core.runlog.conversation import turns_with_content
from orch_tui.core.runlog.layout import CONVERSATION
from orch_tui.core.util.patterns import LazyPattern
from orch_tui.core.util.wording import plural

ROLE_NAMES = ("judge", "verifier")
RoleTurns = dict[str, dict[int, AssistantTurn]]
"""Per role, the turn answering for each attempt number."""

_WORD = LazyPattern(r"\S+\s*|\s+")


class ScriptError(Exception):
    """A script file that cannot be replayed."""


class RecordingExhausted(ModelError):
    """The replayed run asked for a turn the recording does not hold: it diverged from it.

    A :class:`ModelError` so that a run stops on it as on any model that cannot answer; the
    message says plainly that the recording ran out, and why that happens.
    """

    def __init__(self, message: str) -> None:
        super().__init__(
            message,
            hint="compare this run's test output with the recording's: a replay reproduces "
            "only a run whose checks give the same results",
        )


class ScriptedProvider:
    name = "scripted"

    def __init__(
        self, attempts: list[list[AssistantTurn]], source: str, roles: RoleTurns | None = None
    ) -> None:
        self.attempts = attempts
        self.source = source
        self.roles = roles or {}

    @classmethod
    def from_path(cls, path: Path) -> ScriptedProvider:
        """Load a script file, or a run's log folder (``logs/<run_id>``)."""
        if path.is_dir():
            return cls(_attempts_from_run_log(path), str(path), _roles_from_run_log(path))
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ScriptError(f"script not found: {path}") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ScriptError(f"{path}: not a readable JSON script ({exc})") from None
        return cls(_parse_attempts(data, path), str(path), _parse_roles(data, path))

    def complete(self, request: TurnRequest, on_text: TextSink) -> AssistantTurn:
        if request.role:
            return self._role_turn(request)
        turn_index = sum(1 for message in request.messages if message["role"] == "assistant")
        try:
            turn = self.attempts[request.attempt][turn_index]
        except IndexError:
            raise RecordingExhausted(self._diverged(request.attempt, turn_index)) from None
        for block in turn.content:
            if block.get("type") == "text":
                for piece in _WORD.findall(block["text"]):
                    on_text(piece)
        return turn

    def _diverged(self, attempt: int, turn_index: int) -> str:
        """Why the recording has no turn for this request, as a sentence for a person."""
        if attempt < len(self.attempts):
            recorded = f"it records {plural(len(self.attempts[attempt]), 'turn')} for that attempt"
        else:
            recorded = f"it records {plural(len(self.attempts), 'attempt')}"
        return (
            "the recording has no more turns: this replay diverged because the script "
            f"{self.source} has no turn {turn_index + 1} for attempt {attempt} ({recorded}); the "
            "run took another path than the recorded one, most often because the checks give "
            "another result here than when it was recorded"
        )

    def _role_turn(self, request: TurnRequest) -> AssistantTurn:
        turn = self.roles.get(request.role, {}).get(request.attempt)
        if turn is None:
            raise ModelError(
                f"the script {self.source} has no {request.role} answer for attempt "
                f"{request.attempt}",
                hint=f'add it under "roles": {{"{request.role}": {{"{request.attempt}": turn}}}}',
            )
        return turn


def _parse_roles(data: dict[str, Any], source: Path) -> RoleTurns:
    roles = data.get("roles") or {}
    if not isinstance(roles, dict):
        raise ScriptError(f'{source}: "roles" must be an object of role names')
    parsed: RoleTurns = {}
    for role, answers in roles.items():
        if role not in ROLE_NAMES or not isinstance(answers, dict):
            raise ScriptError(
                f'{source}: "roles" holds {", ".join(ROLE_NAMES)}, each an object of attempt '
                f"numbers to turns (found {role!r})"
            )
        try:
            parsed[role] = {int(n): AssistantTurn.from_json(turn) for n, turn in answers.items()}
        except (KeyError, TypeError, ValueError) as exc:
            raise ScriptError(f"{source}: a {role} answer is malformed ({exc})") from None
    return parsed


def _roles_from_run_log(folder: Path) -> RoleTurns:
    roles: RoleTurns = {}
    for role in ROLE_NAMES:
        for path in sorted(folder.glob(f"attempt-*/{role}.json")):
            try:
                saved = json.loads(path.read_text(encoding="utf-8"))
                number = int(path.parent.name.removeprefix("attempt-"))
                roles.setdefault(role, {})[number] = AssistantTurn.from_json(saved["turn"])
            except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                raise ScriptError(f"{path}: cannot be replayed ({exc})") from None
    return roles


def _parse_attempts(data: Any, source: Path) -> list[list[AssistantTurn]]:
    if not isinstance(data, dict) or not isinstance(data.get("attempts"), list):
        raise ScriptError(f'{source}: a script is an object with an "attempts" list')
    attempts = []
    for number, turns in enumerate(data["attempts"]):
        if not isinstance(turns, list) or not turns:
            raise ScriptError(f"{source}: attempt {number} must be a non-empty list of turns")
        try:
            attempts.append([AssistantTurn.from_json(turn) for turn in turns])
        except (KeyError, TypeError, ValueError) as exc:
            raise ScriptError(f"{source}: attempt {number} has a malformed turn ({exc})") from None
    return attempts


def _attempts_from_run_log(folder: Path) -> list[list[AssistantTurn]]:
    attempts = []
    for attempt_dir in sorted(folder.glob("attempt-*")):
        path = attempt_dir / CONVERSATION
        if not path.exists():
            break
        try:
            conversation = json.loads(path.read_text(encoding="utf-8"))
            turns = turns_with_content(conversation)
            attempts.append([AssistantTurn.from_json(turn) for turn in turns])
        except (OSError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ScriptError(f"{path}: cannot be replayed ({exc})") from None
    if not attempts:
        raise ScriptError(f"{folder}: no recorded attempts to replay")
    return attempts
