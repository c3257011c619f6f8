"""The inbox's core on real batch folders: which runs wait, their change and evidence, landing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orch_tui.core.batch.inbox import find_entry, waiting_runs
from orch_tui.core.batch.inbox_review import finish_review, open_run
from orch_tui.core.batch.landing import Target, land
from orch_tui.core.batch.record import BATCH_FILE
from orch_tui.core.batch.reviewed import is_reviewed
from orch_tui.core.runlog.layout import COVERAGE
from orch_tui.core.workspace.git import GitError, Repo
from tests.e2e.test_batch_workspace import make_repo
from tests.support.inbox_support import CALC, EXTRA, TEST, batch_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return batch_project(tmp_path / "project")


def test_finished_runs_wait_until_reviewed_and_a_damaged_batch_is_named(project: Path) -> None:
    entries, problems = waiting_runs(project)
    assert sorted(e.name for e in entries) == ["one", "two"] and problems == []
    assert entries[0].finished_at >= entries[1].finished_at
    entry = find_entry(entries, "one")
    assert entry is not None and find_entry(entries, f"{entry.batch_id}/one") is entry
    assert entry.run_options[:2] == ("--provider", "scripted")

    opened = open_run(entry)
    review = finish_review(opened, Target(project / "mine"), None)
    assert is_reviewed(entry.folder, entry.state.run_id, entry.state.attempt)
    assert review.landed == ["calc.py", "extra.py", "tests/test_calc.py"]
    assert [e.name for e in waiting_runs(project)[0]] == ["two"]

    (entry.folder.parent / BATCH_FILE).write_text("{broken", encoding="utf-8")
    entries, problems = waiting_runs(project)
    assert entries == [] and len(problems) == 1 and BATCH_FILE in problems[0]


def test_the_change_is_the_whole_run_against_its_start_with_its_evidence(project: Path) -> None:
    (entry, _other) = waiting_runs(project)[0]
    log_dir = entry.folder / "logs" / entry.state.run_id
    (log_dir / "attempt-00" / COVERAGE).write_text(json.dumps({"unavailable": "no coverage"}))

    change = open_run(entry).change

    assert change.proposal.files == ("calc.py", "extra.py", "tests/test_calc.py")
    assert [c.new_text for c in change.proposal.changes] == [CALC, EXTRA, TEST]
    assert change.start == dict.fromkeys(change.proposal.files)
    assert change.evidence == ("tests ✓ 1 passed", "coverage unavailable: no coverage")


def test_landing_merges_with_the_persons_edits_and_writes_nothing_that_conflicts(
    tmp_path: Path,
) -> None:
    target = tmp_path / "mine"
    target.mkdir()
    (target / "kept.py").write_text("a = 1\nb = 2\nc = 3\n\n\n\nz = 9\n")
    (target / "clash.py").write_text("x = 'theirs'\n")
    start = {"kept.py": "a = 1\nb = 2\nc = 3\n\n\n\nz = 0\n", "clash.py": "x = 1\n", "new.py": None}
    reviewed = {
        "kept.py": "a = 10\nb = 2\nc = 3\n\n\n\nz = 0\n",
        "clash.py": "x = 2\n",
        "new.py": "n = 1\n",
    }

    landing = land(Target(target), reviewed, start)

    assert landing.landed == ["kept.py", "new.py"] and landing.conflicts == ["clash.py"]
    assert (target / "kept.py").read_text() == "a = 10\nb = 2\nc = 3\n\n\n\nz = 9\n"
    assert (target / "clash.py").read_text() == "x = 'theirs'\n"
    assert (target / "new.py").read_text() == "n = 1\n"


def test_a_checked_out_branch_is_refused_and_nothing_is_committed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "mine")
    head = Repo(repo).head()

    with pytest.raises(GitError, match="trunk is checked out"):
        land(Target(repo, "trunk"), {"new.py": "n = 1\n"}, {"new.py": None})
    with pytest.raises(GitError, match="no branch missing"):
        land(Target(repo, "missing"), {"new.py": "n = 1\n"}, {"new.py": None})

    assert Repo(repo).head() == head and not (repo / "new.py").exists()
