"""A batch's report: per spec and in totals, and two batches side by side."""

from __future__ import annotations

from orch_tui.core.batch.record import BatchRecord, RunRecord, RunStatus
from orch_tui.core.batch.report import compare_markdown, report_markdown, totals


def run(name: str, state: str, attempts: int, cost: float) -> RunRecord:
    return RunRecord(
        name=name,
        spec=f"/s/{name}.md",
        status=RunStatus.FINISHED,
        state=state,
        attempts=attempts,
        cost_usd=cost,
        tokens=1000,
        tests="2 passed",
    )


def batch(batch_id: str, *runs: RunRecord) -> BatchRecord:
    return BatchRecord(batch_id, "2026-11-25T00:00:00Z", {}, list(runs), wall_s=1800.0)


def test_totals_count_solved_after_one_and_after_k_attempts() -> None:
    record = batch(
        "b1", run("a", "SUCCESS", 1, 0.1), run("b", "SUCCESS", 3, 0.3), run("c", "FAILED", 6, 0.6)
    )

    sums = totals(record)

    assert sums["solved"] == 2 and sums["specs"] == 3
    assert sums["solved_after"] == {1: 1, 2: 1, 3: 2, 4: 2, 5: 2, 6: 2}
    assert sums["cost_per_solved_usd"] == 0.5  # the failed run's cost counts too
    assert sums["runs_per_hour"] == 6.0


def test_a_batch_with_nothing_solved_has_no_cost_per_solved_spec() -> None:
    sums = totals(batch("b1", run("a", "FAILED", 2, 0.2)))
    assert sums["cost_per_solved_usd"] is None and sums["solved_after"] == {1: 0, 2: 0}


def test_the_markdown_report_has_a_row_per_spec_and_escapes_their_text() -> None:
    bad = run("evil", "FAILED", 1, 0.0)
    bad.stop_reason = "model said | \x1b[2J done"
    good = run("a", "SUCCESS", 1, 0.1)
    good.evidence = (
        "2 tests pass (2 added, 0 rewritten, 0 weakened); 0 of 3 changed lines run by no test"
    )
    text = report_markdown(batch("b1", good, bad))

    assert f"| a | SUCCESS | 1 | 2 passed | {good.evidence} | 1,000 | $0.1000 |" in text
    assert "| evil | FAILED | 1 | 2 passed | - |" in text
    assert "\x1b" not in text and "solved: 1 of 2 (1 after 1)" in text


def test_compare_sets_two_batches_side_by_side_per_spec_and_in_totals() -> None:
    a = batch("b1", run("x", "SUCCESS", 1, 0.1), run("y", "FAILED", 5, 0.5))
    b = batch("b2", run("x", "SUCCESS", 2, 0.2), run("z", "SUCCESS", 1, 0.1))

    text = compare_markdown(a, b)

    assert "| x | SUCCESS | 1 | $0.1000 | SUCCESS | 2 | $0.2000 |" in text
    assert "| y | FAILED | 5 | $0.5000 | - | - | - |" in text
    assert "| z | - | - | - | SUCCESS | 1 | $0.1000 |" in text
    assert "| solved | 1 | 2 |" in text
