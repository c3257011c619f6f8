"""``logs/<run_id>/``: the names of everything about one run, the only truth history reads.

Layout::

    logs/<run_id>/run.json            run id, spec path and hash, provider, model, created_at
    logs/<run_id>/spec.md             the spec as it was
    logs/<run_id>/events.jsonl        append-only, one event per line (UTC ISO-8601 ``at``)
    logs/<run_id>/attempt-NN/         conversation.json, proposal.json, decisions.json,
                                      applied.json, applied.patch, test-output.txt, report.json,
                                      coverage.json, evidence.json
"""

from __future__ import annotations

CONVERSATION = "conversation.json"
PROPOSAL = "proposal.json"
DECISIONS = "decisions.json"
APPLIED = "applied.json"
APPLIED_PATCH = "applied.patch"
TEST_OUTPUT = "test-output.txt"
REPORT = "report.json"
FINAL_REPORT = "final-report.json"
"""The ``checks.final`` report of the attempt they ran after."""
COVERAGE = "coverage.json"
"""Which tests ran each line: ``{"map": CoverageMap.to_json()}`` or ``{"unavailable": reason}``
(core.checks.coverage_map's :func:`coverage_record`)."""
EVIDENCE = "evidence.json"
"""Do the tests test the change: the added tests' labels and the tests rewritten to pass
(core.checks.change_evidence)."""
EVENTS = "events.jsonl"
RUN_META = "run.json"
SPEC_COPY = "spec.md"
SPEC_DIFF = "spec.diff"
"""A change run's spec edit: the unified diff from the spec of the run it follows."""
ORIGINALS = "originals"
"""The person's files as they were before the run first changed them."""
MANIFEST = "manifest.json"
PLAN_FILE = "plan.json"
PLAN_DRAFT_FILE = "plan-draft.json"
TASK_FILE = "task.json"
"""In each attempt folder of a planned run: ``{"task": ID}``, or ``{"planning": true}``."""
RECORDS_FOR_PEOPLE = frozenset({CONVERSATION, APPLIED_PATCH, TEST_OUTPUT})
"""Files no state points to and no resume reads: written atomically but not fsynced (a
crash can lose the last of them, never a decision). The conversation is rewritten after
every model turn; the state that resumes an attempt points at its proposal, decisions,
applied changes and report, which are fsynced together, in one commit with the state that
points at them (:class:`~core.atomic.Commit`)."""


def attempt_dir_name(attempt: int) -> str:
    return f"attempt-{attempt:02d}"
