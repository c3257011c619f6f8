"""A change run (DESIGN section 16): a spec edited after a run changes that run's project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orch_tui.core.domain.events import Event, RunStarted
from orch_tui.core.domain.state import RunState
from orch_tui.core.history.chain_export import export_chain_markdown
from orch_tui.core.loop.engine import EXIT_SUCCESS
from orch_tui.core.loop.review import ReviewAborted, ReviewSession
from orch_tui.core.runlog import layout as runlog
from tests.core.loop.test_engine import GOOD, TEST, make_engine, state_of
from tests.core.workspace.test_existing_project import git
from tests.support.scripting import attempt, create, prompt_text

SUB = "def sub(a, b):\n    return a - b\n"
SUB_TEST = "from calc import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n"
EDITED_SPEC = (
    "# calc\n\n`calc.add(a, b)` returns the sum.\n`calc.sub(a, b)` returns the difference.\n"
)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    (tmp_path / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    return tmp_path


def _first_run(project: Path) -> str:
    engine, _ = make_engine(
        project, [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))]
    )
    assert engine.run() == EXIT_SUCCESS
    return state_of(project).run_id


def _change_attempt() -> list:
    return attempt(create("calc.py", GOOD + "\n\n" + SUB), create("tests/test_sub.py", SUB_TEST))


def test_an_edited_spec_changes_the_project_it_built(project: Path) -> None:
    first = _first_run(project)
    workspace = project / "workspace"
    (workspace / "NOTES.md").write_text("kept by hand\n")  # a hand edit
    (project / "spec.md").write_text(EDITED_SPEC)
    events: list[Event] = []
    engine, provider = make_engine(project, [_change_attempt()], events=events)
    assert engine.run() == EXIT_SUCCESS

    state = state_of(project)
    assert state.run_id != first and state.follows == first
    # The workspace stayed: the first run's files and the hand edit are still there.
    assert (workspace / "tests" / "test_calc.py").read_text() == TEST
    assert (workspace / "NOTES.md").read_text() == "kept by hand\n"
    assert "def sub" in (workspace / "calc.py").read_text()
    assert not (project / "logs" / first / "workspace").exists()
    # The first prompt carries the spec's edit and the project as it stands.
    prompt = prompt_text(provider.requests[0])
    assert "+`calc.sub(a, b)` returns the difference." in prompt
    assert f"run {first}" in prompt
    assert "- calc.py" in prompt and "- NOTES.md" in prompt
    assert "the workspace is empty" not in prompt
    # The log records the chain and the edit.
    log = project / "logs" / state.run_id
    assert json.loads((log / runlog.RUN_META).read_text())["follows"] == first
    assert "+`calc.sub(a, b)`" in (log / runlog.SPEC_DIFF).read_text()
    started = [e for e in events if isinstance(e, RunStarted)]
    assert started[0].follows == first
    notices = " ".join(getattr(e, "message", "") for e in events)
    assert f"changes the project of run {first}" in notices and "--fresh" in notices
    # the chain's export: both runs' reports, oldest first, the change run's with its edit
    report = export_chain_markdown(project / "logs", state.run_id)
    assert f"| 1 | `{first}` | SUCCESS | 1 |" in report
    assert f"| 2 | `{state.run_id}` | SUCCESS | 1 |" in report
    edit = report.index("## Spec edit")
    assert report.index(f"# Run {first}") < report.index(f"# Run {state.run_id}") < edit
    assert "+`calc.sub(a, b)`" in report[edit:]


def test_another_spec_file_starts_its_own_project(project: Path) -> None:
    """Only an edit of the same spec changes its project: a second spec in the same folder
    is a project of its own, and the first one's workspace is set aside, not changed."""
    first = _first_run(project)
    (project / "other.md").write_text(EDITED_SPEC)
    engine, provider = make_engine(project, [_change_attempt()], spec="other.md")
    assert engine.run() == EXIT_SUCCESS

    state = state_of(project)
    assert state.follows is None
    assert (project / "logs" / first / "workspace" / "tests" / "test_calc.py").read_text() == TEST
    assert not (project / "workspace" / "tests" / "test_calc.py").exists()
    assert "the workspace is empty" in prompt_text(provider.requests[0])


