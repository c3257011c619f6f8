"""The second models a run may consult (judge, verifier) and what they decided.

Kept apart from the events so that ``state.json``'s reader, which keeps the last decision of each
role, loads without the whole event set (``status`` starts faster for it).
"""

from __future__ import annotations

from dataclasses import field
from enum import StrEnum
from typing import Any

from orch_tui.core.util.records import record


class Role(StrEnum):
    """A second model the run may consult (``model.judge``, ``model.verifier``)."""

    JUDGE = "judge"
    """After failed checks: patch again, or ask a person."""
    VERIFIER = "verifier"
    """Once every check passed: enough, or one more round for the gaps it names."""


class RoleVerdict(StrEnum):
    """What a judge or verifier model decided."""

    RETRY = "retry"
    ASK = "ask"
    SUFFICIENT = "sufficient"
    INSUFFICIENT = "insufficient"
    NONE = "none"


@record(kw_only=True)
class RoleDecision:
    """What a judge or verifier model decided (core.roles reads it from the role's tool call);
    ``judge.json``/``verifier.json`` and state.json's ``roles`` keep it as :meth:`to_json`."""

    role: Role
    model: str
    decision: RoleVerdict
    """judge: retry or ask; verifier: sufficient or insufficient; none: no usable answer."""
    guidance: str = ""
    """judge retry: advice for the next prompt."""
    question: str = ""
    """judge ask: the question for the person, with ``options`` and a ``recommendation``."""
    options: list[str] = field(default_factory=list)
    recommendation: str = ""
    gaps: list[str] = field(default_factory=list)
    """verifier insufficient: what is missing or untested."""
    reason: str = ""
    """Why (the role's own words), or why there was no usable answer."""

    def to_json(self) -> dict[str, Any]:
        values = {name: getattr(self, name) for name in RoleDecision.__dataclass_fields__}
        return {
            key: list(v) if isinstance(v, list) else str(v) if isinstance(v, StrEnum) else v
            for key, v in values.items()
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RoleDecision:
        """ValueError for a role or decision that is not one of the enums'."""
        names = RoleDecision.__dataclass_fields__
        values = {key: data[key] for key in names if key in data}
        values["role"] = Role(str(values.get("role")))
        values["decision"] = RoleVerdict(str(values.get("decision")))
        return RoleDecision(**values)
