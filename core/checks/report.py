"""The results of the checks: one command (:class:`CheckSpec`), how it went
(:class:`CheckResult`) and all of them together (:class:`TestReport`), each to and from JSON."""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from orch_tui.core.util.records import record

if TYPE_CHECKING:
    from orch_tui.core.checks.junit import TestCase
    from orch_tui.core.config.models import Config
    from orch_tui.core.config.plain import PlainConfig


@record(frozen=True)
class CheckSpec:
    """One command that must succeed: ``name`` as shown to people, ``command`` as argv."""

    name: str
    command: list[str]


@record
class CheckResult:
    name: str
    command: list[str]
    exit_code: int | None  # None: never started; negative: killed by that signal
    timed_out: bool
    duration_s: float
    output: str  # stdout and stderr interleaved, capped: head, "[... N bytes dropped ...]", tail
    dropped_bytes: int
    tests: list[TestCase] = field(default_factory=list)
    error: str | None = None  # a sentence for a person when something beyond failing tests broke

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and self.error is None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "command": list(self.command),
            "exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "duration_s": self.duration_s,
            "output": self.output,
            "dropped_bytes": self.dropped_bytes,
            "tests": [test.to_json() for test in self.tests],
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckResult:
        from orch_tui.core.checks.junit import TestCase  # doctor builds commands, reads no report

        exit_code = data.get("exit_code")
        return cls(
            name=str(data["name"]),
            command=[str(arg) for arg in data.get("command") or []],
            exit_code=None if exit_code is None else int(exit_code),
            timed_out=bool(data.get("timed_out")),
            duration_s=float(data.get("duration_s") or 0.0),
            output=str(data.get("output") or ""),
            dropped_bytes=int(data.get("dropped_bytes") or 0),
            tests=[TestCase.from_json(test) for test in data.get("tests") or []],
            error=data.get("error"),
        )


@record
class TestReport:
    """The results of one run of all checks."""

    __test__ = False  # not a pytest test class, despite the name

    checks: list[CheckResult]

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def failing(self) -> list[str]:
        """Sorted ids of failed and errored tests, plus ``check:<name>`` for a failed check that
        names no failing test (ruff, a timeout, no tests collected, a crash outside any test)."""
        ids: set[str] = set()
        for check in self.checks:
            bad = [t.id for t in check.tests if t.outcome in ("failed", "error")]
            ids.update(bad)
            if not check.passed and not bad:
                ids.add(f"check:{check.name}")
        return sorted(ids)

    @property
    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(("passed", "failed", "error", "skipped"), 0)
        for check in self.checks:
            for test in check.tests:
                counts[test.outcome] = counts.get(test.outcome, 0) + 1
        return counts

    def summary(self) -> str:
        """One short line: ``12 passed, 2 failed``, then what else went wrong, if anything."""
        parts = [f"{n} {outcome}" for outcome, n in self.counts.items() if n]
        line = ", ".join(parts) if parts else "no test results"
        problems = []
        for check in self.checks:
            if check.passed:
                continue
            if check.error:
                problems.append(f"{check.name}: {check.error}")
            elif not any(t.outcome in ("failed", "error") for t in check.tests):
                problems.append(f"{check.name} failed (exit code {check.exit_code})")
        return "; ".join([line, *problems])

    def to_json(self) -> dict[str, Any]:
        """The report as JSON data; ``passed``, ``counts`` and ``failing`` are there for
        readers of the logs and are recomputed by :meth:`from_json`."""
        return {
            "passed": self.passed,
            "counts": self.counts,
            "failing": self.failing,
            "checks": [check.to_json() for check in self.checks],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TestReport:
        return cls(checks=[CheckResult.from_json(check) for check in data.get("checks") or []])


def configured_checks(
    config: Config | PlainConfig, python: str, final: bool = False
) -> list[CheckSpec]:
    """The test command and the extra checks (``final``: the ``checks.final`` commands instead),
    ``{python}`` replaced by ``python``."""
    checks = config.checks

    def argv(command: list[str]) -> list[str]:
        return [arg.replace("{python}", python) for arg in command]

    if final:
        return [CheckSpec(check.name, argv(check.command)) for check in checks.final]

    return [CheckSpec("tests", argv(checks.test_command))] + [
        CheckSpec(extra.name, argv(extra.command)) for extra in checks.extra
    ]