def test_the_change_proposal_is_reviewed_as_usual(project: Path) -> None:
    _first_run(project)
    (project / "spec.md").write_text(EDITED_SPEC)
    seen: list[list[str]] = []

    class Quit:
        def review(self, session: ReviewSession) -> None:
            seen.append([change.path for change in session.proposal.changes])
            raise ReviewAborted

    engine, _ = make_engine(project, [_change_attempt()], reviewer=Quit())
    with pytest.raises(ReviewAborted):
        engine.run()
    assert seen == [["calc.py", "tests/test_sub.py"]]
    assert state_of(project).state is RunState.REVIEWING
    # Nothing applied before the review: the project is as the first run left it.
    assert (project / "workspace" / "calc.py").read_text() == GOOD


def test_an_unfinished_run_is_changed_too_and_resumes_as_the_change_run(project: Path) -> None:
    first = _first_run(project)
    (project / "spec.md").write_text(EDITED_SPEC)

    class Quit:
        def review(self, session: ReviewSession) -> None:
            raise ReviewAborted

    engine, _ = make_engine(project, [_change_attempt()], reviewer=Quit())
    with pytest.raises(ReviewAborted):
        engine.run()
    second = state_of(project).run_id
    engine, provider = make_engine(project, [])
    assert engine.run() == EXIT_SUCCESS
    assert state_of(project).run_id == second and state_of(project).follows == first
    assert provider.requests == []  # the saved proposal was reviewed, not asked for again


def test_in_git_the_change_run_branches_from_the_previous_runs_branch(project: Path) -> None:
    from orch_tui.core.config.paths import ProjectPaths
    from orch_tui.core.domain.events import EventBus
    from orch_tui.core.domain.spec import read_spec
    from orch_tui.core.loop.engine import Engine, RunOptions
    from orch_tui.core.loop.review import AcceptAllReviewer
    from tests.core.loop.test_engine import fast_config
    from tests.support.scripting import CountingProvider

    repo = project / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("a project\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "start")

    def engine_for(attempts: list) -> Engine:
        return Engine(
            paths=ProjectPaths(project).with_workspace(repo),
            config=fast_config(),
            spec=read_spec(project / "spec.md"),
            provider=CountingProvider(attempts),
            reviewer=AcceptAllReviewer(),
            bus=EventBus(),
            options=RunOptions(max_retries=3),
        )

    assert (
        engine_for([attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))]).run()
        == 0
    )
    first = state_of(project)
    git(repo, "checkout", "-q", "main")  # the person looks elsewhere, unmerged
    (project / "spec.md").write_text(EDITED_SPEC)
    assert engine_for([_change_attempt()]).run() == 0
    second = state_of(project)
    assert second.follows == first.run_id
    assert git(repo, "rev-parse", "--abbrev-ref", "HEAD") == second.workspace.git.branch
    ancestors = git(repo, "log", "--format=%H", second.workspace.git.branch).split()
    assert first.workspace.commits["0"] in ancestors  # built on the first run's work


