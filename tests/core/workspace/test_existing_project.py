"""Runs in a person's existing folder or git repository (DESIGN section 12), on real ones in tmp."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from orch_tui.core.config.paths import ProjectPaths
from orch_tui.core.domain.events import Event, EventBus, Notice
from orch_tui.core.domain.spec import read_spec
from orch_tui.core.domain.state import RunState, StateStore
from orch_tui.core.domain.state_records import GitRecord, WorkspaceRecord
from orch_tui.core.loop.engine import EXIT_SUCCESS, Engine, RunOptions
from orch_tui.core.loop.review import AcceptAllReviewer
from orch_tui.core.workspace.run_workspace import WorkspaceError
from orch_tui.tui.cli.commands import main
from tests.core.loop.test_engine import BAD, GOOD, TEST, fast_config
from tests.support.scripting import CountingProvider, attempt, create, replace

README = "# calc\n"


@pytest.fixture(autouse=True)
def _no_plugin_autoload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=Person", "-c", "user.email=person@example.com", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The orch-tui project folder: a spec; the workspace is a sibling folder."""
    folder = tmp_path / "orch"
    folder.mkdir()
    (folder / "spec.md").write_text("# calc\n\n`calc.add(a, b)` returns the sum.\n")
    return folder


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with one commit on main and an untracked file of the person's."""
    folder = tmp_path / "repo"
    folder.mkdir()
    git(folder, "init", "--quiet", "-b", "main")
    (folder / "README.md").write_text(README)
    git(folder, "add", "README.md")
    git(folder, "commit", "--quiet", "-m", "start")
    (folder / "notes.txt").write_text("my own untracked notes\n")
    return folder


def make_engine(project: Path, workspace: Path, attempts, events=None, **options) -> Engine:
    bus = EventBus()
    if events is not None:
        bus.subscribe(events.append)
    return Engine(
        paths=ProjectPaths(project).with_workspace(workspace),
        config=fast_config(),
        spec=read_spec(project / "spec.md"),
        provider=attempts if isinstance(attempts, CountingProvider) else CountingProvider(attempts),
        reviewer=AcceptAllReviewer(),
        bus=bus,
        options=RunOptions(max_retries=3, **options),
    )


def bad_then_good() -> list:
    return [
        attempt(
            create("calc.py", BAD), create("tests/test_calc.py", TEST), text="Add calc.\nMore."
        ),
        attempt(replace("calc.py", "a - b", "a + b"), text="Fix the sign of add."),
    ]


def commits(repo: Path, since: str = "main") -> list[str]:
    """Subjects of the commits on HEAD after ``since``, oldest first."""
    out = git(repo, "log", "--reverse", "--format=%s", f"{since}..HEAD")
    return out.splitlines() if out else []


def state_of(project: Path):
    return StateStore(project / "state.json").load()


def test_git_run_works_on_its_branch_with_one_commit_per_applied_attempt(
    project: Path, repo: Path
) -> None:
    start = git(repo, "rev-parse", "HEAD")
    events: list[Event] = []
    engine = make_engine(project, repo, bad_then_good(), events)
    assert engine.run() == EXIT_SUCCESS
    run_id = engine.state.run_id

    assert git(repo, "branch", "--show-current") == f"orch/{run_id}"
    assert commits(repo) == [
        f"orch-tui {run_id} attempt 0: Add calc.",
        f"orch-tui {run_id} attempt 1: Fix the sign of add.",
    ]
    assert (repo / "calc.py").read_text() == GOOD
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == ""
    assert (repo / "notes.txt").exists()
    assert "notes.txt" not in git(repo, "ls-files")
    assert not (repo / "workspace").exists() and not (project / "workspace").exists()

    record = state_of(project).workspace
    assert record is not None and record.default is False
    assert record.git == GitRecord(branch=f"orch/{run_id}", start_branch="main", start_commit=start)
    assert record.commits["1"] == git(repo, "rev-parse", "HEAD")
    hints = [e.message for e in events if isinstance(e, Notice) and "merge" in e.message]
    assert hints and f"git checkout main && git merge orch/{run_id}" in hints[0]


