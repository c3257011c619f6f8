"""Which files are tests, and which changes of a proposal touch the tests that are the contract.

A test file present when an attempt starts (the person's own, or one accepted in an earlier
attempt) is locked: the tests are the contract the code is held to. A change to one never
lands by "undecided = accepted" in review: it needs the person's own accept.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orch_tui.core.domain.proposal import Decisions, Proposal

LOCKED_NOTE = (
    "an undecided change to a test that existed before this attempt was left out: the tests "
    "are the contract, so a change to one lands only when you accept it yourself (y)"
)


def is_test_file(rel: str) -> bool:
    """pytest's default test file names (``test_*.py``, ``*_test.py``) and ``conftest.py``."""
    name = posixpath.basename(rel)
    return name.endswith(".py") and (
        name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"
    )


def locked_test_paths(proposal: Proposal) -> list[str]:
    """The test files the proposal changes that existed when its attempt started."""
    return [c.path for c in proposal.changes if c.old_text is not None and is_test_file(c.path)]


def hold_locked_tests(proposal: Proposal, decisions: Decisions) -> list[str]:
    """Reject the undecided hunks of locked test files (an explicit accept stays); returns the
    files that had such hunks."""
    from orch_tui.core.domain.proposal import HunkDecision  # a review's: not at a run's start

    held = []
    for change in proposal.changes:
        if change.path not in locked_test_paths(proposal) or change.path in decisions.edits:
            continue
        states = decisions.for_file(change)
        undecided = [i for i, state in enumerate(states) if state is HunkDecision.UNDECIDED]
        for index in undecided:
            decisions.set(change.path, index, HunkDecision.REJECTED)
        if undecided:
            held.append(change.path)
    return held
