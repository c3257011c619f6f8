"""The command that resumes a stopped run: the one given, less what would not resume it.

``--fresh`` would start yet another new run, a spent ``--guidance`` (or ``--continue``,
``--give-up``) would act on the run again, and with those ``--max-retries`` would reset the
budget a reopen computed; every "to resume" hint prints this command instead of "the same".
"""

from __future__ import annotations

from collections.abc import Sequence

SPENT_FLAGS = frozenset({"--fresh", "--continue", "--give-up", "--rework"})
SPENT_WITH_VALUE = frozenset({"--guidance"})
REOPENING = frozenset({"--continue", "--guidance"})


def resume_command(argv: Sequence[str]) -> str:
    """``orch-tui`` with ``argv`` less the options that would not resume the run."""
    import shlex  # only for a hint: every run imports this module at its start

    reopened = any(arg.split("=", 1)[0] in REOPENING for arg in argv)
    dropped_with_value = SPENT_WITH_VALUE | ({"--max-retries"} if reopened else set())
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        name = arg.split("=", 1)[0]
        if arg in SPENT_FLAGS or (name in dropped_with_value and "=" in arg):
            continue
        if arg in dropped_with_value:
            skip = True
            continue
        kept.append(arg)
    return shlex.join(["orch-tui", *kept])


_given: list[str] | None = None
"""The run's own arguments, as ``orch-tui`` was given them (set by :func:`remember`)."""


def remember(argv: Sequence[str]) -> None:
    """Keep the arguments the run was started with, for the hints."""
    global _given
    _given = list(argv)


def resuming_command(argv: Sequence[str] | None = None) -> str:
    """``the same command``, or ```orch-tui spec.md --auto``` when the one given would not
    resume (``argv`` None: the remembered arguments)."""
    given = _given if argv is None else list(argv)
    if given is None:
        return "the same command"
    import shlex

    command = resume_command(given)
    return "the same command" if command == shlex.join(["orch-tui", *given]) else f"`{command}`"


def resume_hint(argv: Sequence[str] | None = None) -> str:
    """``run the same command to resume``, or ``run `orch-tui spec.md` to resume``."""
    return f"run {resuming_command(argv)} to resume"
