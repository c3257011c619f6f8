"""core.checks against real processes: a real pytest in a real temporary workspace."""

from __future__ import annotations

import _thread
import json
import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest

from orch_tui.core.checks.runner import (
    CheckResult,
    CheckSpec,
    TestReport,
    build_env,
    run_check,
    run_checks,
)
from orch_tui.core.config.models import DEFAULT_TEST_COMMAND

PYTEST = CheckSpec("tests", list(DEFAULT_TEST_COMMAND))
# With -s, so that what a test prints reaches the captured output at once.
PYTEST_S = CheckSpec("tests", [*DEFAULT_TEST_COMMAND, "-s"])

ABSOLUTE_PATH = re.compile(r"(?<![\w.])/\w[^\s:]*/")

# Passed through to every check (and set by the autouse fixture): the pytest inside a check
# skips the many plugins installed here, which saves seconds per run.
FAST = ("PYTEST_DISABLE_PLUGIN_AUTOLOAD",)


pytestmark = pytest.mark.usefixtures("no_plugin_autoload")


@pytest.fixture
def report_dir(tmp_path: Path) -> Path:
    return tmp_path / "reports"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def run(spec: CheckSpec, workspace: Path, report_dir: Path, **kwargs: object) -> CheckResult:
    options: dict = {
        "timeout_s": 60,
        "max_output_bytes": 200_000,
        "extra_env_allow": FAST,
        **kwargs,
    }
    return run_check(spec, workspace, report_dir, **options)


def run_all(
    specs: list[CheckSpec], workspace: Path, report_dir: Path, **kwargs: object
) -> TestReport:
    options: dict = {
        "timeout_s": 60,
        "max_output_bytes": 100_000,
        "extra_env_allow": FAST,
        **kwargs,
    }
    return run_checks(specs, workspace, report_dir, **options)


