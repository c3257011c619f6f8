"""End to end: the installed ``orch-tui --auto`` against the local fake Messages API.

Every test runs the console script as a subprocess in its own project folder with its own
fake server, and checks what a user would see: exit codes, stdout/stderr, ``state.json``,
the workspace and the run's logs.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

from orch_tui.core.checks.runner import TestReport
from orch_tui.core.config.models import Config, load_config
from tests.support.e2e_support import (
    DEMO_DIR,
    FAST_CONFIG,
    Project,
    assert_clean_exit,
    attempt_turns,
    child_env,
    first_requests,
    orch_tui,
    tree_files,
    write_attempts_script,
)
from tests.support.fake_anthropic import Error, FakeAnthropic, Garbled, Turn

pytestmark = pytest.mark.e2e

SPEC = "# calc\n\nA module `app.py` with `add(a, b)` returning the sum, and pytest tests.\n"

BUGGY_APP = "def add(a, b):\n    return a - b\n"
FIXED_APP = "def add(a, b):\n    return a + b\n"
ADD_TEST = "from app import add\n\n\ndef test_add():\n    assert add(2, 3) == 5, 'add is wrong'\n"
VALUE_TEST = "from app import VALUE\n\n\ndef test_value():\n    assert VALUE == 42\n"

ProjectFactory = Callable[..., Project]
ServerFactory = Callable[..., FakeAnthropic]


def generate(*files: tuple[str, str]) -> list[Turn]:
    return attempt_turns("Writing the project.", [("create", path, text) for path, text in files])


def failing_test(name: str) -> tuple[str, str]:
    return (f"tests/test_{name}.py", f"def test_{name}():\n    assert False, '{name} fails'\n")


def set_value(old: int, new: int) -> tuple[str, ...]:
    return ("str_replace", "app.py", f"VALUE = {old}", f"VALUE = {new}")


def model_attempts(fake: FakeAnthropic) -> int:
    return len(first_requests(r.body for r in fake.requests))


def http_project(
    project_factory: ProjectFactory, fake_server: ServerFactory, *attempts: list[Turn]
) -> tuple[Project, FakeAnthropic]:
    fake = fake_server([turn for turns in attempts for turn in turns])
    return project_factory(spec_text=SPEC, fake_url=fake.url), fake


def imported_modules(importtime_stderr: str) -> set[str]:
    """Module names from ``-X importtime`` lines (``import time: self | cumulative | name``)."""
    names = set()
    for line in importtime_stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def heavy_imports(modules: set[str]) -> set[str]:
    return {m for m in modules if m.split(".")[0] in ("textual", "anthropic")}


# -- the whole loop ---------------------------------------------------------------------------


def test_generation_failing_test_patch_success(project_factory, fake_server, tmp_path):
    project, fake = http_project(
        project_factory,
        fake_server,
        generate(("app.py", BUGGY_APP), ("tests/test_app.py", ADD_TEST)),
        attempt_turns("Fixing add.", [("str_replace", "app.py", "a - b", "a + b")]),
    )

    result = project.run_auto()

    assert_clean_exit(result, 0)
    last = result.stdout.splitlines()[-1]
    assert last.startswith(
        "SUCCESS: 1 test passes (1 added, 0 rewritten, 0 weakened); 0 of 2 changed lines run by "
        "no test, after 2 attempts · tokens "
    ), last
    assert last.endswith(" · exit 0") and last.count("attempt") == 1, last
    final = {"app.py": FIXED_APP, "tests/test_app.py": ADD_TEST}
    assert project.workspace_files() == final
    state = project.state()
    assert state is not None
    assert (state["state"], state["attempt"], state["exit_code"]) == ("SUCCESS", 1, 0)

    events = project.events()
    assert events[0]["event"] == "run_started"
    assert events[-1]["event"] == "run_finished" and events[-1]["state"] == "SUCCESS"
    assert all(event["at"].endswith("Z") for event in events)
    states = [event["state"] for event in events if event["event"] == "state"]
    assert states == [
        "GENERATING", "REVIEWING", "TESTING", "PATCHING", "REVIEWING", "TESTING", "SUCCESS"
    ]  # fmt: skip

    logged = ["conversation.json", "proposal.json", "decisions.json", "applied.patch"]
    logged += ["test-output.txt", "report.json"]
    for attempt in (0, 1):
        for name in logged:
            assert (project.attempt_dir(attempt) / name).is_file(), f"attempt {attempt}: {name}"
    first_report = TestReport.from_json(
        json.loads((project.attempt_dir(0) / "report.json").read_text())
    )
    assert first_report.failing == ["tests/test_app.py::test_add"]
    assert "add is wrong" in (project.attempt_dir(0) / "test-output.txt").read_text()
    assert json.loads((project.attempt_dir(1) / "report.json").read_text())["passed"] is True

    # Each applied.patch applies to the tree as it stood before its attempt.
    replay = tmp_path / "replay"
    replay.mkdir()
    for attempt in (0, 1):
        patch = str(project.attempt_dir(attempt) / "applied.patch")
        subprocess.run(["git", "apply", "--check", patch], cwd=replay, check=True)
        subprocess.run(["git", "apply", patch], cwd=replay, check=True)
    assert tree_files(replay) == final

    bodies = [request.body for request in fake.requests]
    assert len(bodies) == 4 and model_attempts(fake) == 2
    patch_request = json.dumps(bodies[2]["messages"][0])
    assert "test_add" in patch_request and "add is wrong" in patch_request
    for body in bodies:
        assert any(block.get("cache_control") for block in body["system"]), body["system"]
        assert body["tools"][0]["name"] == "str_replace_based_edit_tool"
        assert body["stream"] is True


def test_retries_exhausted_asks_the_model_one_plus_n_times(project_factory, fake_server):
    project, fake = http_project(
        project_factory,
        fake_server,
        generate(("app.py", "VALUE = 0\n"), failing_test("a")),
        generate(failing_test("b")),
        generate(failing_test("c")),
        generate(failing_test("d")),  # served only if the engine asked once too often
    )

    result = project.run_auto("--max-retries", "2")

    assert_clean_exit(result, 1)
    assert model_attempts(fake) == 3
    state = project.state()
    assert state is not None and state["state"] == "FAILED" and state["attempt"] == 2
    assert state["stop_reason"].startswith("retries exhausted"), state["stop_reason"]
    assert "tests/test_d.py" not in project.workspace_files()


def test_no_progress_stops_after_the_same_failures_twice(project_factory, fake_server):
    project, fake = http_project(
        project_factory,
        fake_server,
        generate(("app.py", "VALUE = 0\n"), ("tests/test_app.py", VALUE_TEST)),
        generate(("notes1.txt", "one\n")),
        generate(("notes2.txt", "two\n")),
        generate(("notes3.txt", "three\n")),
    )

    result = project.run_auto("--max-retries", "5")

    assert_clean_exit(result, 1)
    state = project.state()
    assert state is not None and state["attempt"] == 2
    assert state["stop_reason"].startswith("no progress: the same 1 failing test after")
    assert model_attempts(fake) == 3


def test_identical_proposal_stops(project_factory, fake_server):
    project, fake = http_project(
        project_factory,
        fake_server,
        generate(("app.py", "VALUE = 0\n"), ("tests/test_app.py", VALUE_TEST)),
        attempt_turns("Try 1.", [set_value(0, 1)]),
        # A new failing test keeps the failing set moving, so only the repeat can stop the run.
        attempt_turns("Try 2.", [set_value(1, 2), ("create", *failing_test("extra"))]),
        attempt_turns("Try 1 again.", [set_value(2, 1)]),
    )

    result = project.run_auto("--max-retries", "5")

    assert_clean_exit(result, 1)
    state = project.state()
    assert state is not None and state["attempt"] == 3
    assert "identical to attempt 1" in state["stop_reason"], state["stop_reason"]
    assert project.workspace_files()["app.py"] == "VALUE = 2\n"  # the repeat never landed
    assert model_attempts(fake) == 4


def test_cost_budget_stops_the_run(project_factory, fake_server):
    expensive = Turn.edits("Writing.", [("create", "app.py", "VALUE = 0\n")])
    expensive.usage = {"input_tokens": 1_000_000}  # $2 at the default Sonnet 5 price
    project, fake = http_project(
        project_factory,
        fake_server,
        [expensive, Turn.say("Done.")],
        generate(("app.py", "VALUE = 42\n")),
    )

    result = project.run_auto("--max-cost-usd", "1")

    assert_clean_exit(result, 1)
    state = project.state()
    assert state is not None and state["state"] == "FAILED"
    assert state["stop_reason"].startswith("cost budget spent"), state["stop_reason"]
    assert state["cost_usd"] >= 2.0
    assert model_attempts(fake) == 1


def test_two_overloaded_answers_then_success(project_factory, fake_server):
    fixed = generate(("app.py", FIXED_APP), ("tests/test_app.py", ADD_TEST))
    fake = fake_server([Error.overloaded(), Error.overloaded(), *fixed])
    project = project_factory(spec_text=SPEC, fake_url=fake.url)

    result = project.run_auto()

    assert_clean_exit(result, 0)
    assert len(fake.requests) == 4
    first, second, third = (request.body for request in fake.requests[:3])
    assert first == second == third  # the SDK sent the same request again after each 529
    assert fake.requests[2].headers.get("x-stainless-retry-count") == "2"
    assert project.workspace_files() == {"app.py": FIXED_APP, "tests/test_app.py": ADD_TEST}


def test_an_unreadable_stream_stops_as_a_model_error_and_the_same_command_resumes(
    project_factory, fake_server
):
    garbled = Garbled(Turn.say("Writing the project."), '{"type": "content_block_', 3)
    fake = fake_server([garbled, garbled])  # stream_retries = 1: two tries, then the stop
    project = project_factory(spec_text=SPEC, fake_url=fake.url)

    stopped = project.run_auto()

    assert_clean_exit(stopped, 1)
    assert "unexpected error" not in stopped.stderr + stopped.stdout
    state = project.state()
    assert state is not None and state["state"] == "FAILED"
    assert state["last_error"].startswith("the response could not be read 2 time(s) in a row")
    assert not (project.run_dir() / "crash.txt").exists()

    fake.push(*generate(("app.py", FIXED_APP), ("tests/test_app.py", ADD_TEST)))
    resumed = project.run_auto()

    assert_clean_exit(resumed, 0)
    assert project.workspace_files() == {"app.py": FIXED_APP, "tests/test_app.py": ADD_TEST}


def test_json_prints_one_event_object_per_line(project_factory, fake_server):
    project, _ = http_project(
        project_factory,
        fake_server,
        generate(("app.py", FIXED_APP), ("tests/test_app.py", ADD_TEST)),
    )

    result = project.run_auto("--json")

    assert_clean_exit(result, 0)
    lines = result.stdout.splitlines()
    events = [json.loads(line) for line in lines]
    assert all(isinstance(event, dict) and "event" in event for event in events)
    assert events[0]["event"] == "run_started"
    assert (events[-1]["event"], events[-1]["state"], events[-1]["exit_code"]) == (
        "run_finished",
        "SUCCESS",
        0,
    )


# -- safety ---------------------------------------------------------------------------------


def _passwd_case(project: Project, outside: Path) -> tuple[str, str, Callable[[], object]]:
    """Re-create /etc/passwd with its own bytes: harmless even if the guard failed."""
    passwd = Path("/etc/passwd")
    before = passwd.stat()
    return (
        "/etc/passwd",
        passwd.read_text(),
        lambda: (
            (passwd.stat().st_mtime_ns, passwd.stat().st_ino) == (before.st_mtime_ns, before.st_ino)
        ),
    )


def _parent_case(project: Project, outside: Path) -> tuple[str, str, Callable[[], object]]:
    return "../x", "escaped\n", lambda: not (project.root / "x").exists()


def _symlink_case(project: Project, outside: Path) -> tuple[str, str, Callable[[], object]]:
    (project.workspace / "link").symlink_to(outside, target_is_directory=True)
    return "link/evil.py", "escaped\n", lambda: list(outside.iterdir()) == []


@pytest.mark.parametrize("case", [_passwd_case, _parent_case, _symlink_case])
def test_edit_outside_the_workspace_stops_with_exit_2(project_factory, fake_server, tmp_path, case):
    outside = tmp_path / "outside"
    outside.mkdir()
    fake = fake_server()
    project = project_factory(spec_text=SPEC, fake_url=fake.url)
    project.workspace.mkdir()
    (project.workspace / "keep.py").write_text("KEEP = 1\n")
    path, text, nothing_written_outside = case(project, outside)
    fake.push(
        Turn.edits("Editing.", [("create", "good.py", "GOOD = 1\n"), ("create", path, text)]),
        Turn.say("Done."),
    )
    before = project.workspace_files()

    result = project.run_auto()

    assert_clean_exit(result, 2)
    assert "unsafe path" in result.stdout + result.stderr
    assert project.workspace_files() == before
    assert nothing_written_outside()
    state = project.state()
    assert state is not None and (state["state"], state["exit_code"]) == ("FAILED", 2)


def test_auto_lines_spell_out_control_characters_in_model_chosen_text(project_factory, fake_server):
    """A path with ``\r\x1b[2K`` would erase, on a terminal, the line announcing the file."""
    hidden = "evil.py\r\x1b[2K  create good.py\x9b\u202eyp.txt\u200b"
    project, fake = http_project(
        project_factory,
        fake_server,
        generate(("app.py", FIXED_APP), ("tests/test_app.py", ADD_TEST), (hidden, "EVIL = 1\n")),
    )

    result = project.run_auto()

    assert_clean_exit(result, 0)
    assert not {"\r", "\x1b", "\x9b", "\u202e", "\u200b"} & set(result.stdout), result.stdout
    assert "create evil.py\\r\\x1b[2K  create good.py\\x9b\\u202eyp.txt\\u200b\n" in result.stdout


# -- state and interruption -------------------------------------------------------------------

CORRUPT_STATES = {
    "truncated": b'{"version": 1, "run_id": "20260101-000000-abcd", "state": "TEST',
    "unknown-version": json.dumps({"version": 99, "state": "TESTING", "attempt": 0}).encode(),
}


@pytest.mark.parametrize("content", CORRUPT_STATES.values(), ids=CORRUPT_STATES.keys())
def test_corrupt_or_unknown_state_exits_3_and_is_untouched(project_factory, fake_server, content):
    project, fake = http_project(project_factory, fake_server, generate(("app.py", FIXED_APP)))
    project.state_path.write_bytes(content)

    result = project.run_auto()

    assert_clean_exit(result, 3)
    assert project.state_path.read_bytes() == content
    assert "state.json" in result.stderr and "reset" in result.stderr
    assert fake.requests == []


SLOW_ITEMS_TEST = """\
import pathlib
import time

from app import ITEMS

STARTED = pathlib.Path(__file__).resolve().parents[1] / "tests-started.flag"  # in workspace/


def test_items():
    if "b" in ITEMS and not STARTED.exists():
        STARTED.write_text("sleeping")
        time.sleep(60)
    assert ITEMS == ["a", "b"], "ITEMS must be a then b"
"""


def pytest_processes_in(folder: Path) -> list[int]:
    """Live processes whose working folder is ``folder``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and Path(entry / "cwd").resolve() == folder.resolve():
                if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGHUP], ids=["ctrl-c", "sighup"])
