"""--provider claude-code: a stub ``claude`` on PATH stands in for Claude Code's command line."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tests.support.e2e_support import assert_clean_exit, make_project

SPEC = "# calc\n\nA module `app.py` with `add(a, b)` returning the sum, and pytest tests.\n"
APP = "def add(a, b):\n    return a + b\n"
TEST = "from app import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"

STUB = '''\
#!{python}
"""A stand-in for `claude -p PROMPT --output-format json`: writes the project where it runs."""
import json, os, sys
from pathlib import Path

log = Path({log!r})
calls = json.loads(log.read_text()) if log.exists() else []
calls.append({{"argv": sys.argv[1:], "cwd": os.getcwd(), "stdin": sys.stdin.read(),
              "env_key": os.environ.get("ANTHROPIC_API_KEY")}})
log.write_text(json.dumps(calls))
Path("app.py").write_text({app!r})
Path("tests").mkdir(exist_ok=True)
Path("tests/test_app.py").write_text({test!r})
print(json.dumps({{
    "type": "result", "subtype": "success", "is_error": False,
    "result": "Wrote app.py and its test.",
    "total_cost_usd": 0.0421,
    "usage": {{"input_tokens": 900, "output_tokens": 300,
              "cache_creation_input_tokens": 50, "cache_read_input_tokens": 4000}},
}}))
'''


def install_stub(bin_dir: Path, log: Path, *, deleting: str | None = None) -> None:
    """The stub on ``bin_dir``; with ``deleting``, it also removes that file."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    stub = bin_dir / "claude"
    text = STUB.format(python=sys.executable, log=str(log), app=APP, test=TEST)
    if deleting is not None:
        text = text.replace("print(json.dumps", f"Path({deleting!r}).unlink()\nprint(json.dumps")
    stub.write_text(text)
    stub.chmod(0o755)


def test_claude_code_edits_in_a_copy_become_the_reviewed_proposal(tmp_path: Path) -> None:
    log = tmp_path / "claude-calls.json"
    install_stub(tmp_path / "bin", log)
    project = make_project(tmp_path / "p", spec_text=SPEC, key=None)
    project.env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{project.env['PATH']}"

    result = project.run_auto("--provider", "claude-code", "--model", "sonnet")

    assert_clean_exit(result, 0)
    assert "SUCCESS" in result.stdout
    assert project.workspace_files() == {"app.py": APP, "tests/test_app.py": TEST}
    (call,) = json.loads(log.read_text())
    assert Path(call["cwd"]).resolve() != project.workspace.resolve()  # a staging copy
    argv = call["argv"]
    assert argv[0] == "-p" and "Build the project" in call["stdin"]  # the prompt, on stdin
    assert "add(a, b)" in call["stdin"]  # the spec, on stdin: it may be larger than an argument
    assert not any("add(a, b)" in arg for arg in argv)
    assert argv[argv.index("--output-format") + 1] == "json"
    assert argv[argv.index("--model") + 1] == "sonnet"
    assert "Bash" not in argv[argv.index("--allowedTools") + 1]
    proposal = json.loads((project.attempt_dir(0) / "proposal.json").read_text())
    assert sorted(c["path"] for c in proposal["changes"]) == ["app.py", "tests/test_app.py"]
    state = project.state()
    assert state is not None
    assert state["cost_usd"] == 0.0421  # the cost claude reported, not a price-table estimate
    assert state["usage"]["input_tokens"] == 900
    assert state["usage"]["cache_read_input_tokens"] == 4000


def test_a_file_claude_code_deletes_is_deleted_in_the_proposal_and_on_apply(
    tmp_path: Path,
) -> None:
    """Issue 22, item 18: the deletion was named in the answer and dropped from the proposal,
    so the file stayed whatever the person accepted."""
    log = tmp_path / "claude-calls.json"
    install_stub(tmp_path / "bin", log, deleting="old.py")
    project = make_project(tmp_path / "p", spec_text=SPEC, key=None)
    project.workspace.mkdir(exist_ok=True)
    (project.workspace / "old.py").write_text("OLD = 1\n")
    project.env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{project.env['PATH']}"

    result = project.run_auto("--provider", "claude-code", "--model", "sonnet")

    assert_clean_exit(result, 0)
    proposal = json.loads((project.attempt_dir(0) / "proposal.json").read_text())
    deleted = [c for c in proposal["changes"] if c["path"] == "old.py"]
    assert len(deleted) == 1 and deleted[0]["new_text"] is None, proposal["changes"]
    assert project.workspace_files() == {"app.py": APP, "tests/test_app.py": TEST}


def test_a_missing_claude_command_is_a_clear_error(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", spec_text=SPEC, key=None)
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir()
    project.env["PATH"] = str(empty_bin)

    result = project.run_auto("--provider", "claude-code")

    assert_clean_exit(result, 1)
    assert "the 'claude' command is not installed" in result.stdout + result.stderr
    assert project.workspace_files() == {}


def test_claude_code_is_told_its_own_folder_and_tools_and_its_cost_needs_no_price(
    tmp_path: Path,
) -> None:
    """Issue 25, item 5: no /workspace, no str_replace_based_edit_tool, no ask_user in what
    Claude Code reads; its reported cost is recorded without a "no price" note."""
    log = tmp_path / "claude-calls.json"
    install_stub(tmp_path / "bin", log)
    project = make_project(tmp_path / "p", spec_text=SPEC, key=None)
    project.env["PATH"] = f"{tmp_path / 'bin'}{os.pathsep}{project.env['PATH']}"

    result = project.run_auto("--provider", "claude-code", "--model", "no-such-price")

    assert_clean_exit(result, 0)
    (call,) = json.loads(log.read_text())
    assert f"Files already in {call['cwd']}" in call["stdin"]  # its folder, by its path
    told = call["stdin"].replace(call["cwd"], "<its folder>")
    for untrue in ("/workspace", "str_replace_based_edit_tool", "ask_user"):
        assert untrue not in told
    assert "Read, Edit, MultiEdit, Write, Glob, Grep, LS" in told
    assert "no price" not in result.stdout + result.stderr
    state = project.state()
    assert state is not None and state["cost_usd"] == 0.0421