def test_a_dirty_tree_is_refused_unless_allowed(project: Path, repo: Path) -> None:
    (repo / "README.md").write_text("# changed, not committed\n")
    engine = make_engine(project, repo, bad_then_good())
    with pytest.raises(WorkspaceError, match=r"README\.md.*git stash.*--allow-dirty"):
        engine._open_run()
    assert not (project / "state.json").exists()
    assert git(repo, "branch", "--show-current") == "main"

    engine = make_engine(project, repo, bad_then_good(), allow_dirty=True)
    assert engine.run() == EXIT_SUCCESS
    assert git(repo, "branch", "--show-current") == f"orch/{engine.state.run_id}"
    assert (repo / "README.md").read_text() == "# changed, not committed\n"


def test_cli_refuses_a_dirty_tree_with_exit_1(
    project: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "README.md").write_text("# changed\n")
    script = project / "script.json"
    script.write_text(json.dumps({"attempts": []}))
    (project / "orchestrator.toml").write_text("")
    code = main(
        [
            str(project / "spec.md"),
            "--auto",
            "--workspace",
            str(repo),
            "--config",
            str(project / "orchestrator.toml"),
            "--provider",
            "scripted",
            "--script",
            str(script),
        ]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert "uncommitted changes" in err and "--allow-dirty" in err and "Traceback" not in err


@pytest.mark.parametrize("crash", ["after the commit", "before the commit"])
def test_resume_after_a_kill_neither_duplicates_nor_loses_a_commit(
    project: Path, repo: Path, crash: str
) -> None:
    good = [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST), text="Add calc.")]
    engine = make_engine(project, repo, good)
    assert engine.run() == EXIT_SUCCESS
    run_id = engine.state.run_id
    # What kill -9 leaves: state.json still says TESTING, with or without the commit made.
    state = state_of(project)
    state.state = RunState.TESTING
    assert state.workspace is not None
    state.workspace.commits = {}
    StateStore(project / "state.json").save(state)
    if crash == "before the commit":
        git(repo, "reset", "--quiet", "--soft", "HEAD~1")
        assert commits(repo) == []

    resumed = make_engine(project, repo, [])
    assert resumed.run() == EXIT_SUCCESS
    assert resumed.state.run_id == run_id
    assert commits(repo) == [f"orch-tui {run_id} attempt 0: Add calc."]
    assert state_of(project).workspace.commits["0"] == git(repo, "rev-parse", "HEAD")


def test_resume_returns_to_the_runs_branch(project: Path, repo: Path) -> None:
    engine = make_engine(project, repo, bad_then_good()[:1])
    engine._open_run()
    engine.state.state = RunState.GENERATING
    git(repo, "checkout", "--quiet", "main")
    resumed = make_engine(project, repo, bad_then_good())
    resumed._open_run()
    assert git(repo, "branch", "--show-current") == f"orch/{engine.state.run_id}"


def test_reset_in_git_checks_out_the_start_and_keeps_everything_else(
    project: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = make_engine(project, repo, bad_then_good())
    assert engine.run() == EXIT_SUCCESS
    branch = f"orch/{engine.state.run_id}"
    (project / "orchestrator.toml").write_text("")

    assert main(["reset", "--config", str(project / "orchestrator.toml")]) == 0
    said = capsys.readouterr().out
    assert f"checked out main in {repo}" in said and f"{branch} is kept" in said
    assert git(repo, "branch", "--show-current") == "main"
    assert git(repo, "rev-parse", "--verify", branch)
    assert (repo / ".git").is_dir()
    assert (repo / "notes.txt").read_text() == "my own untracked notes\n"
    assert (repo / "README.md").read_text() == README
    assert not (repo / "calc.py").exists()  # it lives on the run's branch
    assert not (project / "state.json").exists()


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and ".pytest_cache" not in path.parts
    }