def test_ctrl_c_during_tests_exits_130_and_the_same_command_resumes(
    project_factory, fake_server, stop
):
    project, fake = http_project(
        project_factory,
        fake_server,
        generate(("app.py", 'ITEMS = [\n    "a",\n]\n'), ("tests/test_items.py", SLOW_ITEMS_TEST)),
        attempt_turns(
            "Appending b.", [("str_replace", "app.py", '    "a",\n', '    "a",\n    "b",\n')]
        ),
    )
    flag = project.workspace / "tests-started.flag"
    code = project.signal_once(flag, stop, str(project.spec), "--auto")

    assert code == 130
    assert "resume" in (project.root / "stderr.txt").read_text()
    assert not pytest_processes_in(project.workspace)  # the check died with the run
    state = project.state()
    assert state is not None and (state["state"], state["attempt"]) == ("TESTING", 1)

    result = project.run_auto()

    assert_clean_exit(result, 0)
    assert project.workspace_files()["app.py"] == 'ITEMS = [\n    "a",\n    "b",\n]\n'
    assert model_attempts(fake) == 2  # resumed at TESTING: nothing asked again
    assert [e["event"] for e in project.events()].count("run_started") == 2


# -- keys -------------------------------------------------------------------------------------


def test_missing_key_is_a_clear_error(project_factory):
    project = project_factory(spec_text=SPEC, key=None)

    result = project.run_auto()

    assert_clean_exit(result, 1)
    assert "ANTHROPIC_API_KEY" in result.stderr


