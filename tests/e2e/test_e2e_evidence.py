"""The verdict's evidence, end to end: the installed ``orch-tui --auto`` against the local fake
API, real pytest under real coverage (DESIGN section 15)."""

from __future__ import annotations

import json

from tests.support.e2e_support import FAST_CONFIG, assert_clean_exit, attempt_turns
from tests.support.fake_anthropic import Turn

SPEC = "# app\n\n`app.add(a, b)` returns the sum; `app.mul(a, b)` the product.\n"
BUGGY = "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n"
TEST = "from app import add\n\n\ndef test_add():\n    assert add(2, 3) == 5, 'add is wrong'\n"
LINE = "1 test passes (1 added, 0 rewritten, 0 weakened); 1 of 4 changed lines run by no test"


def generate(*files: tuple[str, str]) -> list[Turn]:
    return attempt_turns("Writing.", [("create", path, text) for path, text in files])


def start(project_factory, fake_server, second: list[Turn], config: str = FAST_CONFIG):  # noqa: ANN001, ANN201
    fake = fake_server([*generate(("app.py", BUGGY), ("tests/test_app.py", TEST)), *second])
    return project_factory(spec_text=SPEC, fake_url=fake.url, config=config)


def test_success_ends_with_the_evidence_line_and_json_carries_its_fields(
    project_factory, fake_server
):
    fix = attempt_turns("Fixing add.", [("str_replace", "app.py", "a - b", "a + b")])
    project = start(project_factory, fake_server, fix)

    result = project.run_auto()

    assert_clean_exit(result, 0)
    last = result.stdout.splitlines()[-1]
    assert last.startswith(f"SUCCESS: {LINE}, after 2 attempts · tokens "), last
    # mul's body: the one changed line no test runs; evidence per attempt in the log and events
    first = json.loads((project.attempt_dir(0) / "evidence.json").read_text())
    assert first["uncovered"] == {"app.py": [6]}
    fix_evidence = json.loads((project.attempt_dir(1) / "evidence.json").read_text())
    assert (fix_evidence["uncovered_lines"], fix_evidence["changed_lines"]) == (0, 1)
    coverage = json.loads((project.attempt_dir(1) / "coverage.json").read_text())
    assert coverage["map"]["app.py"]["executed"]["2"] == ["tests/test_app.py::test_add"]
    kinds = [event["event"] for event in project.events()]
    assert kinds.count("evidence") == 2
    status = project.run("status")
    assert "evidence  attempt 1: 0 of 1 changed lines run by no test" in status.stdout, (
        status.stdout
    )
    assert f"verdict   {LINE}" in status.stdout, status.stdout


def test_json_run_finished_carries_the_evidence_as_fields(project_factory, fake_server):
    fix = attempt_turns("Fixing add.", [("str_replace", "app.py", "a - b", "a + b")])
    project = start(project_factory, fake_server, fix)

    result = project.run_auto("--json")

    assert_clean_exit(result, 0)
    events = [json.loads(line) for line in result.stdout.splitlines()]
    finished = events[-1]
    assert (finished["event"], finished["state"]) == ("run_finished", "SUCCESS")
    assert finished["evidence"] == {
        "tests_passed": 1,
        "added": 1,
        "rewritten": [],
        "weakened": [],
        "passes_without": [],
        "uncovered_lines": 1,
        "changed_lines": 4,
        "coverage_unavailable": None,
        "summary": LINE,
    }
    found = [event for event in events if event["event"] == "evidence"]
    assert [event["added"] for event in found] == [["tests/test_app.py::test_add"], []]
    status = json.loads(project.run("status", "--json").stdout)
    assert status["evidence"] == finished["evidence"]
    assert status["attempt_evidence"]["attempt"] == 1


def test_a_locked_test_rewritten_to_pass_stops_auto_with_exit_1(project_factory, fake_server):
    rewrite = attempt_turns(
        "The test is wrong.",
        [
            (
                "str_replace",
                "tests/test_app.py",
                "assert add(2, 3) == 5, 'add is wrong'",
                "assert True",
            )
        ],
    )
    config = FAST_CONFIG + "\n[safety]\nallow_test_edits = true\n"
    project = start(project_factory, fake_server, rewrite, config)

    result = project.run_auto()

    assert_clean_exit(result, 1)
    reason = (
        "tests rewritten to pass: tests/test_app.py::test_add (its old form failed); "
        "--auto never accepts a pass bought by rewriting the tests"
    )
    assert result.stdout.splitlines()[-1].startswith(f"FAILED: {reason} · tokens "), result.stdout
    assert project.state()["stop_reason"] == reason
    assert "test_add rewritten to pass (its old form failed)" in result.stdout
    assert "assert replaced by a constant in test_add" in result.stdout
    status = project.run("status")
    assert "test_add rewritten to pass (its old form failed)" in status.stdout, status.stdout
    as_json = json.loads(project.run("status", "--json").stdout)
    assert as_json["evidence"] is None  # no SUCCESS: no verdict, but the attempt's evidence
    assert as_json["attempt_evidence"]["rewritten"] == {"tests/test_app.py::test_add": "failed"}
    run_id = project.state()["run_id"]
    exported = project.run("history", "--export", run_id)
    assert "- evidence: test\\_add rewritten to pass (its old form failed)" in exported.stdout