def is_alive(pid: int) -> bool:
    """A process that exists and is not a zombie (a killed, not yet reaped one counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return not stat.parent.parent.joinpath("self").exists()  # no /proc: trust os.kill


def wait_until_dead(pid: int) -> bool:
    """SIGKILL is delivered asynchronously; give the kernel a moment before calling it alive."""
    deadline = time.monotonic() + 10
    while is_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_passing_tests_give_a_passing_report_with_per_test_results(workspace, report_dir):
    write(
        workspace / "tests/test_ok.py", "def test_one():\n    pass\n\ndef test_two():\n    pass\n"
    )

    report = run_all([PYTEST], workspace, report_dir)

    check = report.checks[0]
    assert report.passed and check.passed
    assert check.exit_code == 0 and check.error is None
    assert [t.id for t in check.tests] == [
        "tests/test_ok.py::test_one",
        "tests/test_ok.py::test_two",
    ]
    assert report.counts == {"passed": 2, "failed": 0, "error": 0, "skipped": 0}
    assert report.failing == []
    assert report.summary() == "2 passed"
    assert "2 passed" in check.output


def test_failing_tests_are_named_with_message_and_a_traceback_free_of_absolute_paths(
    workspace, report_dir
):
    write(
        workspace / "tests/test_bad.py",
        "import json\n\n"
        "def test_ok():\n    pass\n\n"
        "def test_assert():\n    assert 1 + 1 == 3, 'arithmetic is broken'\n\n"
        "class TestParse:\n"
        "    def test_json(self):\n        json.loads('not json')\n\n"
        "def test_where():\n    raise ValueError(__file__)\n",
    )

    check = run(PYTEST, workspace, report_dir)

    assert not check.passed and check.exit_code == 1 and check.error is None
    report = TestReport([check])
    assert report.failing == [
        "tests/test_bad.py::TestParse::test_json",
        "tests/test_bad.py::test_assert",
        "tests/test_bad.py::test_where",
    ]
    assert report.summary() == "1 passed, 3 failed"
    by_id = {t.id: t for t in check.tests}
    assert "arithmetic is broken" in by_id["tests/test_bad.py::test_assert"].message
    # The absolute path in the message became workspace-relative.
    assert by_id["tests/test_bad.py::test_where"].message == "ValueError: tests/test_bad.py"
    json_traceback = by_id["tests/test_bad.py::TestParse::test_json"].traceback
    assert "JSONDecodeError" in json_traceback
    assert "tests/test_bad.py:11" in json_traceback
    assert "decoder.py" in json_traceback  # the stdlib frame kept only its file name
    for test in check.tests:
        assert str(workspace) not in test.traceback + test.message
        assert not ABSOLUTE_PATH.search(test.traceback), test.traceback


def test_no_tests_collected_is_a_failure_with_a_clear_message(workspace, report_dir):
    write(workspace / "src/app.py", "VALUE = 1\n")

    report = run_all([PYTEST], workspace, report_dir)

    check = report.checks[0]
    assert check.exit_code == 5
    assert check.error == "pytest collected no tests"
    assert not report.passed
    assert report.failing == ["check:tests"]
    assert "pytest collected no tests" in report.summary()


def test_a_hanging_test_times_out_and_its_forked_grandchild_dies_too(
    workspace, report_dir, tmp_path
):
    pid_file = tmp_path / "grandchild.pid"
    write(
        workspace / "tests/test_hang.py",
        "import subprocess, sys, time\n\n"
        "def test_hang():\n"
        "    child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"    open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "    print('grandchild started', flush=True)\n"
        "    time.sleep(600)\n",
    )

    check = run(PYTEST_S, workspace, report_dir, timeout_s=3)

    assert check.timed_out and not check.passed
    assert check.error == "timed out after 3 s (the whole process group was killed)"
    assert "grandchild started" in check.output  # output up to the kill is kept
    assert wait_until_dead(int(pid_file.read_text()))
    assert TestReport([check]).failing == ["check:tests"]


def test_a_child_that_outlives_its_parent_with_stdout_open_does_not_hang_the_check(
    workspace, report_dir, tmp_path
):
    pid_file = tmp_path / "child.pid"
    script = (
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "print('parent done')\n"
    )
    spec = CheckSpec("forker", ["{python}", "-c", script])

    check = run(spec, workspace, report_dir, timeout_s=60)

    assert check.passed and not check.timed_out
    assert "parent done" in check.output
    assert wait_until_dead(int(pid_file.read_text()))


def test_ctrl_c_while_waiting_kills_the_process_group_before_propagating(
    workspace, report_dir, tmp_path, request
):
    pid_file = tmp_path / "child.pid"
    script = (
        "import subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "print('READY', flush=True)\n"
        "time.sleep(600)\n"
    )
    spec = CheckSpec("sleeper", ["{python}", "-c", script])

    def interrupt_when_ready(text: str) -> None:
        if "READY" in text:
            _thread.interrupt_main()  # what Ctrl+C does to the waiting main thread

    # interrupt_main does nothing unless Python's own handler is installed, and a test run
    # earlier in this worker may have left another one (asyncio's runner installs its own).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, previous))

    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        run(spec, workspace, report_dir, timeout_s=60, on_output=interrupt_when_ready)

    # At once, not at the check's deadline: the wait for the exit wakes to let the handler run.
    assert time.monotonic() - started < 30
    assert wait_until_dead(int(pid_file.read_text()))


def test_an_output_flood_is_capped_keeping_head_and_tail_and_counting_the_rest(
    workspace, report_dir
):
    body = 300_000
    script = f"import sys; sys.stdout.write('HEAD-' + 'x' * {body} + '-TAIL'); sys.stdout.flush()"
    spec = CheckSpec("flood", ["{python}", "-c", script])
    streamed: list[str] = []

    check = run(spec, workspace, report_dir, max_output_bytes=1000, on_output=streamed.append)

    total = len("HEAD-") + body + len("-TAIL")
    assert check.passed
    assert check.dropped_bytes == total - 1000
    assert check.output.startswith("HEAD-")
    assert check.output.endswith("-TAIL")
    assert f"[... {total - 1000} bytes dropped ...]" in check.output
    assert check.output.count("x") == 1000 - len("HEAD-") - len("-TAIL")
    live = "".join(streamed)
    assert live.startswith("HEAD-") and "not shown live" in live
    assert live.count("x") == 1000 - len("HEAD-")  # the live view stops at the cap too


def test_the_environment_is_an_allowlist_and_api_keys_never_pass(
    workspace, report_dir, monkeypatch
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-other-secret")
    monkeypatch.setenv("ORCH_TEST_ALLOWED", "allowed-value")
    monkeypatch.setenv("ORCH_TEST_NOT_ALLOWED", "hidden-value")
    monkeypatch.setenv("LANG", "C.UTF-8")
    write(
        workspace / "tests/test_env.py",
        "import json, os\n\ndef test_env():\n    print('ENV=' + json.dumps(dict(os.environ)))\n",
    )

    check = run(PYTEST_S, workspace, report_dir, extra_env_allow=["ORCH_TEST_ALLOWED", *FAST])

    assert check.passed
    seen = json.loads(re.search(r"ENV=(\{.*\})", check.output).group(1))
    assert "ANTHROPIC_API_KEY" not in seen and "OPENAI_API_KEY" not in seen
    assert "sk-ant-secret" not in check.output
    assert "ORCH_TEST_NOT_ALLOWED" not in seen
    assert seen["ORCH_TEST_ALLOWED"] == "allowed-value"
    assert seen["LANG"] == "C.UTF-8"
    assert seen["PATH"] == os.environ["PATH"]


def test_build_env_refuses_to_allow_an_api_key(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-secret")

    with pytest.raises(ValueError, match="ANTHROPIC_API_KEY"):
        build_env(["ANTHROPIC_API_KEY"])
    assert "ANTHROPIC_API_KEY" not in build_env()


def test_a_check_told_to_pass_an_api_key_fails_without_running(workspace, report_dir, tmp_path):
    marker = tmp_path / "ran"
    spec = CheckSpec("leaky", ["{python}", "-c", f"open({str(marker)!r}, 'w')"])

    check = run(spec, workspace, report_dir, extra_env_allow=["ANTHROPIC_API_KEY"])

    assert not check.passed and check.exit_code is None
    assert "ANTHROPIC_API_KEY" in check.error and "never" in check.error
    assert not marker.exists()


def test_a_command_that_does_not_exist_is_a_clear_error(workspace, report_dir):
    spec = CheckSpec("lint", ["orch-no-such-linter-xyz", "check", "."])

    report = run_checks([spec], workspace, report_dir, timeout_s=10, max_output_bytes=1000)

    check = report.checks[0]
    assert check.error == "command not found: orch-no-such-linter-xyz"
    assert check.exit_code is None and not report.passed
    assert report.failing == ["check:lint"]


def test_a_failing_second_check_fails_the_report_even_when_the_tests_pass(workspace, report_dir):
    write(workspace / "tests/test_ok.py", "def test_one():\n    pass\n")
    lint = CheckSpec("lint", ["{python}", "-c", "import sys; print('lint says no'); sys.exit(1)"])
    chunks: list[tuple[str, str]] = []

    report = run_all(
        [PYTEST, lint],
        workspace,
        report_dir,
        on_output=lambda name, text: chunks.append((name, text)),
    )

    assert report.checks[0].passed and not report.checks[1].passed
    assert not report.passed
    assert report.failing == ["check:lint"]
    assert report.summary() == "1 passed; lint failed (exit code 1)"
    # Live output arrives tagged with the check it came from.
    assert "lint says no" in "".join(text for name, text in chunks if name == "lint")
    assert "1 passed" in "".join(text for name, text in chunks if name == "tests")


def test_a_corrupt_junit_report_falls_back_to_exit_code_and_output(workspace, report_dir):
    script = "import sys; open(sys.argv[1], 'w').write('<testsuite><testcase'); sys.exit(1)"
    spec = CheckSpec("tests", ["{python}", "-c", script, "{junit}"])

    check = run(spec, workspace, report_dir)

    assert check.tests == [] and check.exit_code == 1 and not check.passed
    assert TestReport([check]).failing == ["check:tests"]


def test_a_report_left_by_an_earlier_run_is_not_read_again(workspace, report_dir):
    write(workspace / "tests/test_ok.py", "def test_one():\n    pass\n")
    assert run(PYTEST, workspace, report_dir).tests  # leaves tests.junit.xml behind
    quiet = CheckSpec("tests", ["{python}", "-c", "import sys; sys.exit(1)", "{junit}"])

    check = run(quiet, workspace, report_dir)

    assert check.tests == []


def test_the_junit_report_is_written_outside_the_workspace(workspace, report_dir):
    write(workspace / "tests/test_ok.py", "def test_one():\n    pass\n")

    run(PYTEST, workspace, report_dir)

    assert (report_dir / "tests.junit.xml").is_file()
    assert not list(workspace.rglob("*.xml"))
    assert not list(workspace.rglob("__pycache__"))  # PYTHONDONTWRITEBYTECODE


def test_a_report_survives_a_json_round_trip(workspace, report_dir):
    write(
        workspace / "tests/test_mixed.py",
        "import pytest\n\n"
        "def test_ok():\n    pass\n\n"
        "def test_bad():\n    assert False, 'nope'\n\n"
        "def test_skip():\n    pytest.skip('later')\n",
    )
    missing = CheckSpec("lint", ["orch-no-such-linter-xyz"])
    report = run_all([PYTEST, missing], workspace, report_dir)

    data = json.loads(json.dumps(report.to_json()))
    again = TestReport.from_json(data)

    assert again == report
    assert data["failing"] == ["check:lint", "tests/test_mixed.py::test_bad"] == again.failing
    assert data["counts"] == {"passed": 1, "failed": 1, "error": 0, "skipped": 1}
    assert again.summary() == report.summary()


def test_on_output_streams_while_the_check_runs(workspace, report_dir, tmp_path):
    # The script waits for a file that the callback creates: it can only finish if the first
    # chunk reached the callback before the process exited.
    go = tmp_path / "go"
    script = (
        "import os, time\n"
        "print('first', flush=True)\n"
        f"while not os.path.exists({str(go)!r}):\n    time.sleep(0.01)\n"
        "print('second')\n"
    )
    spec = CheckSpec("live", ["{python}", "-c", script])

    def on_output(text: str) -> None:
        if "first" in text:
            go.touch()

    check = run(spec, workspace, report_dir, timeout_s=30, on_output=on_output)

    assert check.passed and "second" in check.output


def test_python_placeholder_is_this_interpreter(workspace, report_dir):
    spec = CheckSpec("which", ["{python}", "-c", "import sys; print(sys.executable)"])

    check = run(spec, workspace, report_dir)

    assert check.command[0] == sys.executable
    assert check.output.strip() == sys.executable


def test_kill_running_checks_takes_down_a_check_in_flight(workspace, report_dir, tmp_path):
    """What the TUI calls when the person quits mid-test: the group dies, the check returns."""
    import threading

    from orch_tui.core.checks.runner import kill_running_checks

    pid_file = tmp_path / "test.pid"
    write(
        workspace / "tests/test_slow.py",
        "import os, time\n\n"
        "def test_slow():\n"
        f"    open({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "    time.sleep(600)\n",
    )
    results: list[CheckResult] = []
    worker = threading.Thread(
        target=lambda: results.append(run(PYTEST_S, workspace, report_dir, timeout_s=120))
    )
    worker.start()
    deadline = time.monotonic() + 60
    # the file is made, then written: wait for the pid itself
    while not (pid_file.exists() and pid_file.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.05)
    kill_running_checks()
    worker.join(timeout=30)
    assert not worker.is_alive()
    assert not results[0].passed and not results[0].timed_out
    assert wait_until_dead(int(pid_file.read_text()))


@pytest.mark.parametrize(
    "conftest",
    ["import os\nos._exit(0)\n", "import sys\nsys.exit(0)\n"],
    ids=["os._exit", "sys.exit"],
)
def test_a_conftest_that_exits_0_without_a_report_is_a_failure_the_model_is_told_about(
    workspace, report_dir, conftest
):
    write(workspace / "conftest.py", conftest)
    write(workspace / "tests/test_bad.py", "def test_one():\n    assert False\n")

    report = run_all([PYTEST], workspace, report_dir)

    check = report.checks[0]
    assert check.exit_code == 0 and not check.passed and not report.passed
    assert "without writing its JUnit report" in check.error
    assert report.failing == ["check:tests"]
    assert "without writing its JUnit report" in report.summary()


def test_os_exit_0_in_one_test_beside_a_failing_one_is_a_failure(workspace, report_dir):
    write(
        workspace / "tests/test_mixed.py",
        "import os\n\ndef test_a_fails():\n    assert False\n\n"
        "def test_b_exits():\n    os._exit(0)\n",
    )

    report = run_all([PYTEST], workspace, report_dir)

    assert report.checks[0].exit_code == 0
    assert not report.passed
    assert "without writing its JUnit report" in report.checks[0].error


XPASS_SUITE = """\
import pytest


@pytest.mark.xfail(reason="was broken")
def test_fixed_since():
    pass


@pytest.mark.xfail
@pytest.mark.parametrize("value", ["a - b", "c"])
def test_each(value):
    pass


@pytest.mark.xfail(strict=True)
def test_strict():
    pass


def test_plain():
    pass
"""


def test_a_non_strict_xfail_that_passes_is_labelled_xpassed(tmp_path: Path) -> None:
    """pytest's JUnit report writes it as a plain pass; the default command's ``-rX`` summary
    names it, so the report says ``xpassed`` (a strict one stays failed, a plain pass passed)."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "test_x.py").write_text(XPASS_SUITE, encoding="utf-8")

    report = run_all([PYTEST], workspace, tmp_path / "report")

    outcomes = sorted((test.id, test.outcome) for test in report.checks[0].tests)
    assert outcomes == [
        ("test_x.py::test_each[a - b]", "xpassed"),
        ("test_x.py::test_each[c]", "xpassed"),
        ("test_x.py::test_fixed_since", "xpassed"),
        ("test_x.py::test_plain", "passed"),
        ("test_x.py::test_strict", "failed"),
    ]
