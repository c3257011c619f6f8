"""Every logged event in words: one line each, for the printer, the TUI, history and exports."""

from __future__ import annotations

from typing import Any

from orch_tui.core.domain.events import EventKind, RoleVerdict

_ASKERS = {"model": "the model asked", "judge": "the judge asked"}


def describe_person_event(event: dict[str, Any]) -> str | None:
    """One line for a logged question, answer, reopening or escalation; None for other events."""
    kind = event.get("event")
    if kind == EventKind.QUESTION:
        options = event.get("options") or []
        listed = f" (options: {'; '.join(map(str, options))})" if options else ""
        recommended = event.get("recommendation")
        advice = f"; recommended: {recommended}" if recommended else ""
        who = _ASKERS.get(str(event.get("source")), "stuck, asked a person")
        return f"{who}: {event.get('question')}{listed}{advice}"
    if kind == EventKind.GUIDANCE:
        return f"guidance: {event.get('text')}"
    if kind == EventKind.REOPENED:
        return f"reopened from {event.get('from_state')} (retries up to {event.get('max_retries')})"
    if kind == EventKind.ESCALATED:
        return f"escalated from {event.get('from_model')} to {event.get('to_model')}"
    return None


def describe_role_event(event: dict[str, Any]) -> str | None:
    """One line for a logged judge or verifier decision; None for other events."""
    if event.get("event") != EventKind.ROLE_DECISION:
        return None
    role, decision = event.get("role"), event.get("decision")
    why = f" ({event.get('reason')})" if event.get("reason") else ""
    if decision == RoleVerdict.RETRY:
        advice = f": {event.get('guidance')}" if event.get("guidance") else ""
        return f"judge: retry{advice}"
    if decision == RoleVerdict.ASK:
        return f"judge: ask a person: {event.get('question')}"
    if decision == RoleVerdict.INSUFFICIENT:
        return f"verifier: insufficient: {'; '.join(map(str, event.get('gaps') or []))}"
    if decision == RoleVerdict.SUFFICIENT:
        return f"verifier: sufficient{why}"
    return f"{role}: no decision{why}"


def describe_role_decision(decided: dict[str, Any]) -> str:
    """One line for a decision as ``state.json``'s ``roles`` keeps it."""
    return describe_role_event({**decided, "event": EventKind.ROLE_DECISION}) or ""
