"""End to end: iterating on a project (DESIGN section 16) with the installed ``orch-tui``
against the local fake Messages API: an edited spec changes the project it built, and a
stopped run goes on as far as it says."""

from __future__ import annotations

import re
import shlex
import signal
from typing import Any

import pytest

from tests.support.e2e_support import FAST_CONFIG, assert_clean_exit, attempt_turns, first_requests
from tests.support.fake_anthropic import Turn

pytestmark = pytest.mark.e2e

SPEC = "# calc\n\nA module `app.py` with `add(a, b)` returning the sum, and pytest tests.\n"
EDITED = SPEC + "Also `div(a, b)`, returning a / b.\n"
APP = "def add(a, b):\n    return a + b\n"
ADD_TEST = "from app import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
DIV = "\n\ndef div(a, b):\n    return a / b\n"
DIV_TEST = "from app import div\n\n\ndef test_div():\n    assert div(6, 3) == 2\n"


def generate(*files: tuple[str, str]) -> list[Turn]:
    return attempt_turns("Writing the project.", [("create", path, text) for path, text in files])


def opening_prompt(body: Any) -> str:
    content = body["messages"][0]["content"]
    return content if isinstance(content, str) else "".join(b.get("text", "") for b in content)


def test_an_edited_spec_changes_the_project_and_keeps_the_hand_edits(project_factory, fake_server):
    fake = fake_server(generate(("app.py", APP), ("tests/test_app.py", ADD_TEST)))
    project = project_factory(spec_text=SPEC, fake_url=fake.url)
    assert_clean_exit(project.run_auto(), 0)
    first = project.state()["run_id"]
    (project.workspace / "NOTES.md").write_text("mine\n")  # edited by hand after the run
    project.spec.write_text(EDITED)
    fake.push(
        *attempt_turns(
            "Adding div.",
            [
                ("str_replace", "app.py", "a + b\n", "a + b\n" + DIV),
                ("create", "tests/test_div.py", DIV_TEST),
            ],
        )
    )

    changed = project.run_auto()

    assert_clean_exit(changed, 0)
    assert f"changes the project of run {first}" in changed.stdout + changed.stderr
    state = project.state()
    assert state["run_id"] != first and state["follows"] == first
    files = project.workspace_files()
    assert files["NOTES.md"] == "mine\n" and files["tests/test_app.py"] == ADD_TEST
    assert files["app.py"] == APP + DIV and files["tests/test_div.py"] == DIV_TEST
    prompt = opening_prompt(first_requests(r.body for r in fake.requests)[-1])
    assert "+Also `div(a, b)`, returning a / b." in prompt
    assert "- app.py" in prompt and "- NOTES.md" in prompt and "- tests/test_app.py" in prompt
    assert "the workspace is empty" not in prompt

    status = project.run("status")
    assert f"follows   {first}" in status.stdout
    exported = project.run("history", "--export", first)
    assert f"| followed by | `{state['run_id']}` |" in exported.stdout


def test_fresh_regenerates_from_empty_and_says_how_to_change_instead(project_factory, fake_server):
    fake = fake_server(generate(("app.py", APP), ("tests/test_app.py", ADD_TEST)))
    project = project_factory(spec_text=SPEC, fake_url=fake.url)
    assert_clean_exit(project.run_auto(), 0)
    project.spec.write_text(EDITED)
    fake.push(*generate(("app.py", APP + DIV), ("tests/test_app.py", ADD_TEST)))

    fresh = project.run_auto("--fresh")

    assert_clean_exit(fresh, 0)
    assert "without --fresh, an edited spec changes the current project instead" in fresh.stdout
    assert "follows" not in project.state()
    prompt = opening_prompt(first_requests(r.body for r in fake.requests)[-1])
    assert "the workspace is empty" in prompt


NEVER_PASSES = "def test_value():\n    assert False, 'never passes'\n"


def set_value(old: int) -> list[Turn]:
    return attempt_turns(
        f"Trying {old + 1}.", [("str_replace", "app.py", f"V = {old}", f"V = {old + 1}")]
    )


def test_continue_with_max_retries_2_makes_two_patches(project_factory, fake_server):
    fake = fake_server(
        [
            *generate(("app.py", "V = 0\n"), ("tests/test_value.py", NEVER_PASSES)),
            *set_value(0),
            *set_value(1),
        ]
    )
    project = project_factory(spec_text=SPEC, fake_url=fake.url)
    stopped = project.run_auto("--max-retries", "5")
    assert_clean_exit(stopped, 1)
    assert "no progress" in project.state()["stop_reason"]
    fake.push(*set_value(2), *set_value(3))

    continued = project.run_auto("--continue", "--max-retries", "2")

    assert_clean_exit(continued, 1)
    assert len(first_requests(r.body for r in fake.requests)) == 3 + 2
    assert project.state()["stop_reason"].startswith("retries exhausted")
    assert project.workspace_files()["app.py"] == "V = 4\n"


SLOW_TEST = """\
import pathlib
import time

STARTED = pathlib.Path(__file__).resolve().parents[1] / "tests-started.flag"


def test_slow():
    if not STARTED.exists():
        STARTED.write_text("sleeping")
        time.sleep(60)
"""


def test_an_interrupted_fresh_run_is_resumed_by_the_command_the_hint_prints(
    project_factory, fake_server
):
    fake = fake_server(generate(("app.py", APP), ("tests/test_app.py", ADD_TEST)))
    project = project_factory(spec_text=SPEC, fake_url=fake.url)
    assert_clean_exit(project.run_auto(), 0)
    fake.push(*generate(("app.py", APP), ("tests/test_slow.py", SLOW_TEST)))
    flag = project.workspace / "tests-started.flag"

    code = project.signal_once(flag, signal.SIGINT, str(project.spec), "--auto", "--fresh")

    assert code == 130
    stderr = (project.root / "stderr.txt").read_text()
    hint = re.search(r"run `(orch-tui [^`]*)` to resume", stderr)
    assert hint is not None, stderr
    assert "--fresh" not in hint.group(1)
    interrupted = project.state()["run_id"]
    requests = len(fake.requests)
    resumed = project.run(*shlex.split(hint.group(1))[1:])
    assert_clean_exit(resumed, 0)
    assert project.state()["run_id"] == interrupted  # resumed, not yet another new run
    assert len(fake.requests) == requests  # resumed at TESTING: nothing asked again


@pytest.mark.parametrize("give_up", [["--guidance", "3"], ["--give-up"]], ids=["number", "flag"])
def test_giving_up_on_a_stuck_run_makes_no_request(project_factory, fake_server, give_up):
    fake = fake_server(
        [
            *generate(("app.py", "V = 0\n"), ("tests/test_value.py", NEVER_PASSES)),
            *set_value(0),
            *set_value(1),
        ]
    )
    config = FAST_CONFIG + '\n[loop]\non_stuck = "ask"\n'
    project = project_factory(spec_text=SPEC, fake_url=fake.url, config=config)
    stuck = project.run_auto()
    assert_clean_exit(stuck, 4)
    assert "3. Give up on this run" in stuck.stdout
    requests = len(fake.requests)
    fake.push(*set_value(2))

    given_up = project.run_auto(*give_up)

    assert_clean_exit(given_up, 1)
    assert len(fake.requests) == requests
    state = project.state()
    assert (
        state["state"] == "FAILED" and state["stop_reason"] == "given up by the person at attempt 2"
    )
    assert state["max_retries"] == 5 and state["question"] is None  # the default, not grown
