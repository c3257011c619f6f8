"""An attempt's evidence (DESIGN section 15): the scratch runs, then the verdicts on them.

After an attempt's checks ran on the workspace (its change applied), :func:`gather` works out
what ``evidence.json`` holds:

- Rewritten to pass: when the change touched a locked test (a test file that existed before the
  attempt), the tests run once more in a scratch copy of the workspace with those files as they
  stood before the attempt, against the new code; a test failing there and passing in the
  attempt's own run is named (``change_evidence.rewritten_to_pass``).
- Tests that test the change: when the change added tests, they run in a scratch copy with the
  attempt's code changes undone (its test files kept as they are now); an added test that passes
  there is labelled "passes without this change" (``change_evidence.added_test_evidence``).
- Weakened: the syntax-tree comparison of each locked test the change touched.
- Coverage: the changed lines no test runs, per file and counted.

A scratch run is the configured test check alone, sandboxed like the real one, with the
workspace's interpreter (its ``.venv`` stays outside the copy, read-only); only a pytest
command is run so (its node ids match the tests). A scratch run that cannot be made is a
problem named in the evidence, never a failure of the run.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from orch_tui.core.checks.change_evidence import (
    PASSES_WITHOUT,
    added_test_evidence,
    added_tests,
    rewritten_to_pass,
)
from orch_tui.core.checks.coverage_map import (
    CoverageMap,
    CoverageUnavailable,
    changed_line_coverage,
    uncovered_lines,
)
from orch_tui.core.checks.junit import TestCase
from orch_tui.core.checks.leftovers import trial_prefix
from orch_tui.core.checks.pytest_config import is_pytest
from orch_tui.core.checks.report import configured_checks
from orch_tui.core.checks.runner import run_check
from orch_tui.core.checks.sandbox import Limits, resolve_sandbox
from orch_tui.core.checks.venv import check_python
from orch_tui.core.checks.venv_path import PROJECT_VENV
from orch_tui.core.config.models import Config
from orch_tui.core.domain.evidence import EvidenceFound
from orch_tui.core.domain.proposal import FileChange, Proposal
from orch_tui.core.domain.test_files import is_test_file
from orch_tui.core.domain.test_weakening import find_weakenings
from orch_tui.core.workspace.apply import copy_tree


class ScratchFailed(Exception):
    """A scratch run gave no test results; the message says why."""


def tests_in_copy(
    config: Config,
    workspace: Path,
    texts: Mapping[str, str | None],
    running: Path | None = None,
) -> list[TestCase]:
    """The test check's results in a scratch copy of ``workspace`` whose files ``texts`` names
    hold those texts (None: the file is absent). :class:`ScratchFailed` when it gave none."""
    with tempfile.TemporaryDirectory(prefix=trial_prefix(workspace)) as tmp:
        copy = Path(tmp) / "workspace"
        copy_tree(workspace, copy)
        for path, text in texts.items():
            target = copy / path
            if text is None:
                target.unlink(missing_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")
        sandbox = resolve_sandbox(config.checks.sandbox).with_limits(
            Limits.from_config(config.checks)
        )
        result = run_check(
            configured_checks(config, check_python(config, workspace))[0],
            copy,
            Path(tmp) / "reports",
            timeout_s=config.checks.timeout_seconds,
            max_output_bytes=config.checks.max_output_bytes,
            extra_env_allow=config.checks.env_allow,
            sandbox=sandbox,
            running=running,
            read_only=[workspace / PROJECT_VENV],
            allow_all_skipped=True,  # a verdict per test is wanted, not the check's
        )
    if not result.tests:
        raise ScratchFailed(result.error or "the tests reported no results")
    return list(result.tests)


def gather(
    config: Config,
    workspace: Path,
    attempt: int,
    changes: Sequence[FileChange],
    results: Sequence[TestCase],
    coverage: CoverageMap | CoverageUnavailable,
    running: Path | None = None,
) -> EvidenceFound:
    """The evidence of an attempt whose ``changes`` (old text: before the attempt; new: now in
    ``workspace``) gave the test ``results``."""
    evidence = EvidenceFound(attempt=attempt)
    _coverage(evidence, coverage, changes, attempt)
    if not is_pytest(config.checks.test_command):
        # node ids are pytest's: another command's results cannot be matched test by test
        evidence.problems.append("the test command is not pytest: no scratch runs")
        return evidence
    locked = [
        c
        for c in changes
        if is_test_file(c.path) and c.old_text is not None and c.old_text != c.new_text
    ]
    if locked:
        old_texts = {c.path: c.old_text for c in locked if c.old_text is not None}
        try:
            old_form = tests_in_copy(config, workspace, old_texts, running)
            found = rewritten_to_pass(old_texts, old_form, results)
            evidence.rewritten = {r.test: r.old_outcome for r in found}
        except ScratchFailed as exc:
            evidence.problems.append(f"the locked tests' old form could not be run: {exc}")
        evidence.weakened = [
            f"{c.path}: {w.describe()}"
            for c in locked
            for w in find_weakenings(c.old_text, c.new_text)
        ]
    added = added_tests(changes)
    if added:
        evidence.added = added
        code_before = {c.path: c.old_text for c in changes if not is_test_file(c.path)}
        try:
            before = tests_in_copy(config, workspace, code_before, running)
            labels = added_test_evidence(added, before)
            evidence.passes_without = [e.test for e in labels if e.label == PASSES_WITHOUT]
        except ScratchFailed as exc:
            evidence.problems.append(f"the added tests could not be run without the change: {exc}")
    return evidence


def _coverage(
    evidence: EvidenceFound,
    coverage: CoverageMap | CoverageUnavailable,
    changes: Sequence[FileChange],
    attempt: int,
) -> None:
    if isinstance(coverage, CoverageUnavailable):
        evidence.coverage_unavailable = coverage.reason
        return
    counted = uncovered_lines(coverage, Proposal(attempt, tuple(changes)))
    evidence.uncovered_lines, evidence.changed_lines = counted.uncovered, counted.executable
    for change in changes:
        lines = [
            n for n, covered in changed_line_coverage(coverage, change).items() if covered is False
        ]
        if lines:
            evidence.uncovered[change.path] = lines