def test_rejected_key_is_a_clear_error(project_factory, fake_server):
    fake = fake_server([Turn.say("never sent")])
    project = project_factory(spec_text=SPEC, fake_url=fake.url, key="wrong-key")

    result = project.run_auto()

    assert_clean_exit(result, 1)
    output = result.stdout + result.stderr
    assert "API key" in output and "401" in output
    assert len(fake.requests) == 1 and fake.remaining == 1


# -- the bundled demo -------------------------------------------------------------------------


def test_bundled_demo_replays_without_a_key(tmp_path):
    env = {**child_env(key=None), "PYTHONPROFILEIMPORTTIME": "1"}
    result = subprocess.run(
        [orch_tui(), str(DEMO_DIR / "spec.md"), "--auto"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert_clean_exit(result, 0)
    assert "replaying the bundled demo" in result.stdout
    assert tree_files(tmp_path / "workspace") == tree_files(DEMO_DIR / "expected")
    assert heavy_imports(imported_modules(result.stderr)) == set()
    # With no configuration the checks ran in the project's own environment, made on first use.
    assert "creating the project's environment" in result.stdout
    assert (tmp_path / "workspace" / ".venv" / "bin" / "python").exists()


# -- other commands ---------------------------------------------------------------------------


def test_status_json_and_reset(project_factory, tmp_path):
    project = project_factory(spec_text=SPEC)
    script = write_attempts_script(
        tmp_path / "script.json", [generate(("app.py", FIXED_APP), ("tests/test_app.py", ADD_TEST))]
    )
    assert_clean_exit(project.run_auto("--provider", "scripted", "--script", str(script)), 0)
    run_dir = project.run_dir()

    status = project.run("status", "--json")

    assert_clean_exit(status, 0)
    data = json.loads(status.stdout)
    assert (data["state"], data["run_id"], data["attempt"]) == ("SUCCESS", run_dir.name, 0)

    again = project.run_auto("--provider", "scripted", "--script", str(script))

    assert_clean_exit(again, 0)
    assert f"run {run_dir.name} already finished (SUCCESS)" in again.stdout
    assert "--fresh" in again.stdout and "orch-tui reset" in again.stdout
    assert "after 1 attempt " in again.stdout or "after 1 attempt\n" in again.stdout

    reset = project.run("reset", "--yes")

    assert_clean_exit(reset, 0)
    assert not project.state_path.exists()
    assert list(project.workspace.iterdir()) == []
    assert (run_dir / "events.jsonl").is_file()
    assert json.loads(project.run("status", "--json").stdout) is None


def test_init_writes_a_config_that_parses(tmp_path):
    env = child_env()
    result = subprocess.run(
        [orch_tui(), "init"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )

    assert_clean_exit(result, 0)
    path = tmp_path / "orchestrator.toml"
    assert tomllib.loads(path.read_text())["loop"]["max_retries"] == 5
    assert load_config(path) == Config()


MALFORMED_CONFIGS = {
    "unknown-key": ("[model]\nbogus = 1\n", "model.bogus"),
    "wrong-type": ('[loop]\nmax_retries = "many"\n', "loop.max_retries"),
}


@pytest.mark.parametrize(
    ("config", "key"), MALFORMED_CONFIGS.values(), ids=MALFORMED_CONFIGS.keys()
)
def test_malformed_config_names_file_and_key_before_any_request(
    project_factory, fake_server, config, key
):
    fake = fake_server(generate(("app.py", FIXED_APP)))
    project = project_factory(spec_text=SPEC, fake_url=fake.url, config=config)

    result = project.run_auto()

    assert_clean_exit(result, 1)
    assert "orchestrator.toml" in result.stderr and key in result.stderr
    assert fake.requests == []
    assert not project.state_path.exists()


def test_empty_spec_is_a_clear_error(project_factory):
    project = project_factory(spec_text="  \n\n")

    result = project.run_auto()

    assert_clean_exit(result, 1)
    assert "spec is empty" in result.stderr
    assert not project.state_path.exists()


def test_help_works_without_importing_textual_or_anthropic(tmp_path):
    env = {**child_env(), "PYTHONPROFILEIMPORTTIME": "1"}
    result = subprocess.run(
        [orch_tui(), "--help"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: orch-tui")
    assert "exit codes" in result.stdout
    modules = imported_modules(result.stderr)
    assert "orch_tui.tui.cli.commands" in modules  # the profile really covered the command
    assert heavy_imports(modules) == set()


READ_PARENT_ENVIRON = """\
import os, sys
try:
    leaked = b"ANTHROPIC_API_KEY" in open(f"/proc/{os.getppid()}/environ", "rb").read()
except OSError:
    leaked = False
print("LEAKED" if leaked else "NO-LEAK")
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux only")
@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) is missing")
def test_a_check_without_a_sandbox_cannot_read_the_api_key_from_the_parent(
    project_factory, tmp_path
):
    (tmp_path / "leak.py").write_text(READ_PARENT_ENVIRON, encoding="utf-8")
    config = FAST_CONFIG.replace(
        "[checks]\n",
        f'[checks]\nsandbox = "none"\ntest_command = ["{{python}}", "{tmp_path / "leak.py"}"]\n',
    )
    project = project_factory(spec_text=SPEC, config=config)
    script = write_attempts_script(tmp_path / "script.json", [generate(("app.py", FIXED_APP))])

    # Without capabilities, as a user runs it: root's CAP_SYS_PTRACE reads any process's
    # environment, dumpable or not (only the sandbox stops that; see the README).
    no_caps = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", orch_tui()]
    result = subprocess.run(
        [*no_caps, str(project.spec), "--auto", "--provider", "scripted", "--script", str(script)],
        cwd=project.root, env=project.env, capture_output=True, text=True, timeout=90,
    )  # fmt: skip

    assert_clean_exit(result, 0)
    output = (project.attempt_dir(0) / "test-output.txt").read_text(encoding="utf-8")
    assert "NO-LEAK" in output and "LEAKED" not in output
