"""Asking a person: the question a run stops on, and the answer that restarts it.

A run moves to NEEDS_HELP when the model calls ``ask_user`` or, with
``loop.on_stuck = "ask"``, when it is stuck. The question is kept in ``state.json``
and in the asking attempt's ``question.json``; the person's answer is written to the
next attempt's ``guidance.json`` before that attempt runs, so its prompt can be built
again after a crash.
"""

from __future__ import annotations

from dataclasses import field
from enum import StrEnum
from typing import Any

from orch_tui.core.util.patterns import LazyPattern
from orch_tui.core.util.records import record

QUESTION = "question.json"
GUIDANCE = "guidance.json"
GIVE_UP = "Give up on this run"
"""The stuck question's last option: an action (the run ends FAILED), never guidance."""


class QuestionSource(StrEnum):
    """Who asked a person."""

    MODEL = "model"
    """The model, through the ask_user tool."""
    JUDGE = "judge"
    """The judge model (``model.judge``), after failed checks."""
    STUCK = "stuck"
    """The loop itself: it could not go on (retries spent, no progress)."""


@record
class Question:
    """What the run asks: the text, options to pick from, and the asker's recommendation."""

    text: str
    options: list[str] = field(default_factory=list)
    recommendation: str = ""
    source: QuestionSource = QuestionSource.MODEL

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "options": list(self.options),
            "recommendation": self.recommendation,
            "source": self.source,
        }

    @classmethod
    def from_json(cls, data: Any) -> Question:
        if not isinstance(data, dict) or not isinstance(data.get("text"), str):
            raise ValueError(f"bad question {data!r}")
        options = data.get("options") or []
        if not isinstance(options, list):
            raise ValueError(f"bad question options {options!r}")
        return cls(
            text=data["text"],
            options=[str(option) for option in options],
            recommendation=str(data.get("recommendation") or ""),
            source=_source(data.get("source")),
        )

    @classmethod
    def from_tool_input(cls, tool_input: Any) -> Question:
        """The ``ask_user`` call's input, tolerating what a model may leave out or mistype."""
        data = tool_input if isinstance(tool_input, dict) else {}
        options = data.get("options")
        return cls(
            text=str(data.get("question") or "(the model asked without a question)"),
            options=[str(o) for o in options] if isinstance(options, list) else [],
            recommendation=str(data.get("recommendation") or ""),
        )

    def lines(self) -> list[str]:
        """The question as plain lines for a terminal: text, numbered options, recommendation."""
        out = [self.text]
        out += [f"  {number}. {option}" for number, option in enumerate(self.options, 1)]
        if self.recommendation:
            out.append(f"  recommended: {self.recommendation}")
        return out


_OPTION = LazyPattern(r"^\s*(?:\d+[.)]|[-*•]|\(?[a-zA-Z]\))\s+(.+?)\s*$")
"""An option as a model writes one in prose: ``1. x``, ``2) x``, ``- x``, ``* x``, ``(a) x``."""
PROSE_QUESTION_CHARS = 2000


def prose_question(text: str) -> Question | None:
    """The question a model asked in prose instead of calling ``ask_user``; None when its text
    asks nothing. The question is the paragraph ending in its last ``?`` line, as written; the
    options are the list lines after it (or, if none, those before it)."""
    lines = text.strip().splitlines()
    asking = [n for n, line in enumerate(lines) if line.rstrip().endswith("?")]
    if not asking:
        return None
    last = asking[-1]
    start = last
    while start > 0 and lines[start - 1].strip() and not _OPTION.match(lines[start - 1]):
        start -= 1
    after = [m.group(1) for line in lines[last + 1 :] if (m := _OPTION.match(line))]
    before = [m.group(1) for line in lines[:start] if (m := _OPTION.match(line))]
    question = "\n".join(line.rstrip() for line in lines[start : last + 1]).strip()
    return Question(
        text=question[:PROSE_QUESTION_CHARS],
        options=(after or before)[:9],
        source=QuestionSource.MODEL,
    )


def _source(value: Any) -> QuestionSource:
    """A saved question's source; one written before sources were kept was the model's."""
    try:
        return QuestionSource(value or QuestionSource.MODEL)
    except ValueError:
        raise ValueError(f"bad question source {value!r}") from None


def stuck_question(reason: str, failing: list[str]) -> Question:
    """The question a stuck run asks; it names the tests still failing, and only then offers
    to explain or relax them. A node id without ``::`` is a test file that did not load (a
    collection error); with no failing test at all (a crash of the checks, a final check, a
    proposal with no change) the question is about the next step, not about tests."""
    tests = [name for name in failing if "::" in name]
    files = [name for name in failing if "::" not in name]
    said = "".join(
        f" {lead}: {_listed(names)}."
        for lead, names in (
            ("These tests still fail", tests),
            ("These test files do not load", files),
        )
        if names
    )
    text = f"The run is stuck ({reason}).{said} How should the model go on?"
    if tests:
        options = ["Explain what the tests expect", "Relax or fix the tests"]
        recommendation = "Explain what the failing tests expect, in a sentence or two."
    else:
        options = ["Explain what the spec asks for", "Say what to change next"]
        recommendation = "Say what the model should change next, in a sentence or two."
    return Question(
        text=text,
        options=[*options, GIVE_UP],
        recommendation=recommendation,
        source=QuestionSource.STUCK,
    )


def _listed(names: list[str]) -> str:
    return ", ".join(names[:10]) + (f" (+{len(names) - 10} more)" if len(names) > 10 else "")


def answer_from_choice(question: Question, reply: str) -> str:
    """A reply that is just an option's number becomes that option's text."""
    stripped = reply.strip()
    if stripped.isdigit() and 1 <= int(stripped) <= len(question.options):
        return question.options[int(stripped) - 1]
    return reply


def gives_up(question: Question | None, reply: str) -> bool:
    """The reply picks "Give up on this run" (by its number or its text)."""
    answer = answer_from_choice(question, reply) if question is not None else reply
    return answer.strip().casefold() == GIVE_UP.casefold()


def guidance_section(question: Question | None, answer: str) -> str:
    """What the next prompt adds: the question asked, if any, and the answer verbatim."""
    parts = ["## Guidance from the person running this build"]
    if question is not None:
        parts.append(f"You (or the loop) asked:\n> {question.text}")
    parts.append(f"Their answer, verbatim:\n\n{answer}")
    return "\n\n".join(parts)
