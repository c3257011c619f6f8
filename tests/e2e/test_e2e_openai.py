"""End to end: the installed ``orch-tui --provider openai --auto`` against a local Chat Completions
server (tests/fake_openai.py), through the real ``openai`` SDK."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.e2e_support import assert_clean_exit, make_project
from tests.support.fake_openai import Error, FakeOpenAI, Reply

pytestmark = pytest.mark.e2e

SPEC = "# calc\n\nA module `app.py` with `add(a, b)` returning the sum, and pytest tests.\n"
BUGGY_APP = "def add(a, b):\n    return a - b\n"
ADD_TEST = "from app import add\n\n\ndef test_add():\n    assert add(2, 3) == 5, 'add is wrong'\n"


def openai_project(root: Path, fake: FakeOpenAI, *, key: str | None = "test-key"):
    project = make_project(root, spec_text=SPEC, key=None)
    project.env["OPENAI_BASE_URL"] = fake.url
    project.env.pop("OPENAI_API_KEY", None)
    if key is not None:
        project.env["OPENAI_API_KEY"] = key
    return project


def test_generation_failing_test_patch_success_through_an_openai_server(tmp_path: Path) -> None:
    create = [
        {"command": "create", "path": "app.py", "file_text": BUGGY_APP},
        {"command": "create", "path": "tests/test_app.py", "file_text": ADD_TEST},
    ]
    fix = {"command": "str_replace", "path": "app.py", "old_str": "a - b", "new_str": "a + b"}
    script = [
        Reply.edits("Writing the project.", create),
        Reply("Done."),
        Reply.edits("Fixing add.", [fix]),
        Reply("Done."),
    ]
    with FakeOpenAI(script) as fake:
        project = openai_project(tmp_path / "p", fake)
        result = project.run_auto("--provider", "openai", "--model", "gpt-4.1")

    assert_clean_exit(result, 0)
    assert "SUCCESS" in result.stdout
    assert project.workspace_files() == {
        "app.py": "def add(a, b):\n    return a + b\n",
        "tests/test_app.py": ADD_TEST,
    }
    state = project.state()
    assert state is not None and state["attempt"] == 1
    assert state["cost_usd"] > 0  # gpt-4.1 is in the price table
    patch_request = fake.requests[2].body
    assert "add is wrong" in patch_request["messages"][-1]["content"]
    assert patch_request["model"] == "gpt-4.1"


def test_a_local_server_needs_no_key_and_costs_nothing(tmp_path: Path) -> None:
    script = [
        Reply.edits(
            "",
            [
                {
                    "command": "create",
                    "path": "tests/test_ok.py",
                    "file_text": "def test_ok():\n    assert True\n",
                }
            ],
        ),
        Reply("Done."),
    ]
    with FakeOpenAI(script, valid_keys=None) as fake:
        project = openai_project(tmp_path / "p", fake, key=None)
        result = project.run_auto("--provider", "openai", "--model", "qwen2.5-coder")

    assert_clean_exit(result, 0)
    assert "no price for model qwen2.5-coder" in result.stdout + result.stderr
    state = project.state()
    assert state is not None and state["cost_usd"] == 0


def test_a_model_without_tools_is_a_clear_failure_with_exit_1(tmp_path: Path) -> None:
    script = [Error(400, "registry.ollama.ai/library/gemma:2b does not support tools")]
    with FakeOpenAI(script) as fake:
        project = openai_project(tmp_path / "p", fake)
        result = project.run_auto("--provider", "openai", "--model", "gemma:2b")

    assert_clean_exit(result, 1)
    assert "does not support tool calls" in result.stdout + result.stderr


def test_no_key_and_no_base_url_is_a_clear_error(tmp_path: Path) -> None:
    with FakeOpenAI() as fake:
        project = openai_project(tmp_path / "p", fake, key=None)
    del project.env["OPENAI_BASE_URL"]
    result = project.run_auto("--provider", "openai")
    assert_clean_exit(result, 1)
    assert "OPENAI_API_KEY is not set" in result.stderr
