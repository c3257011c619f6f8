"""Do the tests test the change? Two verdicts from scratch runs (DESIGN section 15), kept pure.

- Tests that test the change: each test an attempt adds is also run against the code as it
  was before the attempt; :func:`added_test_evidence` labels one that passes there
  "passes without this change" (it cannot tell the change from its absence).
- Rewritten to pass: when an attempt changes a locked test, the tests as they stood before the
  attempt are run against the new code; :func:`rewritten_to_pass` names each test that fails
  in its old form and passes in its new one.

The caller runs the tests (in the sandbox, in scratch copies) and hands over the JUnit results;
nothing here runs anything. Results are matched by pytest node id; the cases of a
parametrized test (``test_x[1]``, ``test_x[2]``) count as one test that passes only if every
case passes, and a file-level error (``tests/test_x.py``: the file did not import) counts as
the failure of every test in it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from orch_tui.core.checks.junit import TestCase
from orch_tui.core.domain.proposal import FileChange
from orch_tui.core.domain.test_files import is_test_file
from orch_tui.core.domain.test_syntax import defined_tests
from orch_tui.core.util.records import record

PASSES_WITHOUT = "passes without this change"
FAILS_WITHOUT = "fails without this change"
NOT_RUN = "not run without this change"

_PASSED = frozenset({"passed", "xpassed"})
_FAILED = frozenset({"failed", "error", "xfailed"})


def node_ids_in(path: str, source: str) -> list[str]:
    """pytest node ids of the tests ``source`` (the file at ``path``) defines."""
    return [f"{path}::{name}" for name in defined_tests(source)]


def added_tests(changes: Iterable[FileChange]) -> list[str]:
    """The node ids of the tests an attempt's changes add (new names in test files), sorted."""
    added: set[str] = set()
    for change in changes:
        if not is_test_file(change.path) or change.new_text is None:
            continue
        old = set(node_ids_in(change.path, change.old_text or ""))
        added.update(set(node_ids_in(change.path, change.new_text)) - old)
    return sorted(added)


@record(frozen=True)
class AddedTestEvidence:
    test: str
    label: str
    """:data:`PASSES_WITHOUT`, :data:`FAILS_WITHOUT` or :data:`NOT_RUN`."""

    @property
    def tests_the_change(self) -> bool:
        return self.label == FAILS_WITHOUT


def added_test_evidence(
    added: Iterable[str], before: Sequence[TestCase]
) -> list[AddedTestEvidence]:
    """Each added test's label from its results against the code before the attempt."""
    return [
        AddedTestEvidence(
            test,
            {True: PASSES_WITHOUT, False: FAILS_WITHOUT, None: NOT_RUN}[_passed(test, before)],
        )
        for test in sorted(set(added))
    ]


@record(frozen=True)
class RewrittenTest:
    test: str
    old_outcome: str
    """How the test's old form ended against the new code (``failed``, ``error``)."""

    def describe(self) -> str:
        name = self.test.rsplit("::", 1)[-1]
        return f"{name} was rewritten to pass: its old form {self.old_outcome}, the new one passes"


def rewritten_to_pass(
    old_texts: Mapping[str, str],
    old_form: Sequence[TestCase],
    new_form: Sequence[TestCase],
) -> list[RewrittenTest]:
    """The locked tests that fail in their old form (``old_texts``: path -> text before the
    attempt, run as ``old_form`` against the new code) and pass in their new one (``new_form``:
    the attempt's own run)."""
    found = []
    for path, text in sorted(old_texts.items()):
        for test in node_ids_in(path, text):
            if _passed(test, old_form) is False and _passed(test, new_form) is True:
                found.append(RewrittenTest(test, _worst(test, old_form)))
    return found


def _results(test: str, results: Sequence[TestCase]) -> list[TestCase]:
    path = test.split("::", 1)[0]
    return [
        result
        for result in results
        if result.id == test or result.id.startswith(test + "[") or result.id == path
    ]


def _passed(test: str, results: Sequence[TestCase]) -> bool | None:
    """True: every result of ``test`` passed; False: one failed; None: it did not run."""
    mine = _results(test, results)
    if any(result.outcome in _FAILED for result in mine):
        return False
    if mine and all(result.outcome in _PASSED for result in mine):
        return True
    return None


def _worst(test: str, results: Sequence[TestCase]) -> str:
    outcomes = {result.outcome for result in _results(test, results)}
    return next((o for o in ("error", "failed", "xfailed") if o in outcomes), "failed")
