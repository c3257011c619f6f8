"""The verdict's evidence (DESIGN section 15): per attempt, and for the run's last line.

:class:`AttemptEvidence` is what ``evidence.json`` holds for one attempt and what its
:class:`EvidenceFound` event carries: the tests the attempt added and how each fared against the
code before the attempt, the locked tests it rewrote to pass, the ways it weakened tests, and
how many of its changed lines no test runs. :class:`Verdict` sums a whole run up for the last
line of ``--auto`` and the ``--json`` fields of ``run_finished``::

    31 tests pass (12 added, 0 rewritten, 0 weakened); 3 of 140 changed lines run by no test

Plain data: the checks work it out (``core.checks.attempt_evidence``), everyone else reads it.
"""

from __future__ import annotations

from dataclasses import asdict, field
from typing import Any, ClassVar

from orch_tui.core.domain.events import Event, EventKind
from orch_tui.core.util.records import record
from orch_tui.core.util.wording import plural

PASSES_WITHOUT = "passes without this change"
"""The label of an added test that passes against the code as it was before its attempt."""


def _short(test: str) -> str:
    return test.rsplit("::", 1)[-1]


@record(kw_only=True)
class EvidenceFound(Event):
    """What an attempt's checks show about its tests (its ``evidence.json``)."""

    kind: ClassVar[EventKind] = EventKind.EVIDENCE
    attempt: int
    added: list[str] = field(default_factory=list)
    """Node ids of the tests the attempt added."""
    passes_without: list[str] = field(default_factory=list)
    """Of those, the ones that pass against the code before the attempt."""
    rewritten: dict[str, str] = field(default_factory=dict)
    """Locked tests rewritten to pass: node id -> how the old form ended (``failed``)."""
    weakened: list[str] = field(default_factory=list)
    """``path: assert replaced by a constant in test_add``, one per finding."""
    uncovered_lines: int | None = None
    """Changed executable lines no test runs; None when coverage was not measured."""
    changed_lines: int | None = None
    """Changed executable lines of the measured files."""
    uncovered: dict[str, list[int]] = field(default_factory=dict)
    """Per file, the changed lines no test runs."""
    coverage_unavailable: str | None = None
    """Why coverage was not measured, for people."""
    problems: list[str] = field(default_factory=list)
    """A scratch run that could not be made (the evidence it would give is missing)."""

    def describe(self) -> str:
        parts = []
        if self.added:
            without = ", ".join(_short(t) for t in self.passes_without)
            note = f" ({without} {PASSES_WITHOUT})" if without else ""
            parts.append(f"{plural(len(self.added), 'test')} added{note}")
        for test, outcome in sorted(self.rewritten.items()):
            parts.append(f"{_short(test)} rewritten to pass (its old form {outcome})")
        if self.weakened:
            parts.append(f"{len(self.weakened)} weakened: {'; '.join(self.weakened)}")
        if self.uncovered_lines is not None and self.changed_lines is not None:
            parts.append(
                f"{self.uncovered_lines} of {self.changed_lines} changed lines run by no test"
            )
        elif self.coverage_unavailable:
            parts.append(f"coverage not measured: {self.coverage_unavailable}")
        parts += self.problems
        return "evidence: " + ("; ".join(parts) or "nothing to report")

    @classmethod
    def from_record(cls, data: Any) -> EvidenceFound | None:
        """An ``evidence.json`` read back; None when it is not one."""
        from orch_tui.core.domain.event_reading import event_from_json

        if not isinstance(data, dict):
            return None
        read = event_from_json({**data, "event": EventKind.EVIDENCE.value})
        return read if isinstance(read, EvidenceFound) else None

    def record(self) -> dict[str, Any]:
        """``evidence.json``: the event's fields, without its time."""
        data = asdict(self)
        data.pop("at", None)
        return data


@record(frozen=True)
class Verdict:
    """The run's evidence at SUCCESS: the last line and the ``--json`` fields."""

    tests_passed: int
    added: int
    rewritten: tuple[str, ...] = ()
    weakened: tuple[str, ...] = ()
    passes_without: tuple[str, ...] = ()
    uncovered_lines: int | None = None
    changed_lines: int | None = None
    coverage_unavailable: str | None = None

    def summary(self) -> str:
        verb = "passes" if self.tests_passed == 1 else "pass"
        head = (
            f"{plural(self.tests_passed, 'test')} {verb} ({self.added} added, "
            f"{len(self.rewritten)} rewritten, {len(self.weakened)} weakened)"
        )
        if self.uncovered_lines is not None and self.changed_lines is not None:
            tail = f"{self.uncovered_lines} of {self.changed_lines} changed lines run by no test"
        else:
            tail = f"coverage not measured: {self.coverage_unavailable or 'no data'}"
        return f"{head}; {tail}"

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("rewritten", "weakened", "passes_without"):
            data[key] = list(data[key])
        data["summary"] = self.summary()
        return data