def test_plan_mode_plans_the_change_of_the_project_it_follows(project: Path) -> None:
    """``--plan`` after a spec edit plans the edit: the planning request carries the spec's
    diff and the project map, the run follows the one before, the project stays."""
    from orch_tui.core.loop.engine import RunOptions
    from tests.core.loop.test_plan_engine import submit

    first = _first_run(project)
    (project / "workspace" / "NOTES.md").write_text("kept by hand\n")
    (project / "spec.md").write_text(EDITED_SPEC)
    change = {"tasks": [{"id": "t1", "title": "sub", "description": "", "acceptance": "sub"}]}
    engine, provider = make_engine(
        project, [[submit(change)], _change_attempt()], options=RunOptions(max_retries=3, plan=True)
    )
    assert engine.run() == EXIT_SUCCESS

    state = state_of(project)
    assert state.follows == first and state.plan is not None
    assert [(t.id, t.status.value) for t in state.plan.tasks] == [("t1", "done")]
    planning = prompt_text(provider.requests[0])
    assert "submit_plan" in json.dumps(provider.requests[0].tools)
    assert "+`calc.sub(a, b)` returns the difference." in planning
    assert f"run {first}" in planning and "Plan only the change" in planning
    assert "- calc.py" in planning and "- NOTES.md" in planning
    # the task's first prompt is a change too, and the project was changed, not rebuilt
    assert "+`calc.sub(a, b)`" in prompt_text(provider.requests[1])
    assert (project / "workspace" / "NOTES.md").read_text() == "kept by hand\n"
    assert (project / "workspace" / "tests" / "test_calc.py").read_text() == TEST
    assert not (project / "logs" / first / "workspace").exists()
    assert (
        json.loads((project / "logs" / state.run_id / runlog.RUN_META).read_text())["follows"]
        == first
    )


def test_a_written_task_list_plans_only_its_new_tasks_in_a_change_run(project: Path) -> None:
    """Tasks the spec already had were built by the run before: only the added one runs,
    with no planning request."""
    from orch_tui.core.loop.engine import RunOptions

    (project / "spec.md").write_text("# calc\n\n## Task 1: add\n`calc.add(a, b)` the sum.\n")
    first = _first_run(project)
    (project / "spec.md").write_text(
        "# calc\n\n## Task 1: add\n`calc.add(a, b)` the sum.\n\n"
        "## Task 2: sub\n`calc.sub(a, b)` the difference.\n"
    )
    engine, provider = make_engine(
        project, [_change_attempt()], options=RunOptions(max_retries=3, plan=True)
    )
    assert engine.run() == EXIT_SUCCESS
    state = state_of(project)
    assert state.follows == first and state.plan is not None
    assert [t.id for t in state.plan.tasks] == ["2"]
    assert provider.attempts_asked == [0]  # no planning request: task 2 at attempt 0
    assert "+## Task 2: sub" in prompt_text(provider.requests[0])


BROKEN = "def add(a, b)\n    return a + b\n"  # edited by hand: the colon is gone


def test_a_workspace_edited_into_one_that_does_not_parse_is_said_and_fixed(project: Path) -> None:
    """Nothing is moved or refused: the start names the file and its error, the first prompt
    tells the model once (and the map marks the file), and the checks' collection error is the
    failure the next patch fixes."""
    first = _first_run(project)
    (project / "workspace" / "calc.py").write_text(BROKEN)
    (project / "spec.md").write_text(EDITED_SPEC)
    events: list[Event] = []
    script = [
        attempt(create("tests/test_sub.py", SUB_TEST)),  # leaves calc.py as the person left it
        attempt(create("calc.py", GOOD + "\n\n" + SUB)),
    ]
    engine, provider = make_engine(project, script, events=events)
    assert engine.run() == EXIT_SUCCESS

    notices = [getattr(e, "message", "") for e in events]
    assert "workspace/calc.py (line 1: expected ':') does not parse: left as it is" in " ".join(
        notices
    )
    assert state_of(project).follows == first
    assert not (project / "logs" / first / "workspace").exists()
    opening = prompt_text(provider.requests[0])
    assert (
        "do not parse as they stand now" in opening and "- calc.py: line 1: expected ':'" in opening
    )
    assert "calc.py (31 bytes): does not parse (line 1: expected ':')" in opening
    patch = prompt_text(next(r for r in provider.requests if r.attempt == 1))
    assert "do not parse as they stand now" not in patch  # said once
    assert "expected ':'" in patch  # the checks' collection error, as a failure to fix
    assert (project / "workspace" / "calc.py").read_text() == GOOD + "\n\n" + SUB