def test_reset_restores_a_plain_folder_byte_for_byte(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "plain"
    (folder / "pkg").mkdir(parents=True)
    (folder / "calc.py").write_bytes(b"def add(a, b):\r\n    return a - b\r\n")
    (folder / "pkg" / "data.bin").write_bytes(bytes(range(256)))
    (folder / "keep.txt").write_text("untouched\n")
    before = snapshot(folder)

    attempts = [
        attempt(
            create("calc.py", GOOD),
            create("tests/deep/test_calc.py", TEST),
            text="Rewrite calc.",
        )
    ]
    engine = make_engine(project, folder, attempts)
    engine.run()
    assert (folder / "calc.py").read_text() == GOOD
    assert (folder / "tests" / "deep" / "test_calc.py").exists()
    assert state_of(project).workspace == WorkspaceRecord(
        path=str(folder.resolve()), default=False, protected_tests=[]
    )

    (project / "orchestrator.toml").write_text("")
    assert main(["reset", "--yes", "--config", str(project / "orchestrator.toml")]) == 0
    assert "restored 1 changed file and removed 1 created file" in capsys.readouterr().out
    assert snapshot(folder) == before
    assert not (folder / "tests").exists()


def test_reset_without_a_run_leaves_an_existing_folder_alone(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "a.py").write_text("x = 1\n")
    (project / "orchestrator.toml").write_text('[paths]\nworkspace = "../mine"\n')
    assert main(["reset", "--config", str(project / "orchestrator.toml")]) == 0
    assert "nothing removed" in capsys.readouterr().out
    assert (folder / "a.py").read_text() == "x = 1\n"


def test_paths_workspace_is_relative_to_the_config_file(project: Path, tmp_path: Path) -> None:
    from orch_tui.tui.cli.shared import load_project as _load

    (tmp_path / "mine").mkdir()
    (project / "orchestrator.toml").write_text('[paths]\nworkspace = "../mine"\n')
    paths, _config = _load(project / "orchestrator.toml")
    assert paths.workspace == (tmp_path / "mine").resolve()
    assert not paths.is_default_workspace
    paths, _config = _load(project / "orchestrator.toml", tmp_path / "other")
    assert paths.workspace == (tmp_path / "other").resolve()
    (project / "orchestrator.toml").write_text("")
    paths, _config = _load(project / "orchestrator.toml")
    assert paths.is_default_workspace and paths.workspace == project / "workspace"


def test_default_workspace_runs_record_that_they_are_default(project: Path) -> None:
    engine = make_engine(
        project,
        project / "workspace",
        [attempt(create("calc.py", GOOD), create("tests/test_calc.py", TEST))],
    )
    assert engine.run() == EXIT_SUCCESS
    record = state_of(project).workspace
    assert record is not None and record.default is True and record.git is None


def test_existing_tests_are_protected_and_the_model_hears_why(project: Path, repo: Path) -> None:
    (repo / "tests").mkdir()
    (repo / "tests" / "test_readme.py").write_text("def test_readme():\n    assert True\n")
    git(repo, "add", "tests")
    git(repo, "commit", "--quiet", "-m", "a test")
    provider = CountingProvider(
        [
            attempt(
                create("tests/test_readme.py", "def test_readme():\n    pass\n"),
                create("calc.py", GOOD),
                create("tests/test_calc.py", TEST),
            )
        ]
    )
    engine = make_engine(project, repo, provider)
    assert engine.run() == EXIT_SUCCESS
    assert state_of(project).workspace.protected_tests == ["tests/test_readme.py"]
    assert (
        repo / "tests" / "test_readme.py"
    ).read_text() == "def test_readme():\n    assert True\n"
    results = [
        block
        for request in provider.requests
        for message in request.messages
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result" and block.get("is_error")
    ]
    assert len(results) == 1
    assert "tests/test_readme.py is protected" in str(results[0]["content"])


def test_protect_existing_tests_can_be_turned_off(project: Path, tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    (folder / "tests").mkdir(parents=True)
    (folder / "tests" / "test_old.py").write_text("def test_old():\n    assert True\n")
    config = fast_config()
    config.safety.protect_existing_tests = False
    config.safety.allow_test_edits = True  # headless, a test present at the attempt is locked too
    engine = make_engine(project, folder, [attempt(create("tests/test_old.py", "x = 1\n"))])
    engine.config = config
    engine.run()
    record = state_of(project).workspace
    assert record is not None and record.protected_tests is None
    assert "protected_tests" not in json.loads((project / "state.json").read_text())["workspace"]
    assert (folder / "tests" / "test_old.py").read_text() == "x = 1\n"


def test_restore_goes_back_to_an_attempt_as_a_commit_and_the_next_prompt_says_so(
    project: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = make_engine(project, repo, bad_then_good())
    assert engine.run() == EXIT_SUCCESS
    run_id = engine.state.run_id
    (project / "orchestrator.toml").write_text("")
    config = ["--config", str(project / "orchestrator.toml")]

    assert main(["restore", "0", *config]) == 0
    assert "restored attempt 0: undid 1 file from attempt 1 (calc.py)" in capsys.readouterr().out
    assert (repo / "calc.py").read_text() == BAD
    assert commits(repo)[-1] == f"orch-tui {run_id} restore 1: back to attempt 0"
    assert git(repo, "status", "--porcelain", "--untracked-files=no") == ""
    logged = (project / "logs" / run_id / "restores" / "restore-01.json").read_text()
    assert json.loads(logged)["undone"] == [1]
    assert "undid 1 file from attempt 1" in (project / "logs" / run_id / "events.jsonl").read_text()

    assert main(["restore", "1", *config]) == 0  # and forward again
    assert (repo / "calc.py").read_text() == GOOD
    assert main(["restore", "7", *config]) == 1
    assert "attempt 7" in capsys.readouterr().err

    state = state_of(project)
    state.state, state.attempt, state.max_retries = RunState.PATCHING, 2, 3
    StateStore(project / "state.json").save(state)
    provider = CountingProvider([[], [], attempt(create("extra.py", "X = 1\n"))])
    assert make_engine(project, repo, provider).run() == EXIT_SUCCESS
    prompt = json.dumps(provider.requests[0].messages[0])
    assert "attempt(s) 1 were undone" in prompt


def test_restore_in_a_plain_folder_brings_back_the_original_bytes(
    project: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "notes.md").write_bytes(b"original\r\nnotes\r\n")
    attempts = [
        attempt(create("calc.py", BAD), create("tests/test_calc.py", TEST)),
        attempt(create("notes.md", "rewritten\n"), create("calc.py", GOOD)),
    ]
    engine = make_engine(project, folder, attempts)
    assert engine.run() == EXIT_SUCCESS
    (project / "orchestrator.toml").write_text("")
    assert main(["restore", "0", "--config", str(project / "orchestrator.toml")]) == 0
    assert (folder / "notes.md").read_bytes() == b"original\r\nnotes\r\n"
    assert (folder / "calc.py").read_text() == BAD


def test_status_names_the_workspace_and_the_runs_branch(
    project: Path, repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    engine = make_engine(project, repo, bad_then_good())
    engine._open_run()
    (project / "orchestrator.toml").write_text("")
    assert main(["status", "--config", str(project / "orchestrator.toml")]) == 0
    said = capsys.readouterr().out
    assert f"workspace {repo.resolve()} (branch orch/{engine.state.run_id})" in said


def test_the_same_spec_in_another_workspace_starts_a_fresh_run(
    project: Path, repo: Path, tmp_path: Path
) -> None:
    first = make_engine(project, repo, bad_then_good())
    first._open_run()
    events: list[Event] = []
    other = make_engine(project, tmp_path / "elsewhere", [], events)
    (tmp_path / "elsewhere").mkdir()
    other._open_run()
    assert other.state.run_id != first.state.run_id
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert any(n.startswith("the workspace changed: started run") for n in notices)
